"""`veritrail eval summedits --limit 20` end to end through typer, and its input errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from samples import SHARED, needs_shared
from typer.testing import CliRunner

from veritrail_graphrag.cli.evaluation import eval_command
from veritrail_graphrag.evaluation.errors import BenchmarkDataError
from veritrail_graphrag.evaluation.results import EvalReport
from veritrail_graphrag.evaluation.session import resolve_data_dir, run_eval

BENCHMARKS = SHARED / "benchmarks"
needs_benchmarks = needs_shared(BENCHMARKS)

app = typer.Typer()
app.command("eval")(eval_command)


@app.command("noop")
def _noop() -> None:
    """A second command, so that `eval` is a subcommand as it is in `veritrail`."""


runner = CliRunner()


@needs_benchmarks
def test_eval_summedits_limit_20_end_to_end(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["eval", "summedits", "--limit", "20", "--data", str(BENCHMARKS), "--out", str(tmp_path), "--exclude-no-agreement"],
    )
    assert result.exit_code == 0, result.output
    assert "macro F1" in result.output and "Reports:" in result.output and "Cost per claim" in result.output
    report = EvalReport.model_validate_json((tmp_path / "summedits-test-facts-limit20.json").read_text())
    assert report.items == 20 and report.units == 20 and report.split == "test" and report.errors == 0
    assert [s.name for s in report.systems] == ["facts", "always Fully Supported", "token overlap"]
    assert report.systems[0].overall.auroc is not None
    assert report.cost.calls_per_claim > 0 and report.cost.tokens is None
    assert report.command.startswith("veritrail eval summedits --verifier facts --split test --limit 20")
    assert report.command.endswith("--exclude-no-agreement") and report.auroc_left_out == 0  # facts samples nothing
    markdown = (tmp_path / "summedits-test-facts-limit20.md").read_text()
    assert markdown.startswith("# `veritrail eval summedits`: test split")
    assert not list(tmp_path.glob(".*.tmp"))


@needs_benchmarks
def test_run_eval_command_on_the_dev_split(tmp_path: Path) -> None:
    report = run_eval("fables", "lexical", "dev", 15, BENCHMARKS, tmp_path)
    assert report.split == "dev" and report.units == 15
    saved = json.loads((tmp_path / "fables-dev-lexical-limit15.json").read_text())
    assert saved["benchmark"] == "fables" and len(saved["outcomes"]) == 15


def test_bad_input_exits_2_with_a_message(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["eval", "summedits", "--data", str(tmp_path / "none"), "--out", str(tmp_path)])
    assert missing.exit_code == 2 and "not a directory" in missing.output
    empty = runner.invoke(app, ["eval", "summedits", "--data", str(tmp_path), "--out", str(tmp_path)])
    assert empty.exit_code == 2 and "summedits_sales_call.json" in empty.output
    split = runner.invoke(app, ["eval", "summedits", "--split", "train", "--data", str(tmp_path)])
    assert split.exit_code == 2 and "dev or test" in split.output


def test_data_defaults_to_shared_beside_the_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BenchmarkDataError, match="pass --data DIR"):
        resolve_data_dir(None)
    (tmp_path.parent / "shared" / "benchmarks").mkdir(parents=True, exist_ok=True)
    assert resolve_data_dir(None) == Path("..") / "shared" / "benchmarks"


@needs_benchmarks
def test_a_one_class_slice_is_scored_with_a_warning(tmp_path: Path) -> None:
    """`--limit 1` can hold one class only: the figures are printed, and a warning says they
    mean nothing; `--limit 2` takes a planted item and an unchanged one."""
    one = runner.invoke(app, ["eval", "planted", "--limit", "1", "--data", str(BENCHMARKS), "--out", str(tmp_path)])
    assert one.exit_code == 0, one.output
    assert "Warning: every unit of this slice is" in " ".join(one.output.split())
    two = runner.invoke(app, ["eval", "planted", "--limit", "2", "--data", str(BENCHMARKS), "--out", str(tmp_path)])
    assert two.exit_code == 0, two.output
    report = EvalReport.model_validate_json((tmp_path / "planted-test-facts-limit2.json").read_text())
    assert report.warnings == [] and {o.supported for o in report.outcomes} == {True, False}


@pytest.mark.parametrize(
    ("benchmark", "said"),
    [
        ("foo", "unknown benchmark 'foo'; choose one of: summedits, fables, planted"),
        ("planted", "pass --data DIR (a GraphRAG index of A Christmas Carol; in a checkout of this repository: "),
        ("fables", "pass --data DIR (the folder holding fables/)"),
    ],
)
def test_without_data_the_benchmark_is_checked_first_and_its_data_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, benchmark: str, said: str
) -> None:
    (tmp_path / "checkout").mkdir()
    monkeypatch.chdir(tmp_path / "checkout")  # no ../shared beside it
    result = runner.invoke(app, ["eval", benchmark, "--out", str(tmp_path)])
    assert result.exit_code == 2 and said in " ".join(result.output.split())
