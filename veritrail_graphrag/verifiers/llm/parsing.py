"""Reading answers: strict JSON when the endpoint enforced a schema, a tolerant reader otherwise.

Models without structured output wrap JSON in code fences, add prose around it, leave trailing
commas or use single quotes (`llm/json_text.py` reads those); some answer "Verdict: Fully
Supported" in plain text. We recover all of that, but never guess.

Each answer model (`schemas.py`) says which fields are required: the decision (the verdict, the
selected labels, the parts, the claims). A missing or invalid optional field is left at its default
and the answer kept, since throwing away a valid decision for want of a summary costs a call and
can fail the claim. A missing or invalid required field raises `AnswerParseError` naming it, with
the fields that were valid, so that the client's repair turn asks for that field alone.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from veritrail_graphrag.llm.completion import AnswerParseError
from veritrail_graphrag.llm.json_text import extract_json
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.models import Verdict
from veritrail_graphrag.verifiers.llm.schemas import (
    ClaimExtractionAnswer,
    DecompositionAnswer,
    EvidenceAnswer,
    PaperEvidenceAnswer,
    PaperVerdictAnswer,
    VerdictAnswer,
)

_A = TypeVar("_A", bound=BaseModel)
_VERDICT_LINE = re.compile(
    r"^[\s>*#_-]*(?:final\s+)?verdict\s*[:=\-]\s*[*_\"'`]*\s*(?P<label>[A-Za-z _-]+?)\s*[*_\"'`.]*\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_FIELD_LINE = re.compile(
    r"^[\s>*#_-]*(?P<key>selected|context|summary)\s*(?:sentences|ids)?\s*[:=]\s*(?P<value>.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_VERDICTS = {v.value.lower(): v for v in Verdict}


def _validate(model: type[_A], data: dict[str, Any], kind: CallKind) -> _A:
    """The answer, with invalid optional fields left at their defaults; a required field missing or
    invalid raises, naming every such field and keeping the others for the repair turn."""
    data = {name: value for name, value in data.items() if name in model.model_fields}
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
    invalid = list(dict.fromkeys(str(e["loc"][0]) for e in errors if e["loc"]))
    optional = [name for name in invalid if not model.model_fields[name].is_required()]
    if optional:
        return _validate(model, {k: v for k, v in data.items() if k not in optional}, kind)
    where = ".".join(map(str, errors[0]["loc"]))
    raise AnswerParseError(
        f"{kind.label} answer: {where}: {errors[0]['msg']}",
        missing=invalid,
        kept={k: v for k, v in data.items() if k not in invalid},
    )


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = value.strip()
        if not value or value.lower() in ("none", "n/a", "[]"):
            return []
        return [piece for piece in re.split(r"[,;\s]+", value.strip("[]")) if piece]
    if isinstance(value, list | tuple):
        return [str(item) for item in value if str(item).strip()]
    return [str(value)]


def normalize_verdict(label: str) -> Verdict:
    """Accept the three labels whatever their case, spacing or underscores; nothing else."""
    key = " ".join(label.replace("_", " ").replace("-", " ").split()).strip(" .*\"'`").lower()
    try:
        return _VERDICTS[key]
    except KeyError:
        raise AnswerParseError(f"verdict {label!r} is not one of {', '.join(_VERDICTS)}") from None


def parse_decomposition(text: str) -> list[str]:
    data = extract_json(text, allow_list=True)
    if isinstance(data, list):
        data = {"parts": data}
    if not isinstance(data, dict):
        raise AnswerParseError("sub-claim decomposition answer: no JSON object with 'parts'")
    if "parts" not in data:
        lists = [v for v in data.values() if isinstance(v, list)]
        if len(lists) != 1:
            raise AnswerParseError("sub-claim decomposition answer: no 'parts' list")
        data = {"parts": lists[0]}
    answer = _validate(DecompositionAnswer, {"parts": _strings(data["parts"])}, CallKind.DECOMPOSITION)
    return list(dict.fromkeys(p.strip() for p in answer.parts if p.strip()))


def _strings(value: Any) -> Any:
    return [str(v) for v in value] if isinstance(value, list) else value


def parse_claim_extraction(text: str) -> list[str]:
    """A sentence the model says is not verifiable, or cannot be disambiguated, has no claims
    whether or not the answer lists them."""
    data = extract_json(text)
    if not isinstance(data, dict):
        raise AnswerParseError("claim extraction answer: no JSON object")
    if data.get("has_verifiable_content") is False or data.get("can_be_disambiguated") is False:
        return []
    answer = _validate(ClaimExtractionAnswer, data, CallKind.CLAIM_EXTRACTION)
    if not (answer.has_verifiable_content and answer.can_be_disambiguated):
        return []
    return list(dict.fromkeys(c.strip() for c in answer.claims if c.strip()))


def _evidence_fields(text: str) -> dict[str, Any]:
    data = extract_json(text)
    if not isinstance(data, dict):
        data = _plain_fields(text)
    data = {**data, **{key: _as_list(data[key]) for key in ("selected", "context") if key in data}}
    if isinstance(data.get("sub_claims"), str):
        data["sub_claims"] = [data["sub_claims"]]
    return data


def parse_evidence(text: str) -> EvidenceAnswer:
    """Labels stay as the model wrote them; `SentenceLabels.resolve` maps and filters them. A
    selection without a summary is kept: the verifier quotes the selected sentences instead."""
    return _validate(EvidenceAnswer, _evidence_fields(text), CallKind.EVIDENCE_SELECTION)


def parse_paper_evidence(text: str) -> PaperEvidenceAnswer:
    """As `parse_evidence`; an answer that took the overview's exit (`relevant` false) selects
    nothing, whatever it lists, and needs no selection to be read."""
    data = _evidence_fields(text)
    if data.get("relevant") is False:
        data = {**data, "selected": [], "context": [], "summary": ""}
    if not isinstance(data.get("tests", []), list):
        data.pop("tests")
    return _validate(PaperEvidenceAnswer, data, CallKind.EVIDENCE_SELECTION)


def _plain_fields(text: str) -> dict[str, Any]:
    """'Selected: S1, S3-S5' / 'Context: ...' / 'Summary: ...' lines of a plain-text answer."""
    fields: dict[str, Any] = {}
    for match in _FIELD_LINE.finditer(text):
        fields.setdefault(match["key"].lower(), match["value"].strip())
    return fields


_V = TypeVar("_V", VerdictAnswer, PaperVerdictAnswer)


def _without_verdict(data: dict[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    """What a verdict answer said besides its unreadable verdict: kept while the verdict is asked again."""
    return {k: v for k, v in data.items() if k in model.model_fields and k != "verdict"}


def _verdict(text: str, model: type[_V], data: dict[str, Any]) -> _V:
    if "verdict" in data:
        try:
            label = normalize_verdict(str(data["verdict"]))
        except AnswerParseError as exc:
            raise AnswerParseError(str(exc), missing=["verdict"], kept=_without_verdict(data, model)) from None
        return _validate(model, {**data, "verdict": label.value}, CallKind.VERDICT)
    lines = list(_VERDICT_LINE.finditer(text))
    if not lines:
        raise AnswerParseError(
            "verdict answer: no JSON 'verdict' field and no 'Verdict: ...' line",
            missing=["verdict"],
            kept=_without_verdict(data, model),
        )
    verdict = normalize_verdict(lines[-1]["label"])
    reasoning = text[: lines[-1].start()].strip()
    return model(reasoning=reasoning, verdict=verdict.value)


def parse_verdict(text: str) -> VerdictAnswer:
    data = extract_json(text)
    return _verdict(text, VerdictAnswer, data if isinstance(data, dict) else {})


NO_RELEVANT_SENTENCES = "No sentence of the excerpts bears on the claim."


def parse_paper_verdict(text: str) -> PaperVerdictAnswer:
    """As `parse_verdict`; an answer that took step 3's exit (`relevant` false) is Not Fully
    Supported, whatever verdict it wrote: nothing in the excerpts bears on the claim."""
    data = extract_json(text)
    data = data if isinstance(data, dict) else {}
    if data.get("relevant") is False:
        reasoning = str(data.get("reasoning") or "").strip() or NO_RELEVANT_SENTENCES
        data = {**data, "verdict": Verdict.NOT_FULLY_SUPPORTED.value, "reasoning": reasoning}
    return _verdict(text, PaperVerdictAnswer, data)
