"""Evidence spans `{sid, text}`: the roots of a one-step process whose terminal is the answer.

Accepted from Python as `Span` objects, dicts (`sid` or `id`, and `text`) or a `{sid: text}`
mapping; from a file as a JSON list, `{"spans": [...]}`, a `{sid: text}` object, or JSON lines.
Ids are strings (a numeric `sid` becomes "3"); an empty id or text, or a repeated id, is an
error naming the entry.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from veritrail_graphrag.errors import SpansError, excerpt, validation_problem
from veritrail_graphrag.files import read_text


class Span(BaseModel):
    model_config = ConfigDict(frozen=True)

    sid: str = Field(min_length=1)
    text: str

    @field_validator("sid", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return str(value).strip() if isinstance(value, int | str) and not isinstance(value, bool) else value

    @field_validator("text")
    @classmethod
    def _has_text(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the span's text is empty")
        return value


def _entry(item: Any) -> Any:
    if isinstance(item, Mapping) and "sid" not in item and "id" in item:
        return {**item, "sid": item["id"]}
    return item


def make_spans(items: Iterable[Any] | Mapping[str, str], where: str = "spans") -> list[Span]:
    """Validated spans in the given order; `where` names the source in errors."""
    if isinstance(items, Mapping):
        items = [{"sid": sid, "text": text} for sid, text in items.items()]
    spans: list[Span] = []
    seen: set[str] = set()
    for position, item in enumerate(items):
        try:
            span = item if isinstance(item, Span) else Span.model_validate(_entry(item))
        except ValidationError as exc:
            name = item.get("sid", item.get("id")) if isinstance(item, Mapping) else None
            label = f"span {excerpt(name)} (entry {position})" if name is not None else f"entry {position}"
            raise SpansError(f"{where}: {label}: {validation_problem(exc)}") from None
        if span.sid in seen:
            raise SpansError(f"{where}: span id {excerpt(span.sid)} is used more than once (entry {position})")
        seen.add(span.sid)
        spans.append(span)
    return spans


def load_spans(path: Path) -> list[Span]:
    """Spans from a JSON or JSON-lines file; errors name the file, the line or the entry."""
    raw = read_text(path, SpansError)
    try:
        data: Any = json.loads(raw)
    except json.JSONDecodeError:
        data = []
        for number, line in enumerate(raw.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                data.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise SpansError(f"{path}: line {number} is neither JSON nor JSON lines ({exc.msg})") from None
    if isinstance(data, Mapping) and isinstance(data.get("spans"), list):
        data = data["spans"]
    elif isinstance(data, Mapping) and all(isinstance(v, str) for v in data.values()):
        data = dict(data)
    elif not isinstance(data, list):
        raise SpansError(f"{path}: expected a list of {{sid, text}}, {{'spans': [...]}} or {{sid: text}}")
    spans = make_spans(data, str(path))
    if not spans:
        raise SpansError(f"{path}: no spans")
    return spans
