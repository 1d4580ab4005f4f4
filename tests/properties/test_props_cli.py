"""From the command line, a typed error is exit 2 and one short `Error:` line, never a traceback;
an index's tolerated irregularities are counted in the terminal's notes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fuzz import MAX_LINE, dump, write
from index_seeds import SMALL_WORLD, STRAY, place, query_run, tables_of
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag.adapters.graphrag.layout import run_dir

SAMPLE_DAG = Path(__file__).resolve().parents[2] / "sample_runs" / "handwritten-hierarchical" / "dag.json"
runner = CliRunner()


def _index(root: Path, rank: object = None) -> Path:
    """SMALL_WORLD as a 3.x project with a dangling relationship, an entity without a description
    and a report of a community the communities table lacks (and `rank` in every report, if given)."""
    world = SMALL_WORLD
    world = type(world)(
        world.units,
        [*world.entities, {**world.entities[0], "id": "e-2", "title": "LAMP GUILD", "description": ""}],
        [*world.relationships, {**world.relationships[0], "id": "r-1", "target": STRAY}],
        world.communities,
        [*world.reports, {**world.reports[0], "community": 9, "children": []}],
        [],
    )
    index = place(root, "3.x", "project")
    index.frames = tables_of(world, "3.x")
    if rank is not None:
        frame = index.frames["community_reports"]
        frame.columns = [(n, [rank] * frame.rows() if n == "rank" else v) for n, v in frame.columns]
    index.write()
    return root


def _error_line(output: str, folder: Path) -> str:
    assert "Traceback" not in output, output
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), output
    assert len(lines[0].replace(str(folder), "<dir>")) <= MAX_LINE + len("Error: "), lines[0]
    return lines[0]


def test_the_issues_index_whose_ranks_are_lists_is_exit_2_with_one_line(tmp_path: Path) -> None:
    root = _index(tmp_path / "project", rank=[1.0, 2.0])
    result = runner.invoke(cli.app, ["audit-index", str(root), "--verifier", "lexical"])
    assert result.exit_code == 2, result.output
    line = _error_line(result.stderr, tmp_path)
    assert "community_reports.parquet" in line and "'rank'" in line


def test_a_hand_edited_query_run_is_exit_2_with_one_short_line(tmp_path: Path) -> None:
    root = _index(tmp_path / "project")
    document = query_run([0]) | {"batches": [{"index": 0, "report_ids": [0], "answers": ["x" * 5000] * 30}]}
    write(run_dir(root, "run-1") / "query_run.json", dump(document))
    result = runner.invoke(cli.app, ["audit", str(root), "--verifier", "lexical"])
    assert result.exit_code == 2, result.output
    assert "query_run.json" in _error_line(result.stderr, tmp_path)


def test_a_query_run_citing_a_report_the_index_lacks_names_the_run(tmp_path: Path) -> None:
    root = _index(tmp_path / "project")
    write(run_dir(root, "run-1") / "query_run.json", json.dumps(query_run([0, 42])).encode())
    result = runner.invoke(cli.app, ["audit", str(root), "--verifier", "lexical"])
    assert result.exit_code == 2, result.output
    line = _error_line(result.stderr, tmp_path)
    assert "run-1/query_run.json" in line and "report:42" in line


@pytest.mark.parametrize(
    ("command", "file", "content"),
    [
        (["verify"], "dag.json", {"nodes": [{"id": "x" * 10_000, "text": "A.", "stage": "one"}], "edges": []}),
        (["compare"], "report.json", {"tool": "veritrail-graphrag", "report_version": 2, "results": [{"claim": 1}]}),
        (["audit"], "run.jsonl", [{"format": "veritrail-summary-log", "version": 1}, {"type": "x" * 10_000}]),
    ],
)
def test_a_bad_file_is_exit_2_with_one_short_line(tmp_path: Path, command: list[str], file: str, content: object) -> None:
    lines = content if file.endswith(".jsonl") else [content]
    path = write(tmp_path / file, b"\n".join(dump(line) for line in lines))  # type: ignore[union-attr]
    arguments = [*command, str(path)] + ([str(path)] if command == ["compare"] else [])
    result = runner.invoke(cli.app, [*arguments, *(["--verifier", "lexical"] if command != ["compare"] else [])])
    assert result.exit_code == 2, result.output
    assert file in _error_line(result.stderr, tmp_path)


def test_tolerated_irregularities_are_counted_in_the_terminal_notes(tmp_path: Path) -> None:
    root = _index(tmp_path / "project")
    shutil.rmtree(root / "veritrail", ignore_errors=True)
    result = runner.invoke(cli.app, ["audit-index", str(root), "--verifier", "lexical", "--reports", "1"])
    assert result.exit_code in (0, 1), result.output
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert "note: 1 relationship(s) name an endpoint that is not an entity; kept, with their own description" in notes
    assert "note: 1 community report(s) belong to a community the communities table does not list" in notes
    assert "note: entities.parquet: 1 rows with an empty description left out of the DAG" in notes
