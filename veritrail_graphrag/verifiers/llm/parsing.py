"""Reading answers: strict JSON when the endpoint enforced a schema, a tolerant reader otherwise.

Models without structured output wrap JSON in code fences, add prose around it, leave trailing
commas or use single quotes; some answer "Verdict: Fully Supported" in plain text. We recover
all of that, but never guess: an answer whose decision cannot be read raises `AnswerParseError`
and the client asks again.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from veritrail_graphrag.llm.completion import AnswerParseError
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.models import Verdict
from veritrail_graphrag.verifiers.llm.schemas import (
    ClaimExtractionAnswer,
    DecompositionAnswer,
    EvidenceAnswer,
    VerdictAnswer,
)

_A = TypeVar("_A", bound=BaseModel)
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_VERDICT_LINE = re.compile(
    r"^[\s>*#_-]*(?:final\s+)?verdict\s*[:=\-]\s*[*_\"'`]*\s*(?P<label>[A-Za-z _-]+?)\s*[*_\"'`.]*\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_FIELD_LINE = re.compile(
    r"^[\s>*#_-]*(?P<key>selected|context|summary)\s*(?:sentences|ids)?\s*[:=]\s*(?P<value>.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_VERDICTS = {v.value.lower(): v for v in Verdict}


def _json_literals_to_python(text: str) -> str:
    """Turn true/false/null into Python names outside string literals, for `ast.literal_eval`."""
    out: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(text):
        char = text[i]
        if quote:
            out.append(char)
            if char == "\\" and i + 1 < len(text):
                out.append(text[i + 1])
                i += 1
            elif char == quote:
                quote = None
        elif char in "\"'":
            quote = char
            out.append(char)
        else:
            word = re.match(r"(true|false|null)\b", text[i:])
            if word and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
                out.append({"true": "True", "false": "False", "null": "None"}[word.group(1)])
                i += len(word.group(1))
                continue
            out.append(char)
        i += 1
    return "".join(out)


def _balanced(text: str, start: int) -> str | None:
    """The bracketed span opening at `start`, honouring string literals; None if never closed."""
    opening = text[start]
    closing = "}" if opening == "{" else "]"
    depth = 0
    quote: str | None = None
    i = start
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
        i += 1
    return None


def _loads(candidate: str) -> Any:
    """`strict=False` takes raw line breaks and tabs inside strings: small models write them, even
    under llama.cpp's grammar for the schema (SmolLM2-135M did in 2 of 4 Evidence Selection answers)."""
    try:
        return json.loads(candidate, strict=False)
    except json.JSONDecodeError:
        pass
    cleaned = _TRAILING_COMMA.sub(r"\1", candidate)
    try:
        return json.loads(cleaned, strict=False)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(_json_literals_to_python(candidate))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def extract_json(text: str, *, allow_list: bool = False) -> Any:
    """The first JSON object (or list) in the text: fenced blocks first, then the raw text."""
    sources = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    openers = "{[" if allow_list else "{"
    for source in sources:
        for start, char in enumerate(source):
            if char not in openers:
                continue
            span = _balanced(source, start)
            if span is None:
                continue
            value = _loads(span)
            if isinstance(value, dict) or (allow_list and isinstance(value, list)):
                return value
    return None


def _validate(model: type[_A], data: dict[str, Any], kind: CallKind) -> _A:
    defaults = {name: "" for name, f in model.model_fields.items() if f.annotation is str}
    try:
        return model.model_validate({**defaults, **data})
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(map(str, problem["loc"]))
        raise AnswerParseError(f"{kind.label} answer: {where}: {problem['msg']}") from None


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
    data = extract_json(text)
    if not isinstance(data, dict):
        raise AnswerParseError("claim extraction answer: no JSON object")
    if "claims" not in data:
        raise AnswerParseError("claim extraction answer: no 'claims' list")
    data.setdefault("has_verifiable_content", bool(data["claims"]))
    data.setdefault("can_be_disambiguated", bool(data["claims"]))
    answer = _validate(ClaimExtractionAnswer, data, CallKind.CLAIM_EXTRACTION)
    if not (answer.has_verifiable_content and answer.can_be_disambiguated):
        return []
    return list(dict.fromkeys(c.strip() for c in answer.claims if c.strip()))


def parse_evidence(text: str) -> EvidenceAnswer:
    """Labels stay as the model wrote them; `SentenceLabels.resolve` maps and filters them."""
    data = extract_json(text)
    if not isinstance(data, dict):
        data = _plain_fields(text)
    if "selected" not in data:
        raise AnswerParseError("evidence selection answer: no 'selected' list")
    data = {**data, "selected": _as_list(data.get("selected")), "context": _as_list(data.get("context"))}
    if isinstance(data.get("sub_claims"), str):
        data["sub_claims"] = [data["sub_claims"]]
    data.setdefault("sub_claims", [])
    answer = _validate(EvidenceAnswer, data, CallKind.EVIDENCE_SELECTION)
    if answer.selected and not answer.summary.strip():
        raise AnswerParseError("evidence selection answer: sentences selected but no summary")
    return answer


def _plain_fields(text: str) -> dict[str, Any]:
    """'Selected: S1, S3-S5' / 'Context: ...' / 'Summary: ...' lines of a plain-text answer."""
    fields: dict[str, Any] = {}
    for match in _FIELD_LINE.finditer(text):
        fields.setdefault(match["key"].lower(), match["value"].strip())
    return fields


def parse_verdict(text: str) -> VerdictAnswer:
    data = extract_json(text)
    if isinstance(data, dict) and "verdict" in data:
        data = {**data, "verdict": normalize_verdict(str(data["verdict"])).value}
        return _validate(VerdictAnswer, data, CallKind.VERDICT)
    lines = list(_VERDICT_LINE.finditer(text))
    if not lines:
        raise AnswerParseError("verdict answer: no JSON 'verdict' field and no 'Verdict: ...' line")
    verdict = normalize_verdict(lines[-1]["label"])
    reasoning = text[: lines[-1].start()].strip()
    return VerdictAnswer(
        interpretation="",
        relevant_evidence="",
        conflicting_evidence="",
        debatable_evidence="",
        clear_evidence="",
        reasoning=reasoning,
        verdict=verdict.value,
    )
