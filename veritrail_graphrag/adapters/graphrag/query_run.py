"""A saved GraphRAG global-search run, and the stages it adds on top of the index (5 and 6).

Global search maps the question over batches of community reports: each batch's model call
returns key points, each with a 0-100 helpfulness score. The reduce call writes the final answer
from the points that scored above 0. So a map answer's inputs are the reports of its batch, and
the final answer's inputs are the map answers with score > 0: nothing else.

The run is stored as one JSON file, `<dir>/query_run.json`, conventionally under
`output/veritrail/queries/<run_id>/` next to the index it was asked against.
"""

from __future__ import annotations

import hashlib
from collections import Counter, deque
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from veritrail_graphrag.adapters.graphrag import ids
from veritrail_graphrag.adapters.graphrag.citations import cited_ids, data_citations
from veritrail_graphrag.adapters.graphrag.layout import SETTINGS_FILES
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.errors import AdapterError
from veritrail_graphrag.files import atomic_write_text, read_json

FORMAT_NAME = "veritrail-graphrag-query-run"
FORMAT_VERSION = 1
FILE_NAME = "query_run.json"
MAP_STAGE = 5
REDUCE_STAGE = 6


def cited_reports(text: str) -> list[int]:
    """Community numbers cited GraphRAG-style, `[Data: Reports (2, 7, +more)]`, in order of first use."""
    return cited_ids(data_citations(text), "reports")


def _has_text(value: str) -> str:
    if not value.strip():
        raise ValueError("must contain text")
    return value


Text = Annotated[str, AfterValidator(_has_text)]


class MapAnswer(BaseModel):
    """One key point a map call returned: its text (with its own citations) and its score."""

    model_config = ConfigDict(frozen=True)

    answer: Text
    score: float = Field(ge=0)


class MapBatch(BaseModel):
    """One map call: the community reports in its context and the key points it answered."""

    model_config = ConfigDict(frozen=True)

    index: int = Field(ge=0)
    report_ids: list[int] = Field(min_length=1, description="community numbers of the batch's reports")
    answers: list[MapAnswer] = Field(default_factory=list)


class QueryRun(BaseModel):
    """A global-search run: the question, every map batch with its answers, the final answer."""

    model_config = ConfigDict(frozen=True)

    format: Literal["veritrail-graphrag-query-run"] = FORMAT_NAME
    version: int = FORMAT_VERSION
    run_id: str = Field(min_length=1)
    query: Text
    method: Literal["global"] = "global"
    community_level: int | None = None
    settings_fingerprint: str | None = Field(
        default=None, description="sha256 of the project's settings.yaml when the run was made"
    )
    created: datetime = Field(default_factory=lambda: datetime.now(UTC))
    notes: str = ""
    batches: list[MapBatch]
    not_in_reduce: list[str] = Field(
        default_factory=list,
        description="map answers with score > 0 that reduce left out for lack of tokens (map_answer:<batch>.<n>)",
    )
    final_answer: Text

    @model_validator(mode="after")
    def _distinct_batches(self) -> QueryRun:
        seen = [batch.index for batch in self.batches]
        repeated = sorted({i for i in seen if seen.count(i) > 1})
        if repeated:
            raise ValueError(f"batch index used more than once: {repeated}")
        return self

    def save(self, directory: str | Path) -> Path:
        """Write `<directory>/query_run.json` atomically; returns the file written."""
        path = Path(directory) / FILE_NAME
        atomic_write_text(path, self.model_dump_json(indent=2) + "\n")
        return path

    @classmethod
    def load(cls, path: str | Path) -> QueryRun:
        """Read a run from its folder or from the JSON file itself."""
        path = Path(path)
        if path.is_dir():
            path = path / FILE_NAME
        data = read_json(path, AdapterError)
        if isinstance(data, dict) and data.get("format", FORMAT_NAME) != FORMAT_NAME:
            raise AdapterError(f"format {data.get('format')!r} is not {FORMAT_NAME!r}", file=path)
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'run'}: {e['msg']}" for e in exc.errors())
            raise AdapterError(f"{problems}", file=path) from None


def settings_fingerprint(project_root: str | Path) -> str | None:
    """sha256 of the project's settings file, so a run can be matched to the configuration that made it."""
    settings = next((Path(project_root) / n for n in SETTINGS_FILES if (Path(project_root) / n).is_file()), None)
    if settings is None:
        return None
    return "sha256:" + hashlib.sha256(settings.read_bytes()).hexdigest()


def ancestry(index: DAG, starts: set[str]) -> set[str]:
    """Every node the `starts` descend from, themselves included."""
    seen = set(starts)
    queue = deque(starts)
    graph = index.graph
    while queue:
        for parent in graph.predecessors(queue.popleft()):
            if parent not in seen:
                seen.add(parent)
                queue.append(parent)
    return seen


def _map_answers(index: DAG, run: QueryRun) -> tuple[list[Node], list[tuple[str, str]]]:
    """Stage 5: one node per map answer, fed by every report of its batch."""
    nodes: list[Node] = []
    edges: list[tuple[str, str]] = []
    for batch in run.batches:
        reports = [ids.report_id(community) for community in batch.report_ids]
        unknown = [r for r in reports if r not in index]
        if unknown:
            raise AdapterError(
                f"query run {run.run_id!r}, batch {batch.index}: report(s) not in the index: {', '.join(unknown)}"
            )
        for position, answer in enumerate(batch.answers):
            node_id = ids.map_answer_id(batch.index, position)
            metadata: dict[str, Any] = {
                "batch": batch.index,
                "score": answer.score,
                "report_ids": list(batch.report_ids),
                "cited_reports": cited_reports(answer.answer),
            }
            nodes.append(Node(id=node_id, text=answer.answer, stage=MAP_STAGE, kind="map_answer", metadata=metadata))
            edges.extend((report, node_id) for report in reports)
    return nodes, edges


def add_query_run(index: DAG, run: QueryRun, *, keep_unused: bool = False) -> DAG:
    """The index DAG plus stage 5 (map answers) and 6 (the final answer) of `run`.

    By default only what the final answer descends from is kept, so that the final answer is the
    DAG's one terminal; `keep_unused=True` keeps the whole index and the answers reduce ignored.
    """
    if ids.FINAL_ANSWER in index:
        raise AdapterError(f"query run {run.run_id!r}: the DAG already holds a final answer")
    answers, edges = _map_answers(index, run)
    reduced = {n.id for n in answers if n.metadata["score"] > 0 and n.id not in run.not_in_reduce}
    if not reduced:
        raise AdapterError(
            f"query run {run.run_id!r}: no map answer has a score above 0, so reduce had no input "
            "and the final answer cannot be traced"
        )
    final = Node(
        id=ids.FINAL_ANSWER,
        text=run.final_answer,
        stage=REDUCE_STAGE,
        kind="final_answer",
        metadata={"run_id": run.run_id, "cited_reports": cited_reports(run.final_answer)},
    )
    unused = sorted(n.id for n in answers if n.id not in reduced)
    if keep_unused:
        kept = {n.id for n in index}
    else:
        kept = ancestry(index, {u for u, v in edges if v in reduced})
        answers = [n for n in answers if n.id in reduced]
        edges = [(u, v) for u, v in edges if v in reduced]
    nodes = [n for n in index if n.id in kept] + answers + [final]
    edges = (
        [(u, v) for u, v in index.edges if u in kept and v in kept]
        + edges
        + [(n.id, final.id) for n in answers if n.id in reduced]
    )
    metadata = {
        **index.metadata,
        "question": run.query,
        "query_run": {
            "run_id": run.run_id,
            "method": run.method,
            "community_level": run.community_level,
            "created": run.created.isoformat(),
            "settings_fingerprint": run.settings_fingerprint,
            "notes": run.notes,
        },
        "map_answers": len(reduced) + len(unused),
        "map_answers_reduced": len(reduced),
        "map_answers_unused": unused,
        "index_nodes_dropped": len(index) - len(kept),
        "counts": dict(sorted(Counter(n.kind for n in nodes).items())),
        "stages": {str(k): v for k, v in sorted(Counter(n.stage for n in nodes).items())},
    }
    return DAG.from_records(nodes, edges, metadata)
