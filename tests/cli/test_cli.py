"""The `veritrail verify` command end to end, on the bundled sample and on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripted import ScriptedVerifier
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag import Verdict
from veritrail_graphrag.audit import options as audit_options
from veritrail_graphrag.verifiers.registry import PreparedVerifier

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_runs" / "handwritten-hierarchical" / "dag.json"
runner = CliRunner()


def test_default_verifier_flags_no_true_claim_and_says_its_verdicts_are_an_estimate(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    result = runner.invoke(cli.app, ["verify", str(SAMPLE), "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["verifier"] == "facts" and "estimate" in report["verifier_note"]
    true_claims = [r for r in report["results"] if "grant" not in r["claim"]["text"]]
    assert len(true_claims) == 4 and all(r["verdict"] == Verdict.FULLY_SUPPORTED for r in true_claims)
    assert "Verifier facts: offline verdicts are an estimate" in " ".join(result.output.split())


def test_lexical_flags_the_planted_claim_at_stage_3(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    result = runner.invoke(cli.app, ["verify", str(SAMPLE), "--out", str(out), "--verifier", "lexical"])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    by_text = {r["claim"]["text"]: r for r in report["results"]}
    planted = by_text["The ferry was paid for by a grant from the county town."]
    assert planted["verdict"] == Verdict.NOT_FULLY_SUPPORTED
    assert planted["error_stages"] == [3]
    others = [r for t, r in by_text.items() if r is not planted]
    assert len(others) == 4 and all(r["verdict"] == Verdict.FULLY_SUPPORTED for r in others)
    assert report["summary"]["verdicts"]["Not Fully Supported"] == 1
    assert report["summary"]["error_stages"] == {"3": 1}
    assert "Not Fully Supported" in result.output


def test_claims_file_and_fail_on_unsupported(tmp_path: Path) -> None:
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps([{"id": "x", "text": "The parish council rejected her plan twice."}]))
    out = tmp_path / "r.json"
    ok = runner.invoke(cli.app, ["verify", str(SAMPLE), "--claims", str(claims), "--out", str(out)])
    assert ok.exit_code == 0, ok.output
    assert [r["claim"]["id"] for r in json.loads(out.read_text())["results"]] == ["x"]

    gated = runner.invoke(
        cli.app,
        ["verify", str(SAMPLE), "--claim", "Mara sold the mill in 1920.", "--out", str(out), "--fail-on-unsupported"],
    )
    assert gated.exit_code == 1


def test_default_report_path_is_beside_the_dag(tmp_path: Path) -> None:
    dag = tmp_path / "run.json"
    dag.write_text(SAMPLE.read_text())
    assert runner.invoke(cli.app, ["verify", str(dag), "--claim", "Mara rowed grain."]).exit_code == 0
    assert (tmp_path / "run.report.json").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"nodes": [{"id": "a", "stage": 1, "text": "x"}], "edges": [["a", "b"]]}', "unknown nodes: 'a -> b'"),
        (b"\xff\xfe", "not UTF-8"),
        (
            b'{"nodes": [{"id": "a", "stage": 2, "text": "x"}, {"id": "b", "stage": 1, "text": "y"}], '
            b'"edges": [["a", "b"]]}',
            "stage decreases",
        ),
    ],
)
def test_bad_dag_exits_2_with_the_ids_and_writes_nothing(tmp_path: Path, content: bytes, message: str) -> None:
    dag = tmp_path / "bad.json"
    dag.write_bytes(content)
    result = runner.invoke(cli.app, ["verify", str(dag), "--claim", "anything at all"])
    assert result.exit_code == 2
    assert message in result.output and "bad.json" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


def test_bad_claims_file_names_the_entry(tmp_path: Path) -> None:
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps([{"id": "ok", "text": "fine"}, {"id": "bad", "text": ""}]))
    result = runner.invoke(cli.app, ["verify", str(SAMPLE), "--claims", str(claims), "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 2
    assert "claim 'bad' (entry 1)" in result.output
    assert not (tmp_path / "r.json").exists()


def test_claims_the_verifier_cannot_judge_are_listed_and_exit_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Broken(ScriptedVerifier):
        async def judge(self, claim, excerpts):  # type: ignore[no-untyped-def]
            raise TimeoutError("backend unavailable")

    monkeypatch.setattr(audit_options, "prepare_verifier", lambda spec: PreparedVerifier(build=lambda: Broken("ferry")))
    out = tmp_path / "report.json"
    result = runner.invoke(cli.app, ["verify", str(SAMPLE), "--out", str(out)])
    assert result.exit_code == 3
    assert "verdict generation" in result.output and "backend unavailable" in result.output
    report = json.loads(out.read_text())
    assert report["results"] == [] and report["summary"]["failed"] == len(report["failed"]) > 0
    assert len(list(tmp_path.glob(".report.json.*.partial.jsonl"))) == 1  # kept: a re-run retries only these


def test_unknown_terminal_and_verifier(tmp_path: Path) -> None:
    r1 = runner.invoke(cli.app, ["verify", str(SAMPLE), "--terminal", "nope"])
    assert r1.exit_code == 2 and "unknown node id 'nope'" in r1.output
    r2 = runner.invoke(cli.app, ["verify", str(SAMPLE), "--verifier", "oracle"])
    assert r2.exit_code == 2 and "unknown verifier 'oracle'" in r2.output
