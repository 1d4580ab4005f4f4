"""Saved query runs (query_run.json) and audit reports (report.json, read by `AuditReport.load`
and by `compare`), mutated, and index tables damaged as bytes: a result or one short typed line."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fuzz import check_line, damaged_bytes, damaged_json, dump, mutated_json, outcome, reader_settings, time_limit, write
from hypothesis import given
from hypothesis import strategies as st
from index_seeds import SMALL_WORLD, Index, indexes, place, query_run, tables_of
from seeds import SENTENCES

from veritrail_graphrag.adapters.graphrag import QueryRun, add_query_run, read_index
from veritrail_graphrag.audit import verify
from veritrail_graphrag.audit.targets import graphrag_index_target
from veritrail_graphrag.compare.audits import load_audit
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.errors import VeriTrailError
from veritrail_graphrag.report import AuditReport

SAMPLE_DAG = Path(__file__).resolve().parents[2] / "sample_runs" / "handwritten-hierarchical" / "dag.json"


@pytest.fixture(scope="module")
def index_dag(tmp_path_factory: pytest.TempPathFactory) -> DAG:
    """The index every mutated query run is added to: `SMALL_WORLD` as GraphRAG 3.x writes it."""
    index = place(tmp_path_factory.mktemp("index"), "3.x", "project")
    index.frames = tables_of(SMALL_WORLD, "3.x")
    index.write()
    return read_index(index.root)


def _local_run() -> dict[str, Any]:
    return {
        "run_id": "local-1",
        "query": "Who keeps the lamps?",
        "method": "local",
        "context": {
            "entities": [{"id": "0", "entity": "MARA VELL", "description": SENTENCES[1], "in_context": True}],
            "sources": [{"id": "1", "text": SENTENCES[1]}],
            "reports": [{"id": "1", "title": "Community 1", "content": SENTENCES[6]}],
        },
        "final_answer": "Mara keeps the harbour lamps [Data: Entities (0); Sources (1)].",
    }


def _drift_run() -> dict[str, Any]:
    return {
        "run_id": "drift-1",
        "query": "What changed on the island?",
        "method": "drift",
        "drift": {
            "primer_report_ids": [0],
            "actions": [
                {"id": 0, "query": "What changed?", "answer": SENTENCES[7], "score": 80},
                {"id": 1, "query": "Who lives on Gull Rock?", "answer": SENTENCES[3], "score": 50, "parents": [0],
                 "context": {"sources": [{"id": "0", "text": SENTENCES[0]}]}},
            ],
        },
        "final_answer": "A bridge now links the island [Data: Reports (0)].",
    }  # fmt: skip


RUNS = [query_run([0, 1]), _local_run(), _drift_run()]


@reader_settings(fast_examples=60)
@given(damaged_json(st.sampled_from(RUNS)))
def test_a_mutated_query_run_is_read_or_refused_in_one_line(index_dag: DAG, raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder) / "run-1" / "query_run.json", raw)
        run = outcome(lambda: QueryRun.load(path.parent), Path(folder))
        if isinstance(run, QueryRun):
            with time_limit():
                try:  # the targets add the file to what this raises (a test of the CLI shows it)
                    add_query_run(index_dag, run)
                except VeriTrailError as exc:
                    check_line(exc, None)  # noqa: PT017


@pytest.fixture(scope="module")
def report_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real report of the bundled hand-written DAG, with the files beside it."""
    folder = tmp_path_factory.mktemp("report")
    dag = shutil.copy(SAMPLE_DAG, folder / "dag.json")
    verify(dag, out=folder / "report.json", verifier="lexical")
    return folder


@reader_settings(fast_examples=60)
@given(st.data())
def test_a_mutated_report_is_read_or_refused_in_one_line(report_files: Path, data: st.DataObject) -> None:
    document = json.loads((report_files / "report.json").read_text(encoding="utf-8"))
    raw = dump(data.draw(mutated_json(document)))
    if data.draw(st.integers(0, 5)) == 0:
        raw = data.draw(damaged_bytes(raw))
    dag = DAG.from_json(report_files / "dag.json")
    with tempfile.TemporaryDirectory() as folder:
        for name in ("report.json", "evidence.parquet"):
            if (report_files / name).is_file():
                shutil.copy(report_files / name, Path(folder) / name)
        path = write(Path(folder) / "report.json", raw)
        outcome(lambda: AuditReport.load(path), Path(folder))
        outcome(lambda: AuditReport.load(path, dag), Path(folder))
        outcome(lambda: load_audit(path), Path(folder))


def _first_evidence(document: dict[str, Any]) -> list[Any]:
    return next(it["evidence"] for result in document["results"] for it in result["iterations"] if it["evidence"])


HUGE = "x" * 100_000
REPORT_EDITS = {  # failures the long profile found, each a plain example kept for good
    "a 100 kB report version": lambda d: d.update(report_version=HUGE),
    "a node id that is a list": lambda d: d["nodes"]["node_id"].__setitem__(0, ["a"]),
    "a 100 kB sentence id": lambda d: _first_evidence(d).__setitem__(0, "0#" + HUGE),
    "a sentence of a 100 kB node id": lambda d: _first_evidence(d).__setitem__(0, HUGE + "#0"),
}


@pytest.mark.parametrize("edit", REPORT_EDITS)
def test_found_report_failures_stay_fixed(report_files: Path, tmp_path: Path, edit: str) -> None:
    document = json.loads((report_files / "report.json").read_text(encoding="utf-8"))
    REPORT_EDITS[edit](document)
    path = write(tmp_path / "report.json", dump(document))
    dag = DAG.from_json(report_files / "dag.json")
    for read in (lambda: AuditReport.load(path), lambda: AuditReport.load(path, dag)):
        assert isinstance(outcome(read, tmp_path), VeriTrailError)
    outcome(lambda: load_audit(path), tmp_path)  # compare reads no sentence texts: a result, or one line


@reader_settings(fast_examples=20)
@given(st.data())
def test_a_damaged_table_file_is_refused_in_one_line(data: st.DataObject) -> None:
    """Truncated, overwritten or garbage parquet bytes (or a folder where the file should be)."""
    with tempfile.TemporaryDirectory() as folder:
        index: Index = data.draw(indexes(Path(folder)))[0]
        index.write()
        name = data.draw(st.sampled_from(sorted(index.frames)))
        file = index.file(name)
        if data.draw(st.integers(0, 9)) == 0:
            file.unlink()
            file.mkdir()
        else:
            file.write_bytes(data.draw(damaged_bytes(file.read_bytes())))
        outcome(lambda: graphrag_index_target(index.root), index.root)


def test_a_run_with_many_bad_answers_is_refused_in_one_short_line(tmp_path: Path) -> None:
    """Every problem pydantic found used to be listed: 700 characters for a hand-edited run."""
    document = query_run([0]) | {"batches": [{"index": 0, "report_ids": [0], "answers": list(range(40))}]}
    path = write(tmp_path / "run-1" / "query_run.json", dump(document))
    assert isinstance(outcome(lambda: QueryRun.load(path), tmp_path), VeriTrailError)


def test_a_context_record_of_100_kb_that_does_not_match_is_quoted_short(index_dag: DAG) -> None:
    run = QueryRun.model_validate(_local_run() | {"context": {"sources": [{"id": "1", "text": "x" * 100_000}]}})
    with pytest.raises(VeriTrailError) as raised:
        add_query_run(index_dag, run)
    check_line(raised.value, None)
