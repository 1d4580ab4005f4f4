"""Read a `veritrail-summary-log` file into a DAG, tolerating the one defect a crash can cause.

The writer appends one complete line per record, so a crash can only leave the *last* line
incomplete: that line is skipped with a `TornLineWarning` and every earlier record is kept. An
unreadable line anywhere else means the file was damaged another way, which is an error naming
the line. Every error names the file, the line number and the record id.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, NamedTuple

import networkx as nx
from pydantic import ValidationError

from veritrail_graphrag.adapters.summaries.log_format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    LogHeader,
    MetadataRecord,
    QuestionRecord,
    TextRecord,
    derive_stage,
    parse_record,
)
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.errors import AdapterError, DagError, VeriTrailWarning, excerpt, named, validation_problem


class TornLineWarning(VeriTrailWarning):
    """The last line of a log was incomplete (the run stopped while writing it) and was skipped."""


class LogScan(NamedTuple):
    """The parsed lines of a log, before validation. `complete_bytes` is where appending resumes."""

    lines: list[tuple[int, dict[str, Any]]]
    torn_line: int | None
    complete_bytes: int
    ends_with_newline: bool


def scan_log(path: Path) -> LogScan:
    """Split the file into JSON objects with their 1-based line numbers; a bad last line is torn."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise AdapterError("no such file", file=path) from None
    parsed: list[tuple[int, dict[str, Any]]] = []
    unreadable: tuple[int, str] | None = None
    offset = 0
    complete_bytes = 0
    for number, raw in enumerate(data.split(b"\n"), start=1):
        end = offset + len(raw)
        offset = end + 1
        if not raw.strip():
            continue
        if unreadable is not None:
            raise AdapterError(
                f"unreadable record ({unreadable[1]}); only the last line of a log may be incomplete",
                file=path,
                line=unreadable[0],
            )
        value, reason = _decode(raw)
        if value is None:
            unreadable = (number, reason)
            continue
        parsed.append((number, value))
        complete_bytes = min(end + 1, len(data))
    torn_line = unreadable[0] if unreadable is not None else None
    ends_with_newline = complete_bytes == 0 or data[complete_bytes - 1 : complete_bytes] == b"\n"
    return LogScan(parsed, torn_line, complete_bytes, ends_with_newline)


def _decode(raw: bytes) -> tuple[dict[str, Any] | None, str]:
    try:
        value = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 at byte {exc.start}"
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON at column {exc.colno}: {exc.msg}"
    if not isinstance(value, dict):
        return None, f"expected a JSON object, found {type(value).__name__}"
    return value, ""


def read_header(path: Path, scan: LogScan) -> LogHeader:
    """Validate line 1; a newer version is refused rather than half understood."""
    if not scan.lines:
        raise AdapterError(f"empty log, expected a {FORMAT_NAME!r} header on line 1", file=path)
    number, raw = scan.lines[0]
    if raw.get("format") != FORMAT_NAME:
        raise AdapterError(
            f"not a {FORMAT_NAME!r} log (the header's format is {excerpt(raw.get('format'))})",
            file=path,
            line=number,
        )
    try:
        header = LogHeader.model_validate(raw)
    except ValidationError as exc:
        raise AdapterError(f"bad header: {validation_problem(exc)}", file=path, line=number) from None
    if header.version > FORMAT_VERSION:
        raise AdapterError(
            f"log version {header.version} is newer than this reader "
            f"(version {FORMAT_VERSION}); upgrade veritrail-graphrag",
            file=path,
            line=number,
        )
    return header


def read_summary_log(path: str | Path) -> DAG:
    """Read a log into a DAG: sources are `chunk` nodes, the final summary is `final_summary`.

    Stages follow the paper's section 2 unless a record gives one. `dag.metadata` holds the header's
    metadata (merged with later metadata records) under `run`, and the `question` when logged.
    """
    path = Path(path)
    scan = scan_log(path)
    if scan.torn_line is not None:
        warnings.warn(
            f"{path}, line {scan.torn_line}: incomplete last line skipped (the run probably stopped while writing it)",
            TornLineWarning,
            stacklevel=2,
        )
    header = read_header(path, scan)
    run_metadata = dict(header.metadata)
    question: tuple[int, str] | None = None
    texts: list[tuple[int, TextRecord]] = []
    for number, raw in scan.lines[1:]:
        record = _parse(path, number, raw)
        if isinstance(record, TextRecord):
            texts.append((number, record))
        elif isinstance(record, MetadataRecord):
            run_metadata.update(record.metadata)
        elif question is not None and question[1] != record.text:
            raise AdapterError(
                f"a second, different question (the first is on line {question[0]})",
                file=path,
                line=number,
            )
        else:
            question = (number, record.text)
    metadata: dict[str, Any] = {
        "source_format": FORMAT_NAME,
        "edges_from": "recorded",
        "run": run_metadata,
    }
    if header.created_at is not None:
        metadata["created_at"] = header.created_at
    if question is not None:
        metadata["question"] = question[1]
    if scan.torn_line is not None:
        metadata["skipped_torn_line"] = scan.torn_line
    return build_dag(path, texts, metadata)


def _parse(path: Path, number: int, raw: dict[str, Any]) -> TextRecord | QuestionRecord | MetadataRecord:
    who = f"record {excerpt(raw['id'])}" if isinstance(raw.get("id"), str) else "record"
    try:
        return parse_record(raw)
    except ValidationError as exc:
        raise AdapterError(f"{who}: {validation_problem(exc)}", file=path, line=number) from None
    except ValueError as exc:
        raise AdapterError(f"{who}: {exc}", file=path, line=number) from None


def build_dag(path: Path, records: list[tuple[int, TextRecord]], metadata: dict[str, Any]) -> DAG:
    """Check ids, texts, inputs and acyclicity with line numbers, then derive stages and kinds."""
    lines: dict[str, int] = {}
    table: dict[str, TextRecord] = {}
    for number, record in records:
        if not record.id.strip():
            raise AdapterError("a record has a blank id", file=path, line=number)
        if record.id in table:
            raise AdapterError(
                f"duplicate id {excerpt(record.id)} (first on line {lines[record.id]})",
                file=path,
                line=number,
                ids=[record.id],
            )
        if not record.text.strip():
            raise AdapterError(f"record {excerpt(record.id)} has empty text", file=path, line=number, ids=[record.id])
        lines[record.id] = number
        table[record.id] = record
    graph = nx.DiGraph()
    graph.add_nodes_from(table)
    for number, record in records:
        unknown = [i for i in record.inputs if i not in table]
        if unknown:
            raise AdapterError(
                f"record {excerpt(record.id)} names unknown input(s) {named(unknown)}",
                file=path,
                line=number,
                ids=[record.id, *unknown],
            )
        graph.add_edges_from((source, record.id) for source in record.inputs)
    if not nx.is_directed_acyclic_graph(graph):
        cycle = [u for u, _ in nx.find_cycle(graph)]
        steps = [f"{excerpt(i, 40)} (line {lines[i]})" for i in cycle[:3]] + (["…"] if len(cycle) > 3 else [])
        path_text = " -> ".join([*steps, steps[0]])
        raise AdapterError(f"the inputs form a cycle: {path_text}", file=path, ids=cycle)
    stages: dict[str, int] = {}
    for node_id in nx.topological_sort(graph):
        record = table[node_id]
        try:
            stages[node_id] = derive_stage([stages[i] for i in record.inputs], record.stage)
        except ValueError as exc:
            raise AdapterError(f"record {excerpt(node_id)}: {exc}", file=path, line=lines[node_id], ids=[node_id]) from None
    final = _final_summary(graph)
    nodes = [
        Node(
            id=record.id,
            text=record.text,
            stage=stages[record.id],
            kind=record.kind or _default_kind(graph, record.id, final),
            metadata=record.metadata,
        )
        for _, record in records
    ]
    try:
        return DAG.from_records(nodes, graph.edges, metadata)
    except DagError as exc:
        raise AdapterError(exc.problem, file=path, ids=exc.ids) from None


def _final_summary(graph: nx.DiGraph) -> str | None:
    """The one summary nothing else used; none when a crashed run left several loose ends."""
    sinks = [n for n in graph if graph.out_degree(n) == 0 and graph.in_degree(n) > 0]
    return sinks[0] if len(sinks) == 1 else None


def _default_kind(graph: nx.DiGraph, node_id: str, final: str | None) -> str:
    if graph.in_degree(node_id) == 0:
        return "chunk"
    return "final_summary" if node_id == final else "summary"
