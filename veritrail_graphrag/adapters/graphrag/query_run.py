"""A saved GraphRAG search run (any of the four methods): what the model was shown at each step.

`graphrag query` prints the answer and throws the rest away, so a run keeps what the DAG's query
stages are built from (`query_dag.py`):

- global: each map batch's community reports and the scored key points it returned;
- local and basic: the records of the one context window, per dataset, as GraphRAG handed them
  to `on_context` (ids, texts and the `in_context` flag);
- DRIFT: the reports the primer read and GraphRAG's action graph: the primer's answer and every
  follow-up local search (its query, the actions that proposed it, its context records, its answer).

The run is stored as one JSON file, `<dir>/query_run.json`, conventionally under
`veritrail/queries/<run_id>/` in the project beside the index it was asked against. Format version 2
added local, basic and DRIFT; version-1 files (global search only) still load.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from veritrail_graphrag.adapters.graphrag.citations import cited_ids, data_citations
from veritrail_graphrag.adapters.graphrag.layout import SETTINGS_FILES
from veritrail_graphrag.errors import AdapterError, excerpt, validation_problem
from veritrail_graphrag.files import atomic_write_text, read_json

FORMAT_NAME = "veritrail-graphrag-query-run"
FORMAT_VERSION = 2
FILE_NAME = "query_run.json"
Method = Literal["global", "local", "drift", "basic"]
METHODS: tuple[Method, ...] = ("global", "local", "drift", "basic")

Scalar = str | int | float | bool | None
Records = dict[str, list[dict[str, Scalar]]]
"""One context window: dataset name (`entities`, `relationships`, `reports`, `sources`, `claims`)
-> the rows GraphRAG built it from, each with its short `id`, its text columns and, when
GraphRAG set it, `in_context`."""


def search_method(name: str) -> Method:
    """A search method named by the user (`--method`), checked."""
    for method in METHODS:
        if name == method:
            return method
    raise AdapterError(f"unknown search method {excerpt(name)}; choose one of: {', '.join(METHODS)}")


def cited_reports(text: str) -> list[int]:
    """Community numbers cited GraphRAG-style, `[Data: Reports (2, 7, +more)]`, in order of first use."""
    return cited_ids(data_citations(text), "reports")


def _has_text(value: str) -> str:
    if not value.strip():
        raise ValueError("must contain text")
    return value


Text = Annotated[str, AfterValidator(_has_text)]


def _distinct(what: str, numbers: list[int]) -> set[int]:
    repeated = sorted(n for n, count in Counter(numbers).items() if count > 1)
    if repeated:
        raise ValueError(f"{what} used more than once: {repeated}")
    return set(numbers)


class MapAnswer(BaseModel):
    """One key point a map call returned: its text (with its own citations) and its score."""

    model_config = ConfigDict(frozen=True)

    answer: Text
    score: float = Field(ge=0)


class MapBatch(BaseModel):
    """One map call: the community reports in its context and the key points it answered."""

    model_config = ConfigDict(frozen=True)

    index: int = Field(ge=0)
    report_ids: list[int] = Field(
        description="community numbers of the batch's reports; empty only for a saved map answer scored 0 "
        "that cites none (reduce never reads it, so nothing needs tracing)"
    )
    answers: list[MapAnswer] = Field(default_factory=list)

    @model_validator(mode="after")
    def _read_answers_have_reports(self) -> MapBatch:
        if not self.report_ids and any(answer.score > 0 for answer in self.answers):
            raise ValueError("a batch whose answers reduce reads (score > 0) needs its report ids")
        return self


class DriftAction(BaseModel):
    """One node of DRIFT's action graph: the primer or a follow-up local search (answered or not)."""

    model_config = ConfigDict(frozen=True)

    id: int = Field(ge=0, description="the action's number in GraphRAG's serialized action graph")
    query: Text
    answer: str | None = Field(default=None, description="None or empty: never answered, so not read by reduce")
    score: float | None = None
    parents: list[int] = Field(default_factory=list, description="actions whose answers proposed this query")
    context: Records | None = Field(default=None, description="a follow-up's context records")

    @property
    def answered(self) -> bool:
        """What DRIFT's reduce step reads: actions with a non-empty answer."""
        return bool(self.answer and self.answer.strip())


class DriftRun(BaseModel):
    """A DRIFT search: the primer's reports and the action graph reduce answered from."""

    model_config = ConfigDict(frozen=True)

    primer_report_ids: list[int] | None = Field(
        default=None, description="community numbers of the reports the primer read; None when not recorded"
    )
    actions: list[DriftAction] = Field(min_length=1)

    @model_validator(mode="after")
    def _one_primer_and_known_parents(self) -> DriftRun:
        ids = _distinct("action id", [action.id for action in self.actions])
        unknown = sorted({p for action in self.actions for p in action.parents} - ids)
        if unknown:
            raise ValueError(f"parent action(s) not in the graph: {unknown}")
        primers = [a.id for a in self.actions if a.answered and a.context is None]
        if len(primers) != 1:
            raise ValueError(
                f"expected one primer (an answered action without context records), found actions {primers}"
            )
        orphans = [a.id for a in self.follow_ups if not a.parents]
        if orphans:
            raise ValueError(f"follow-up action(s) {orphans} name no action that proposed them")
        return self

    @property
    def primer(self) -> DriftAction:
        """The primer's answer: the one answered action that no local search produced."""
        return next(a for a in self.actions if a.answered and a.context is None)

    @property
    def follow_ups(self) -> list[DriftAction]:
        primer = self.primer.id
        return [action for action in self.actions if action.id != primer]


class QueryRun(BaseModel):
    """A search run: the question, what each model call was shown and answered, the final answer."""

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="null")

    format: Literal["veritrail-graphrag-query-run"] = FORMAT_NAME
    version: int = Field(default=FORMAT_VERSION, ge=1, le=FORMAT_VERSION)
    run_id: str = Field(min_length=1)
    query: Text
    method: Method = "global"
    community_level: int | None = None
    settings_fingerprint: str | None = Field(
        default=None, description="sha256 of the project's settings.yaml when the run was made"
    )
    created: datetime = Field(default_factory=lambda: datetime.now(UTC))
    notes: str = ""
    batches: list[MapBatch] = Field(default_factory=list, description="global: the map batches")
    not_in_reduce: list[str] = Field(
        default_factory=list,
        description="global: map answers with score > 0 that reduce left out for lack of tokens (map_answer:<b>.<n>)",
    )
    context: Records | None = Field(default=None, description="local and basic: the context window's records")
    drift: DriftRun | None = Field(default=None, description="DRIFT: the primer's reports and the action graph")
    final_answer: Text

    @model_validator(mode="after")
    def _parts_of_the_method(self) -> QueryRun:
        _distinct("batch index", [batch.index for batch in self.batches])
        parts = {
            "batches": bool(self.batches or self.not_in_reduce),
            "context": self.context is not None,
            "drift": self.drift is not None,
        }
        needed = {"global": "batches", "local": "context", "basic": "context", "drift": "drift"}[self.method]
        stray = [part for part, present in parts.items() if present and part != needed]
        if stray:
            raise ValueError(f"a {self.method} search run has no {' or '.join(stray)}")
        if needed != "batches" and not parts[needed]:
            raise ValueError(f"a {self.method} search run needs its {needed!r}")
        if self.version == 1 and self.method != "global":
            raise ValueError("format version 1 holds global search runs only")
        return self

    def save(self, directory: str | Path) -> Path:
        """Write `<directory>/query_run.json` atomically; returns the file written."""
        path = Path(directory) / FILE_NAME
        atomic_write_text(path, self.model_dump_json(indent=2) + "\n")
        return path

    @classmethod
    def load(cls, path: str | Path) -> QueryRun:
        """Read a run (any format version up to this one) from its folder or from the JSON file."""
        path = Path(path)
        if path.is_dir():
            path = path / FILE_NAME
        data = read_json(path, AdapterError)
        if isinstance(data, dict):
            if data.get("format", FORMAT_NAME) != FORMAT_NAME:
                raise AdapterError(f"format {excerpt(data.get('format'))} is not {FORMAT_NAME!r}", file=path)
            version = data.get("version", 1)
            if isinstance(version, int) and version > FORMAT_VERSION:
                raise AdapterError(
                    f"format version {version} was written by a newer veritrail (this one reads 1-{FORMAT_VERSION})",
                    file=path,
                )
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise AdapterError(validation_problem(exc), file=path) from None


def settings_fingerprint(project_root: str | Path) -> str | None:
    """sha256 of the project's settings file, so a run can be matched to the configuration that made it."""
    settings = next((Path(project_root) / n for n in SETTINGS_FILES if (Path(project_root) / n).is_file()), None)
    if settings is None:
        return None
    return "sha256:" + hashlib.sha256(settings.read_bytes()).hexdigest()
