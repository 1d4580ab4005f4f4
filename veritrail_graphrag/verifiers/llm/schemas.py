"""The shape of each answer we ask a model for, as pydantic models.

The same models give the answer's JSON schema (sent as `response_format` where the endpoint takes
one, see `structured.py`) and validate what the tolerant text parser recovers (for endpoints
without). Field order is the order the model writes in: reasoning fields come before the decision
they lead to.

The schema sent requires every field (strict mode wants that), but the reader requires only the
decision: a field with a default here may be missing or invalid and the answer is still kept.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from veritrail_graphrag.llm.kinds import CallKind


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")


class DecompositionAnswer(_Answer):
    parts: list[str]


class ClaimExtractionAnswer(_Answer):
    """Without the two flags the claims listed stand: a model that lists claims found them."""

    selection: str = ""
    has_verifiable_content: bool = True
    disambiguation: str = ""
    can_be_disambiguated: bool = True
    claims: list[str]


class EvidenceAnswer(_Answer):
    """`selected` and `context` hold the prompt's own labels ("S3", "S5-S7"), not sentence ids.
    An empty `summary` next to a selection is filled by the verifier (see `verifier.py`)."""

    sub_claims: list[str] = []
    review: str = ""
    selected: list[str]
    context: list[str] = []
    summary: str = ""
    gaps: str = ""


VerdictLabel = Literal["Fully Supported", "Not Fully Supported", "Inconclusive"]


class VerdictAnswer(_Answer):
    interpretation: str = ""
    relevant_evidence: str = ""
    conflicting_evidence: str = ""
    debatable_evidence: str = ""
    clear_evidence: str = ""
    reasoning: str = ""
    verdict: VerdictLabel


ANSWER_MODELS: dict[CallKind, type[_Answer]] = {
    CallKind.CLAIM_EXTRACTION: ClaimExtractionAnswer,
    CallKind.DECOMPOSITION: DecompositionAnswer,
    CallKind.EVIDENCE_SELECTION: EvidenceAnswer,
    CallKind.VERDICT: VerdictAnswer,
}


# Bounds on what a model may write, in characters and items. Generous for a capable model (a
# review of a few sentences, a handful of claims), tight enough that a small model constrained by
# a grammar cannot write until max_tokens inside one string. llama.cpp turns a bound into nested
# grammar rules and gives up (its server crashes) above about 1,000 repetitions: stay at or below.
_MAX_LENGTH = 1000
_TEXT = 600
_SHORT = 300
_LABEL = 16
_PARTS = 12
_BOUNDS: dict[str, tuple[int, int | None]] = {
    # field: (maxLength of the string or of each item, maxItems of a list; None = not a list)
    "parts": (_SHORT, _PARTS),
    "selection": (_TEXT, None),
    "disambiguation": (_TEXT, None),
    "claims": (_SHORT, _PARTS),
    "sub_claims": (_SHORT, _PARTS),
    "review": (_TEXT, None),
    "summary": (_MAX_LENGTH, None),
    "gaps": (_SHORT, None),
    "interpretation": (_TEXT, None),
    "relevant_evidence": (_TEXT, None),
    "conflicting_evidence": (_TEXT, None),
    "debatable_evidence": (_TEXT, None),
    "clear_evidence": (_TEXT, None),
    "reasoning": (_TEXT, None),
}
_LABEL_LISTS = frozenset({"selected", "context"})
_CHARS_PER_TOKEN = 3
_JSON_OVERHEAD_TOKENS = 64


def _strict(node: Any) -> Any:
    """Strict mode wants every property required, no extras, and no defaults or titles."""
    if isinstance(node, dict):
        out = {k: _strict(v) for k, v in node.items() if k not in ("title", "default")}
        if out.get("type") == "object":
            out["additionalProperties"] = False
            out["required"] = list(out.get("properties", {}))
        return out
    if isinstance(node, list):
        return [_strict(item) for item in node]
    return node


def answer_schema(kind: CallKind, *, labels: int | None = None) -> dict[str, Any]:
    """This kind's answer as a strict JSON schema with every string and list bounded.

    `labels` is how many sentence labels the prompt shows: an Evidence Selection answer lists at
    most that many (ranges like "S5-S7" make it fewer, never more).
    """
    schema = _strict(ANSWER_MODELS[kind].model_json_schema())
    for name, prop in schema["properties"].items():
        if name in _LABEL_LISTS:
            prop["maxItems"] = max(1, labels or _PARTS)
            prop["items"]["maxLength"] = _LABEL
        elif name in _BOUNDS:
            length, items = _BOUNDS[name]
            if items is None:
                prop["maxLength"] = length
            else:
                prop["maxItems"] = items
                prop["items"]["maxLength"] = length
    return schema


def max_tokens_for(schema: dict[str, Any]) -> int:
    """An answer filling every bound of `schema` fits in this many tokens (keys and quotes included)."""
    chars = 0
    for name, prop in schema["properties"].items():
        if prop.get("type") == "array":
            chars += prop.get("maxItems", _PARTS) * (prop["items"].get("maxLength", _SHORT) + 4)
        elif prop.get("type") == "string":
            chars += prop.get("maxLength", _SHORT)
        else:
            chars += 32
        chars += len(name) + 6
    return chars // _CHARS_PER_TOKEN + _JSON_OVERHEAD_TOKENS
