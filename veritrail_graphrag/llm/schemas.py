"""The shape of each answer we ask a model for, as pydantic models.

The same models give the `response_format` JSON schema (for endpoints with structured output)
and validate what the tolerant text parser recovers (for endpoints without). Field order is the
order the model writes in: reasoning fields come before the decision they lead to.
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
    selection: str
    has_verifiable_content: bool
    disambiguation: str
    can_be_disambiguated: bool
    claims: list[str]


class EvidenceAnswer(_Answer):
    """`selected` and `context` hold the prompt's own labels ("S3", "S5-S7"), not sentence ids."""

    sub_claims: list[str]
    review: str
    selected: list[str]
    context: list[str]
    summary: str
    gaps: str


VerdictLabel = Literal["Fully Supported", "Not Fully Supported", "Inconclusive"]


class VerdictAnswer(_Answer):
    interpretation: str
    relevant_evidence: str
    conflicting_evidence: str
    debatable_evidence: str
    clear_evidence: str
    reasoning: str
    verdict: VerdictLabel


ANSWER_MODELS: dict[CallKind, type[_Answer]] = {
    CallKind.CLAIM_EXTRACTION: ClaimExtractionAnswer,
    CallKind.DECOMPOSITION: DecompositionAnswer,
    CallKind.EVIDENCE_SELECTION: EvidenceAnswer,
    CallKind.VERDICT: VerdictAnswer,
}


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


def response_format(kind: CallKind) -> dict[str, Any]:
    """The `response_format` argument asking for this kind's answer as strict JSON."""
    model = ANSWER_MODELS[kind]
    return {
        "type": "json_schema",
        "json_schema": {"name": kind.value, "strict": True, "schema": _strict(model.model_json_schema())},
    }
