"""The `veritrail-summary-log` JSONL format (version 1): what a summarizer appends as it runs.

A summarizer rarely keeps its intermediate summaries, and without them there is no DAG to trace a
claim through. The format is therefore append-only and line-oriented: every record is one JSON
object on one line, so a run that crashes half way leaves every completed record readable.

    {"format": "veritrail-summary-log", "version": 1, "created_at": "...", "metadata": {...}}
    {"type": "text", "id": "chunk-1", "text": "...", "inputs": []}
    {"type": "text", "id": "level1-1", "text": "...", "inputs": ["chunk-1", "chunk-2"]}
    {"type": "question", "text": "..."}
    {"type": "metadata", "metadata": {"model": "..."}}

Line 1 is the header. `type` may be left out of text records. Unknown fields are refused (a typo
such as `input` would otherwise silently turn a summary into a source).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from veritrail_graphrag.errors import excerpt

FORMAT_NAME = "veritrail-summary-log"
FORMAT_VERSION = 1
SOURCE_STAGE = 1


class LogHeader(BaseModel):
    """Line 1. `version` lets a reader refuse a file written by a newer writer."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["veritrail-summary-log"]
    version: int = Field(ge=1)
    created_at: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class TextRecord(BaseModel):
    """One text of the run. No `inputs` means a source chunk (a root of the DAG)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["text"] = "text"
    id: str = Field(min_length=1)
    text: str
    inputs: list[str] = Field(default_factory=list)
    stage: int | None = Field(default=None, ge=0)
    kind: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class QuestionRecord(BaseModel):
    """The question a query-focused summary answers: context for claim extraction, not a node."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["question"]
    text: str = Field(min_length=1)


class MetadataRecord(BaseModel):
    """Run facts learnt after the header was written (model, cost...); merged in file order."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["metadata"]
    metadata: dict[str, Any]


_RECORD_TYPES: dict[str, type[TextRecord | QuestionRecord | MetadataRecord]] = {
    "text": TextRecord,
    "question": QuestionRecord,
    "metadata": MetadataRecord,
}


def parse_record(raw: dict[str, Any]) -> TextRecord | QuestionRecord | MetadataRecord:
    """Validate one non-header line; text records may omit `type`.

    Raises pydantic's ValidationError, or ValueError for an unknown `type`.
    """
    kind = raw.get("type", "text")
    model = _RECORD_TYPES.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise ValueError(f"unknown record type {excerpt(kind)} (expected one of {', '.join(_RECORD_TYPES)})")
    return model.model_validate(raw)


def derive_stage(input_stages: Sequence[int], given: int | None) -> int:
    """The paper's section 2: sources are stage 1, a summary is 1 + its largest input stage.

    A given stage may be lower than that (an input used as context at the same level, as in
    BooookScore's merges) but never below an input's stage; ValueError names the bound.
    """
    if given is None:
        return SOURCE_STAGE if not input_stages else 1 + max(input_stages)
    if input_stages and given < max(input_stages):
        raise ValueError(f"stage {given} is below the stage of an input ({max(input_stages)})")
    return given
