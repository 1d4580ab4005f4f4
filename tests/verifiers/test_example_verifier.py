"""The manual's "Write your own verifier" example (docs/verifiers/custom.md shows the file): one
module and one registration line are enough for the CLI to build it, the engine to run it and the
report to describe it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag.verifiers.registry import VERIFIERS, Registration

ROOT = Path(__file__).resolve().parents[2]
DAG = ROOT / "sample_runs" / "handwritten-hierarchical" / "dag.json"


@pytest.fixture
def keyword(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    monkeypatch.setitem(VERIFIERS, "keyword", Registration("keyword_verifier:prepare"))


@pytest.mark.usefixtures("keyword")
def test_a_registered_verifier_runs_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    claims = ["Mara Voss proposed a ferry.", "A county grant paid for the ferry."]
    args = ["verify", str(DAG), "--verifier", "keyword", "--out", str(out)]
    result = CliRunner().invoke(cli.app, [*args, *(arg for claim in claims for arg in ("--claim", claim))])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["verifier"] == "keyword"
    assert report["verifier_settings"] == {"keyword": {"min_length": 4}}
    verdicts = {r["claim"]["text"]: r["verdict"] for r in report["results"]}
    assert verdicts == {claims[0]: "Fully Supported", claims[1]: "Not Fully Supported"}
    assert report["usage"] is None


@pytest.mark.usefixtures("keyword")
def test_model_options_are_refused_for_a_verifier_without_a_model() -> None:
    result = CliRunner().invoke(cli.app, ["verify", str(DAG), "--verifier", "keyword", "--samples", "3"])
    assert result.exit_code == 2 and "--samples applies to --verifier llm only" in result.output


@pytest.mark.usefixtures("keyword")
def test_a_dry_run_has_nothing_to_price_for_it() -> None:
    result = CliRunner().invoke(cli.app, ["verify", str(DAG), "--verifier", "keyword", "--dry-run"])
    assert result.exit_code == 0 and "the keyword verifier makes none" in result.output
