"""The shape of each answer we ask a model for, as pydantic models.

The same models give the answer's JSON schema (sent as `response_format` where the endpoint takes
one, see `structured.py`) and validate what the tolerant text parser recovers (for endpoints
without). Field order is the order the model writes in: reasoning fields come before the decision
they lead to.

The schema sent requires every field (strict mode wants that), but the reader requires only the
decision: a field with a default here may be missing or invalid and the answer is still kept.

Each prompt profile (`PromptProfile`) has its answers: the compact ones below, and the paper's
Evidence Selection and verdict, which write out the steps of the paper's appendix C (per-sentence
tests, the overview and its "nothing relevant" exit, the verdict's seven steps).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from veritrail_graphrag.llm.config import PromptProfile
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


class SentenceTest(_Answer):
    """The paper's step 3 for one relevant sentence, or run of sentences: which sub-claim, a quote
    that could argue a strong implication, the context it needs, and a careful reader's reasoning."""

    sentences: str = ""
    sub_claim: str = ""
    quote: str = ""
    context_quote: str = ""
    reading: str = ""
    strong: bool = False


class PaperEvidenceAnswer(_Answer):
    """`relevant` false is the overview's "no relevant sentences" exit: nothing is selected,
    whatever else the answer lists."""

    sub_claims: list[str] = []
    overview: str = ""
    relevant: bool = True
    tests: list[SentenceTest] = []
    selected: list[str]
    context: list[str] = []
    summary: str = ""
    gaps: str = ""


class PaperVerdictAnswer(_Answer):
    """`relevant` false is step 3's "no relevant sentences" exit: the claim is not justified."""

    interpretation: str = ""
    clarified_claim: str = ""
    relevant_sentences: str = ""
    relevant: bool = True
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
PROFILE_MODELS: dict[PromptProfile, dict[CallKind, type[_Answer]]] = {
    PromptProfile.COMPACT: ANSWER_MODELS,
    PromptProfile.PAPER: {
        **ANSWER_MODELS,
        CallKind.EVIDENCE_SELECTION: PaperEvidenceAnswer,
        CallKind.VERDICT: PaperVerdictAnswer,
    },
}


# Bounds on what a model may write, in characters and items. Generous for a capable model (a
# review of a few sentences, a handful of claims), tight enough that a small model constrained by
# a grammar cannot write until max_tokens inside one string. llama.cpp turns a bound into nested
# grammar rules and gives up (its server crashes) above about 1,000 repetitions: stay at or below.
# The paper profile's answers are longer; they are bounded to fit 4,096 output tokens, the
# smallest answer limit of current hosted models, at 40 sentences a prompt.
_MAX_LENGTH = 1000
_TEXT = 600
_SHORT = 300
_LABEL = 16
_PARTS = 12
MAX_TESTS = 6
_BOUNDS: dict[str, tuple[int, int | None]] = {
    # field: (maxLength of the string or of each item, maxItems of a list; None = not a list;
    # a list of objects has its items' fields bounded by name, and 0 as its maxLength)
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
    # the paper profile's own fields
    "overview": (800, None),
    "tests": (0, MAX_TESTS),
    "sentences": (24, None),
    "sub_claim": (200, None),
    "quote": (200, None),
    "context_quote": (200, None),
    "reading": (300, None),
    "clarified_claim": (_SHORT, None),
    "relevant_sentences": (_MAX_LENGTH, None),
}
_PAPER_BOUNDS = {**_BOUNDS, "sub_claims": (160, 10), "reasoning": (_MAX_LENGTH, None)}
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


def _inlined(node: Any, definitions: dict[str, Any]) -> Any:
    """The schema with every `$ref` replaced by its definition: servers that constrain decoding
    with a grammar (llama.cpp) do not all follow references."""
    if isinstance(node, dict):
        if "$ref" in node:
            return _inlined(definitions[node["$ref"].rsplit("/", 1)[-1]], definitions)
        return {k: _inlined(v, definitions) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inlined(item, definitions) for item in node]
    return node


def _bound(properties: dict[str, Any], bounds: dict[str, tuple[int, int | None]], labels: int | None) -> None:
    for name, prop in properties.items():
        if name in _LABEL_LISTS:
            prop["maxItems"] = max(1, labels or _PARTS)
            prop["items"]["maxLength"] = _LABEL
        elif name in bounds:
            length, items = bounds[name]
            if items is None:
                prop["maxLength"] = length
                continue
            prop["maxItems"] = items
            if prop["items"].get("type") == "object":
                _bound(prop["items"]["properties"], bounds, labels)
            else:
                prop["items"]["maxLength"] = length


def answer_schema(
    kind: CallKind, *, labels: int | None = None, profile: PromptProfile = PromptProfile.COMPACT
) -> dict[str, Any]:
    """This kind's answer in `profile` as a strict JSON schema with every string and list bounded.

    `labels` is how many sentence labels the prompt shows: an Evidence Selection answer lists at
    most that many (ranges like "S5-S7" make it fewer, never more).
    """
    raw = PROFILE_MODELS[profile][kind].model_json_schema()
    schema = _strict(_inlined(raw, raw.get("$defs", {})))
    _bound(schema["properties"], _PAPER_BOUNDS if profile is PromptProfile.PAPER else _BOUNDS, labels)
    return schema


def _chars(name: str, prop: dict[str, Any]) -> int:
    """Characters of JSON that a value filling `prop`'s bounds takes, its key included."""
    if prop.get("type") == "array":
        item = prop["items"]
        each = sum(_chars(n, p) for n, p in item["properties"].items()) if item.get("type") == "object" else (
            item.get("maxLength", _SHORT)
        )
        size = prop.get("maxItems", _PARTS) * (each + 4)
    elif prop.get("type") == "string":
        size = prop.get("maxLength", _SHORT)
    else:
        size = 32
    return size + len(name) + 6


def max_tokens_for(schema: dict[str, Any]) -> int:
    """An answer filling every bound of `schema` fits in this many tokens (keys and quotes included)."""
    chars = sum(_chars(name, prop) for name, prop in schema["properties"].items())
    return chars // _CHARS_PER_TOKEN + _JSON_OVERHEAD_TOKENS
