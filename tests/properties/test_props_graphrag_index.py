"""GraphRAG indexes of every generation and folder shape, their tables mutated: what `audit-index`
and `audit` read (`graphrag_index_target`, `graphrag_query_target`) is a target or one short
typed line naming the table, never a crash.

Mutations are those of hand edits, other tools and other GraphRAG versions: a column dropped,
renamed (to an unknown name or to another column's), duplicated, retyped (text, integers, floats,
lists where scalars belong and scalars where lists do, booleans, structs, bytes, all nulls),
values nulled or emptied, huge or odd-unicode texts, rows repeated or removed, an index stored
with the table, a table missing, swapped for another, or written beside them.
"""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fuzz import HUGE_TEXT, ODD_TEXTS, outcome, reader_settings, write
from hypothesis import given
from hypothesis import strategies as st
from index_seeds import SMALL_WORLD, STRAY_TABLES, Frame, Index, indexes, place, query_run, tables_of
from pydantic_core import to_json

from veritrail_graphrag.adapters.graphrag import read_index
from veritrail_graphrag.adapters.graphrag.layout import run_dir
from veritrail_graphrag.audit.targets import AuditTarget, graphrag_index_target, graphrag_query_target
from veritrail_graphrag.errors import VeriTrailError

RETYPES = ("text", "integer", "float", "list", "unlist", "bool", "struct", "bytes", "null", "nested")


def _retyped(values: list[Any], kind: str) -> list[Any]:
    def one(value: Any) -> Any:
        if value is None:
            return None
        if kind == "text":
            return ",".join(map(str, value)) if isinstance(value, list) else str(value)
        if kind == "integer":
            return len(value) if isinstance(value, list | str) else int(value) if isinstance(value, int | float) else 1
        if kind == "float":
            return float(len(value)) if isinstance(value, list | str) else float(value) + 0.5
        if kind == "list":
            return value if isinstance(value, list) else [value]
        if kind == "unlist":
            return (value[0] if value else None) if isinstance(value, list) else value
        if kind == "bool":
            return bool(value)
        if kind == "struct":
            return {"value": str(value)}
        if kind == "bytes":
            return str(value).encode()
        return [[value]]

    return [None] * len(values) if kind == "null" else [one(v) for v in values]


def _cell(value: Any, kind: str) -> Any:
    """A value of the same shape as `value`, nulled, emptied, made huge or odd."""
    if kind == "null":
        return None
    if isinstance(value, list):
        return [] if kind == "empty" else [HUGE_TEXT if kind == "huge" else ODD_TEXTS[len(value) % len(ODD_TEXTS)]]
    if isinstance(value, str):
        return "" if kind == "empty" else HUGE_TEXT if kind == "huge" else ODD_TEXTS[len(value) % len(ODD_TEXTS)]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return {"empty": 0, "huge": 2**62, "odd": -1}[kind]
    return value


COLUMN_EDITS = ("drop", "rename", "rename_to_other", "duplicate", "retype", "cells", "cells", "rows")


@st.composite
def mutated_frame(draw: st.DrawFn, frame: Frame) -> Frame:
    frame = copy.deepcopy(frame)
    if not frame.columns:
        return frame
    at = draw(st.integers(0, len(frame.columns) - 1))
    name, values = frame.columns[at]
    edit = draw(st.sampled_from(COLUMN_EDITS))
    if edit == "drop":
        del frame.columns[at]
    elif edit == "rename":
        frame.columns[at] = (draw(st.sampled_from(["", "Title", "title ", "identifier", HUGE_TEXT[:300], *ODD_TEXTS[4:8]])), values)
    elif edit == "rename_to_other":
        frame.columns[at] = (draw(st.sampled_from([n for n, _ in frame.columns])), values)
    elif edit == "duplicate":
        frame.columns.insert(at, (name, list(values)))
    elif edit == "retype":
        frame.columns[at] = (name, _retyped(values, draw(st.sampled_from(RETYPES))))
    elif edit == "cells" and values:
        kind = draw(st.sampled_from(["null", "empty", "huge", "odd"]))
        rows = draw(st.lists(st.integers(0, len(values) - 1), min_size=1, max_size=len(values), unique=True))
        frame.columns[at] = (name, [_cell(v, kind) if i in rows else v for i, v in enumerate(values)])
    elif edit == "rows" and frame.rows():
        kind = draw(st.sampled_from(["repeat", "remove", "none", "index"]))
        row = draw(st.integers(0, frame.rows() - 1))
        if kind == "index":
            labels = draw(st.sampled_from([["a"], [7], [1.5], [None]]))
            frame.index = (labels * frame.rows())[: frame.rows()]
        else:
            keep = {"repeat": lambda v: v[: row + 1] + v[row:], "remove": lambda v: v[:row] + v[row + 1 :], "none": lambda v: []}
            frame.columns = [(n, keep[kind](list(v))) for n, v in frame.columns]
    return frame


TABLE_EDITS = ("frame", "frame", "frame", "frame", "delete", "swap", "stray")


@st.composite
def mutated_index(draw: st.DrawFn, index: Index) -> Index:
    """1 to 3 edits of the index's tables (the written frames are replaced, not changed in place)."""
    names = sorted(index.frames)
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(names))
        edit = draw(st.sampled_from(TABLE_EDITS))
        if edit == "frame" and name in index.frames:
            index.frames[name] = draw(mutated_frame(index.frames[name]))
        elif edit == "delete":
            index.frames.pop(name, None)
        elif edit == "swap":
            index.frames[name] = copy.deepcopy(index.frames[draw(st.sampled_from(names))])
        else:
            index.frames[name] = STRAY_TABLES[draw(st.sampled_from(sorted(STRAY_TABLES)))]
    return index


def check_target(target: AuditTarget) -> None:
    """A target an audit can run on: every node's metadata and the DAG's can be written to JSON
    (report.json, evidence.parquet), notes are one line each, every terminal has inputs."""
    to_json([node.metadata for node in target.dag])
    json.dumps(target.dag.metadata, allow_nan=True, default=str)
    assert all("\n" not in note for note in target.notes), target.notes
    assert all(target.dag.src(t) for t in target.terminals)


def save_run(index: Index) -> None:
    """A global search run over the reports the index's DAG holds (none: no run is saved)."""
    cited = [node.metadata["community"] for node in read_index(index.root) if node.kind == "community_report"]
    if cited:
        write(run_dir(index.root, "run-1") / "query_run.json", json.dumps(query_run(cited)).encode())


def read_both(index: Index, with_query: bool) -> None:
    target = outcome(lambda: graphrag_index_target(index.root), index.root)
    if isinstance(target, AuditTarget):
        check_target(target)
    if with_query:
        target = outcome(lambda: graphrag_query_target(index.root), index.root)
        if isinstance(target, AuditTarget):
            check_target(target)


@reader_settings(fast_examples=25)
@given(st.data())
def test_a_mutated_index_is_read_or_refused_in_one_line(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as folder:
        index, _ = data.draw(indexes(Path(folder)))
        index.write()
        save_run(index)
        index.frames = copy.deepcopy(index.frames)
        index = data.draw(mutated_index(index))
        for file in index.tables.glob("*.parquet"):
            file.unlink()
        index.write()
        read_both(index, with_query=data.draw(st.booleans()))


@reader_settings(fast_examples=6)
@given(st.data())
def test_an_unmutated_index_of_any_shape_gives_a_target(data: st.DataObject) -> None:
    """The seeds themselves, with their real-world irregularities, are read: the mutations above
    start from indexes that work."""
    with tempfile.TemporaryDirectory() as folder:
        index, _ = data.draw(indexes(Path(folder)))
        index.write()
        save_run(index)
        for read in (graphrag_index_target, graphrag_query_target):
            target = outcome(lambda read=read: read(index.root), index.root)
            if isinstance(target, VeriTrailError):
                assert "no query run under" in str(target), target
            else:
                check_target(target)


@pytest.mark.parametrize(
    ("table", "column", "values"),
    [
        ("community_reports", "rank", lambda n: [[1.0, 2.0]] * n),  # issue 42: a ValueError and a traceback
        ("entities", "human_readable_id", lambda n: [b"\x00"] * n),
        ("text_units", "human_readable_id", lambda n: [{"n": 1}] * n),
        ("community_reports", "community", lambda n: [2**64] * n),
        ("communities", "children", lambda n: [[" "]] * n),  # the long profile: pandas' ValueError
    ],
)
def test_found_failures_stay_fixed(tmp_path: Path, table: str, column: str, values: Any) -> None:
    index = place(tmp_path, "3.x", "project")
    index.frames = tables_of(SMALL_WORLD, "3.x")
    frame = index.frames[table]
    frame.columns = [(n, values(frame.rows()) if n == column else v) for n, v in frame.columns]
    index.write()
    assert isinstance(outcome(lambda: graphrag_index_target(tmp_path), tmp_path), VeriTrailError)


def test_a_column_written_twice_is_named_on_one_line(tmp_path: Path) -> None:
    index = place(tmp_path, "2.x", "flat")
    index.frames = tables_of(SMALL_WORLD, "2.x")
    index.frames["entities"].columns.append(index.frames["entities"].columns[0])
    index.write()
    error = outcome(lambda: graphrag_index_target(tmp_path), tmp_path)
    assert isinstance(error, VeriTrailError) and "column 'id' appears 2 times" in str(error)
