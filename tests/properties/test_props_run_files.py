"""Summary logs, DAG JSON and BooookScore files, mutated: a DAG or a typed error, one short line."""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest
from fuzz import damaged_bytes, damaged_json, dump, mutated_json, outcome, reader_settings, write
from hypothesis import given
from hypothesis import strategies as st
from seeds import booookscore_documents, dag_documents, summary_logs

from veritrail_graphrag.adapters.summaries import load_summary_run
from veritrail_graphrag.adapters.summaries.booookscore import read_booookscore
from veritrail_graphrag.adapters.summaries.log_reader import read_summary_log
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.errors import VeriTrailError, VeriTrailWarning


def _read_quietly(read: Any, path: Path) -> object:
    """Read with our warnings (a torn last line) allowed and any other warning failing the example."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", VeriTrailWarning)
        return outcome(lambda: read(path), path.parent)


LINE_EDITS = ("mutate", "delete", "duplicate", "swap", "garbage", "torn", "blank")
_NOT_JSON = object()


def _record(line: bytes) -> Any:
    """A line's record, or `_NOT_JSON` where an earlier edit left garbage, a blank or a torn line
    (the long profile found the strategy itself failing there)."""
    try:
        return json.loads(line)
    except ValueError:
        return _NOT_JSON


@st.composite
def damaged_logs(draw: st.DrawFn) -> bytes:
    """A summary log with some lines edited, deleted, repeated, swapped, torn or replaced."""
    lines = [dump(record) for record in draw(summary_logs())]
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(lines) - 1)) if lines else 0
        edit = draw(st.sampled_from(LINE_EDITS))
        if not lines:
            lines.append(draw(st.binary(max_size=40)))
        elif edit == "mutate":
            if (record := _record(lines[at])) is not _NOT_JSON:  # else the line is damaged already
                lines[at] = dump(draw(mutated_json(record, max_mutations=2)))
        elif edit == "delete":
            del lines[at]
        elif edit == "duplicate":
            lines.insert(at, lines[at])
        elif edit == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
        elif edit == "garbage":
            lines[at] = draw(st.binary(max_size=40))
        elif edit == "torn":
            lines[-1] = lines[-1][: draw(st.integers(0, len(lines[-1])))]
        else:
            lines.insert(at, b"   ")
    data = b"\n".join(lines) + b"\n"
    return draw(damaged_bytes(data)) if draw(st.booleans()) else data


@reader_settings(fast_examples=60)
@given(damaged_logs())
def test_a_damaged_summary_log_is_read_or_refused_in_one_line(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder) / "run.jsonl", data)
        _read_quietly(read_summary_log, path)
        _read_quietly(load_summary_run, path)


@reader_settings(fast_examples=60)
@given(st.data())
def test_a_mutated_dag_file_is_read_or_refused_in_one_line(data: st.DataObject) -> None:
    document = data.draw(mutated_json(data.draw(dag_documents())))
    raw = dump(document)
    if data.draw(st.booleans()):
        raw = data.draw(damaged_bytes(raw))
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder) / "dag.json", raw)
        _read_quietly(DAG.from_json, path)
        _read_quietly(load_summary_run, path)


@reader_settings(fast_examples=60)
@given(damaged_json(booookscore_documents()), st.sampled_from([None, "harbour-tales", "mill-town"]))
def test_a_mutated_booookscore_file_is_read_or_refused_in_one_line(raw: bytes, book: str | None) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder) / "book-hier.json", raw)
        _read_quietly(lambda p: read_booookscore(p, book), path)
        _read_quietly(load_summary_run, path)


HUGE = "x" * 100_000
REGRESSIONS = {  # failures the properties found, each a plain example kept for good
    "a DAG version that is not a number": ("dag.json", {"nodes": [], "edges": [], "version": {}}),
    "a 100 kB edge": ("dag.json", {"nodes": [{"id": "a", "text": "A.", "stage": 1}], "edges": [HUGE]}),
    "a 100 kB node id": ("dag.json", {"nodes": [{"id": HUGE, "text": "A.", "stage": "one"}], "edges": []}),
    "edges to 100 kB ids": ("dag.json", {"nodes": [{"id": "a", "text": "A.", "stage": 1}], "edges": [["a", HUGE]]}),
    "100 kB book names": ("book.json", {HUGE: ["A."], "b": ["B."]}),
    "edges that are not a list": ("dag.json", {"nodes": [{"id": "a", "text": "A.", "stage": 1}], "edges": -1}),
    "a 100 kB record type": ("run.jsonl", [{"format": "veritrail-summary-log", "version": 1}, {"type": HUGE}]),
}


@pytest.mark.parametrize("name", REGRESSIONS)
def test_found_failures_stay_fixed(tmp_path: Path, name: str) -> None:
    file_name, document = REGRESSIONS[name]
    lines = document if file_name.endswith(".jsonl") else [document]
    path = write(tmp_path / file_name, b"\n".join(dump(line) for line in lines))
    result = _read_quietly(load_summary_run, path)
    assert isinstance(result, VeriTrailError), result
