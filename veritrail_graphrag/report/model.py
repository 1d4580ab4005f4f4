"""The audit report: a pydantic model, and report.json (version 2) written and read.

Computing lives in the engine; this module only counts, writes and reads. Renderings are
`markdown.py`, `html.py`, `tables.py` (parquet) and the terminal's `cli/console.py`.

report.json version 2 stores each text once: the claims' records hold ids (`records.py`),
nodes (stage, kind, GraphRAG ids) are a table of columns, and the sentence texts are a table in the
file, or, when an audit writes evidence.parquet beside it, that file's `text` column (the report
names it in `sentence_texts`). A root's full text is not copied unless the audit ran with
`--full-trail`: the run's artifacts hold it, and `dag_fingerprint` tells a reader whether a DAG
re-read from them is the one the audit read. The file is written compactly, claim by claim, into a
temp file renamed over the report.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, Field, TypeAdapter, ValidationError
from pydantic_core import to_json

from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.errors import DagError, ReportError, excerpt, field_path, validation_problem
from veritrail_graphrag.files import read_json, write_together
from veritrail_graphrag.llm.usage import UsageReport
from veritrail_graphrag.models import Claim, SupportGap, TrailConfig, Verdict
from veritrail_graphrag.report.citation_accuracy import CitationSummary, summarize_citations
from veritrail_graphrag.report.languages import LanguageSummary
from veritrail_graphrag.report.records import (
    ClaimRecord,
    NodeInfo,
    TableTexts,
    from_record,
    full_sentence_id,
    node_columns,
    nodes_from_columns,
    sentence_ref,
    to_record,
)

REPORT_VERSION = 2
_COLUMNS = TypeAdapter(dict[str, list[Any]])
_RECORDS = TypeAdapter(list[ClaimRecord])
_SENTENCES = TypeAdapter(dict[str, str])
_T = TypeVar("_T")


class ClaimFailure(BaseModel):
    """A claim the verifier could not judge (e.g. no readable model answer after retries).

    It has no verdict: nothing is guessed. Re-running the audit retries only such claims."""

    claim: Claim
    terminal: str
    error: str


NOT_TRACED = "not traced to the source"
"""How reports name an Inconclusive claim that no source text yielded evidence for (`ClaimResult.not_traced`)."""

MIN_CLAIM_WORDS = 3
HEADING_REASON = "a heading"
TABLE_REASON = "a table row"
SHORT_REASON = f"too short to check (fewer than {MIN_CLAIM_WORDS} words)"


class SkippedSentence(BaseModel):
    """A sentence of an output that no claim was made of, and why: nothing leaves an audit unsaid."""

    terminal: str
    sentence: int = Field(description="its index among the output's sentences")
    text: str
    reason: str = Field(description="heading, table row, or too short to check (fewer than 3 words)")


class Summary(BaseModel):
    claims: int
    failed: int = Field(default=0, description="claims that could not be verified (see `failed`)")
    verdicts: dict[str, int]
    not_traced: int = Field(
        default=0,
        description=f"Inconclusive claims {NOT_TRACED} (counted among the Inconclusive): no source text yielded "
        "evidence; the verifier keeps them Inconclusive where the paper's rule ends them Not Fully Supported",
    )
    error_stages: dict[int, int] = Field(
        description="Not Fully Supported claims naming each stage, by stage (the numbers claims' error_stages hold; "
        "JSON writes them as strings)"
    )
    unlocalized: int = Field(description="Not Fully Supported claims for which no stage can be named")
    nodes_in_dag: int
    nodes_read: int = Field(description="distinct nodes read over all claims")
    mean_nodes_read_per_claim: float
    citations: CitationSummary | None = Field(
        default=None, description="citation accuracy, when the output cites its inputs (GraphRAG [Data: ...])"
    )
    languages: LanguageSummary | None = Field(
        default=None, description="languages of the claims and of the nodes read; claims not checked for language"
    )


class AuditReport(BaseModel):
    report_version: int = REPORT_VERSION
    tool: str = "veritrail-graphrag"
    tool_version: str
    created: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    source: str
    terminals: list[str]
    verifier: str
    verifier_settings: dict[str, Any] = Field(default_factory=dict, description="what decides its answers")
    verifier_note: str = Field(default="", description="what the verifier's verdicts are worth, in its own words")
    config: TrailConfig
    dag_metadata: dict[str, Any] = Field(default_factory=dict)
    summary: Summary
    resumed_claims: int = Field(default=0, description="claims taken from an interrupted run's checkpoint")
    usage: UsageReport | None = Field(
        default=None, description="model calls, tokens and cost: total, per claim and per call kind"
    )
    dag_fingerprint: str | None = Field(
        default=None, description="the DAG the audit read (DAG.fingerprint): re-read from the run, it gives root texts"
    )
    full_trail: bool = Field(default=False, description="--full-trail: node texts in `nodes`, and each prompt's record")
    nodes: dict[str, NodeInfo] = Field(
        default_factory=dict,
        description="every node the results name; in the file a table of columns, claims naming rows by position",
    )
    results: list[ClaimResult]
    failed: list[ClaimFailure] = Field(default_factory=list)
    skipped: list[SkippedSentence] = Field(
        default_factory=list, description="sentences of the outputs that no claim was made of, and why"
    )

    def __repr__(self) -> str:
        """Short: the full repr of an index audit's report is hundreds of MB (a REPL, a log line, or
        asyncio formatting a task, see `event_loop.py`, would build it)."""
        return f"AuditReport(source={self.source!r}, claims={len(self.results)}, failed={len(self.failed)})"

    def save(self, path: str | os.PathLike[str]) -> None:
        """report.json version 2 with its sentence table, atomically (`outputs.write_outputs` writes
        it with the files beside it, and the sentence texts in evidence.parquet)."""
        write_together([(Path(path), self.write_json)])

    def write_json(self, out: BinaryIO, *, html_safe: bool = False, texts_in: str | None = None) -> None:
        """Stream the version 2 JSON: one claim record at a time, then the tables they refer to.

        `texts_in`: the file beside it that holds the sentence texts (evidence.parquet, written in
        the same step); the sentence table is then left out, its name written in its place. They
        are most of a report's bytes, and a report folder holds each text once.
        `html_safe` writes every `<` as `\\u003c` (same JSON), for a `<script>` element."""
        escape: Callable[[bytes], bytes] = (lambda b: b.replace(b"<", b"\\u003c")) if html_safe else (lambda b: b)
        row_of = {node_id: row for row, node_id in enumerate(self.nodes)}
        head = self.model_dump_json(exclude={"results", "nodes", "report_version"}).encode()
        out.write(escape(b'{"report_version":%d,' % REPORT_VERSION + head[1:-1] + b',"results":['))
        sentences: dict[str, str] = {}
        for number, result in enumerate(self.results):
            if texts_in is None:
                for it in result.iterations:
                    sentences.update((sentence_ref(s, row_of), s.text) for s in (*it.evidence, *it.context))
            out.write(
                (b"," if number else b"") + escape(to_record(result, batches=self.full_trail, number=row_of).dump())
            )
        tables = (
            b'],"sentences":' + to_json(sentences) if texts_in is None else b'],"sentence_texts":' + to_json(texts_in)
        )
        out.write(escape(tables + b',"nodes":' + to_json(node_columns(self.nodes)) + b"}"))

    @classmethod
    def read_stored(cls, path: str | os.PathLike[str]) -> tuple[AuditReport, list[ClaimRecord]]:
        """A report file (version 1 or 2) checked as `load` checks it, its claims left as stored:
        the report without `results`, and one record per claim (ids, no texts). For readers that
        count verdicts and stages (`compare`) and need not rebuild every sentence of an index audit."""
        report, records, _ = cls._read(Path(path))
        return report, records

    @classmethod
    def load(cls, path: str | os.PathLike[str], dag: DAG | None = None) -> AuditReport:
        """A report file (version 1 or 2) as full objects, texts resolved. Sentence texts come from
        the file, or from the evidence.parquet it names, or from `dag`; a root's full text from the
        file (--full-trail) or from `dag`, which must be the DAG the audit read; without either it
        is empty (its selected sentences are in the evidence)."""
        path = Path(path)
        report, records, texts = cls._read(path)
        if texts is None:  # version 1 holds full objects
            return report
        if dag is not None and report.dag_fingerprint not in (None, dag.fingerprint()):
            raise ReportError("the DAG given is not the one this audit read (its fingerprint differs)", file=path)
        rows = list(report.nodes)
        sentences = {full_sentence_id(ref, rows): text for ref, text in texts.stored.items()}
        if texts.beside is not None:
            sentences.update(_texts_beside(path, texts.beside, dag is not None))
        source = TableTexts(sentences, report.nodes, dag)
        for number, record in enumerate(records):
            try:
                report.results.append(from_record(record, source))
            except (KeyError, IndexError, ValueError, DagError) as exc:
                missing = excerpt(exc.args[0]) if isinstance(exc, KeyError) and exc.args else exc
                raise ReportError(
                    f"results[{number}] (claim {excerpt(record.claim.id)}) names a text the report does not hold: "
                    f"{missing}",
                    file=path,
                    row=number,
                    ids=[record.claim.id],
                ) from None
        return report

    @classmethod
    def _read(cls, path: Path) -> tuple[AuditReport, list[ClaimRecord], _StoredTexts | None]:
        """The file validated: version 1 as full objects (no stored texts), version 2 as the report
        without results, its claim records and where its sentence texts are."""
        data = read_json(path, ReportError)
        if not isinstance(data, dict) or data.get("tool") != "veritrail-graphrag":
            raise ReportError("not a veritrail report", file=path)
        version = data.get("report_version")
        if version not in (1, REPORT_VERSION):
            raise ReportError(f"report version {excerpt(version)} is not 1 or {REPORT_VERSION}", file=path)
        try:
            if version == 1:
                report = cls.model_validate(data)
                return report, [to_record(r) for r in report.results], None
            records = _validated(_RECORDS, data.pop("results", []), "results", path)
            columns = _validated(_COLUMNS, data.pop("nodes", {}), "nodes", path)
            nodes = nodes_from_columns(columns)
            stored = _validated(_SENTENCES, data.pop("sentences", {}), "sentences", path)
            beside = data.pop("sentence_texts", None)
            report = cls.model_validate({**data, "results": [], "nodes": nodes})
        except ValidationError as exc:
            raise ReportError(_first_problem(exc), file=path) from None
        except ValueError as exc:
            raise ReportError(str(exc), file=path) from None
        return report, records, _StoredTexts(stored, beside)


@dataclass(frozen=True)
class _StoredTexts:
    """A version 2 file's sentence texts: its own table, and the file beside it that holds the rest."""

    stored: dict[str, str]
    beside: Any


def _texts_beside(path: Path, name: Any, have_dag: bool) -> dict[str, str]:
    """Sentence texts by id from the evidence.parquet a report names; with the DAG at hand a
    missing file is no loss (its texts come from the DAG)."""
    if not isinstance(name, str) or Path(name).name != name:
        raise ReportError(f"sentence_texts must name a file beside the report, not {name!r}", file=path)
    try:
        table = pq.read_table(path.parent / name, columns=["sentence_id", "text"])
    except (OSError, pa.ArrowException) as exc:
        if have_dag:
            return {}
        raise ReportError(
            f"its sentence texts are in {name} beside it, which cannot be read ({exc}); "
            "give the DAG the audit read (dag=...) to take them from it",
            file=path,
        ) from None
    return dict(zip(table.column("sentence_id").to_pylist(), table.column("text").to_pylist(), strict=True))


def _first_problem(exc: ValidationError, table: str = "") -> str:
    loc = exc.errors()[0]["loc"]
    return validation_problem(exc, field_path((table, *loc)) if table else None)


def _validated(adapter: TypeAdapter[_T], value: Any, table: str, path: Path) -> _T:
    """One table of the file, or a `ReportError` naming the table, row and field."""
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        raise ReportError(_first_problem(exc, table), file=path) from None


def summarize(
    results: list[ClaimResult], nodes_in_dag: int, failed: int = 0, languages: LanguageSummary | None = None
) -> Summary:
    """Counts over the results; citation accuracy when the results carry citations; `languages`
    as `report.languages.summarize_languages` counts them (it needs the DAG)."""
    verdicts = Counter(r.verdict.value for r in results)
    stages: Counter[int] = Counter()
    unlocalized = 0
    for result in results:
        if result.verdict is Verdict.NOT_FULLY_SUPPORTED:
            if result.error_stages is None:
                unlocalized += 1
            else:
                stages.update(result.error_stages)
    read = {n for r in results for it in r.iterations for n in it.checked}
    return Summary(
        claims=len(results) + failed,
        failed=failed,
        verdicts={v.value: verdicts.get(v.value, 0) for v in Verdict},
        not_traced=sum(r.not_traced for r in results),
        error_stages=dict(sorted(stages.items())),
        unlocalized=unlocalized,
        nodes_in_dag=nodes_in_dag,
        nodes_read=len(read),
        mean_nodes_read_per_claim=round(sum(r.nodes_read for r in results) / len(results), 2) if results else 0.0,
        citations=summarize_citations(results),
        languages=languages,
    )


_FLAGGED_ORDER = {Verdict.NOT_FULLY_SUPPORTED: 0, Verdict.INCONCLUSIVE: 1, Verdict.FULLY_SUPPORTED: 2}


def flagged_first(results: list[ClaimResult]) -> list[ClaimResult]:
    """Not Fully Supported, then Inconclusive, then Fully Supported, each in claim order: the
    order in which capped listings (report.md, the terminal) show claims."""
    return sorted(results, key=lambda r: _FLAGGED_ORDER[r.verdict])


def verdict_text(result: ClaimResult) -> str:
    """The verdict as reports write it: an Inconclusive claim not traced to the source says so."""
    return f"{result.verdict.value}, {NOT_TRACED}" if result.not_traced else result.verdict.value


def count_note(summary: Summary, verdict: str) -> str:
    """What reports add to a verdict's count: ` (1044 not traced to the source)` beside the
    Inconclusive, when some were not traced."""
    if verdict != Verdict.INCONCLUSIVE.value or not summary.not_traced:
        return ""
    return f" ({summary.not_traced} {NOT_TRACED})"


def unsupported_words(result: ClaimResult) -> list[SupportGap]:
    """The claim's words the verifier found no support for in its last Not Fully Supported verdict
    (the claim's own gaps are cleared when support found higher up led nowhere)."""
    judged = [it for it in result.iterations if it.verdict is Verdict.NOT_FULLY_SUPPORTED]
    return result.gaps or (judged[-1].gaps if judged else [])


def stages_text(result: ClaimResult) -> str:
    """The error stages as written in reports: empty unless Not Fully Supported."""
    if result.verdict is not Verdict.NOT_FULLY_SUPPORTED:
        return ""
    if result.error_stages is None:
        return "unknown"
    return ", ".join(map(str, result.error_stages))
