"""Dry-run cost: what an audit would spend, from call counts and text sizes, without calling anyone.

The caller counts, per call kind, how many calls it expects and how many characters of its own
text (claims, sentences, excerpts) they carry; we add our instructions, the model's expected
answer length and the sampling factor, then price the result. Tokens are chars/4, so this is an
order-of-magnitude figure, good for "is this a $5 or a $500 audit".
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field

from veritrail_graphrag.llm.config import PromptProfile
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.llm.usage import ModelPrice, estimate_tokens, price_for
from veritrail_graphrag.verifiers.llm.profiles import PROFILES

# Typical answer lengths (tokens) for our prompts: their reasoning fields dominate. The paper
# profile writes out its steps (per-sentence tests, the verdict's seven steps): about twice as long.
EXPECTED_OUTPUT_TOKENS: dict[PromptProfile, dict[CallKind, int]] = {
    PromptProfile.COMPACT: {
        CallKind.CLAIM_EXTRACTION: 250,
        CallKind.DECOMPOSITION: 120,
        CallKind.EVIDENCE_SELECTION: 450,
        CallKind.VERDICT: 650,
    },
    PromptProfile.PAPER: {
        CallKind.CLAIM_EXTRACTION: 250,
        CallKind.DECOMPOSITION: 120,
        CallKind.EVIDENCE_SELECTION: 900,
        CallKind.VERDICT: 1_100,
    },
}
SAMPLED_KINDS = frozenset({CallKind.EVIDENCE_SELECTION, CallKind.VERDICT})
_USER_SCAFFOLD_CHARS = 400


class CallVolume(BaseModel):
    """`chars`: total characters of data (claims, sentences, excerpts) across all these calls."""

    calls: int = Field(ge=0)
    chars: int = Field(default=0, ge=0)


class KindEstimate(BaseModel):
    kind: CallKind
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None


class CostEstimate(BaseModel):
    model: str
    samples: int
    kinds: list[KindEstimate]
    input_tokens: int
    output_tokens: int
    cost_usd: float | None = Field(description="None when the model has no price in the table")


def estimate_cost(
    volumes: Mapping[CallKind | str, CallVolume],
    model: str,
    *,
    samples: int = 1,
    prices: Mapping[str, ModelPrice] | None = None,
    profile: PromptProfile = PromptProfile.COMPACT,
) -> CostEstimate:
    """Estimate tokens and cost of `profile`'s prompts; Evidence Selection and Verdict calls are
    multiplied by `samples`."""
    price = price_for(model, prices)
    kinds: list[KindEstimate] = []
    for raw_kind, volume in volumes.items():
        kind = CallKind(raw_kind)
        factor = samples if kind in SAMPLED_KINDS else 1
        calls = volume.calls * factor
        overhead = estimate_tokens(len(PROFILES[profile].system_prompts[kind]) + _USER_SCAFFOLD_CHARS)
        input_tokens = calls * overhead + factor * estimate_tokens(volume.chars)
        output_tokens = calls * EXPECTED_OUTPUT_TOKENS[profile][kind]
        kinds.append(
            KindEstimate(
                kind=kind,
                calls=calls,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                cost_usd=price.cost(input_tokens, output_tokens) if price else None,
            )
        )
    input_total = sum(k.input_tokens for k in kinds)
    output_total = sum(k.output_tokens for k in kinds)
    return CostEstimate(
        model=model,
        samples=samples,
        kinds=kinds,
        input_tokens=input_total,
        output_tokens=output_total,
        cost_usd=price.cost(input_total, output_total) if price else None,
    )
