"""Options declared once for every command, and exit codes decided in one place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from samples import copy_sample
from scripted import ScriptedVerifier
from typer.testing import CliRunner

import veritrail_graphrag
import veritrail_graphrag.cli as cli
from veritrail_graphrag.audit import options as audit_options
from veritrail_graphrag.audit.claims import load_claims
from veritrail_graphrag.audit.targets import file_target
from veritrail_graphrag.cli.exit_codes import ExitCode
from veritrail_graphrag.cli.options import AuditFlags, EvalFlags
from veritrail_graphrag.errors import AdapterError, ClaimsError, DagError
from veritrail_graphrag.models import Verdict
from veritrail_graphrag.report import AuditReport
from veritrail_graphrag.verifiers.registry import PreparedVerifier

ROOT = Path(__file__).resolve().parents[2]
DAG = ROOT / "sample_runs" / "handwritten-hierarchical" / "dag.json"
runner = CliRunner()


def _options(name: str) -> set[str]:
    command = typer.main.get_command(cli.app).commands[name]  # type: ignore[attr-defined]
    return {p.name for p in command.params if p.param_type_name == "option"}


@pytest.mark.parametrize("name", ["verify", "audit", "audit-index", "query"])
def test_every_audit_command_takes_every_audit_option(name: str) -> None:
    assert set(AuditFlags.model_fields) <= _options(name)


def test_eval_takes_the_verifier_and_traversal_options() -> None:
    assert set(EvalFlags.model_fields) <= _options("eval")


def test_eval_refuses_llm_options_with_the_lexical_verifier(tmp_path: Path) -> None:
    result = runner.invoke(cli.app, ["eval", "planted", "--model", "gpt-4o", "--data", str(tmp_path)])
    assert result.exit_code == 2 and "--model applies to --verifier llm only" in result.output


def test_query_refuses_llm_options_before_paying_for_the_search(tmp_path: Path) -> None:
    result = runner.invoke(cli.app, ["query", str(tmp_path), "--query", "q?", "--samples", "3"])
    assert result.exit_code == 2 and "--samples applies to --verifier llm only" in result.output


def test_a_verifier_bug_is_a_crash_with_its_traceback_not_a_claim_to_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Buggy(ScriptedVerifier):
        async def judge(self, claim, excerpts):  # type: ignore[no-untyped-def]
            return {"verdict": "Fully Supported"}["reasoning"]

    monkeypatch.setattr(audit_options, "prepare_verifier", lambda spec: PreparedVerifier(build=lambda: Buggy("ferry")))
    out = tmp_path / "report.json"
    result = runner.invoke(cli.app, ["verify", str(DAG), "--out", str(out)])
    assert result.exit_code == ExitCode.BUG == 70
    assert "Traceback" in result.output and "KeyError: 'reasoning'" in result.output
    assert "this is a bug" in result.output and "re-run" not in result.output
    assert not out.exists()


def test_audit_gates_on_unsupported_claims_and_only_on_them(tmp_path: Path) -> None:
    run = copy_sample("graphrag-christmas-carol", tmp_path / "run")
    gated = runner.invoke(cli.app, ["audit", str(run), "--fail-on-unsupported"])
    assert gated.exit_code == 1, gated.output
    report = AuditReport.load(run / "output" / "veritrail" / "queries" / "handwritten-1" / "report.json")
    assert any(r.verdict is not Verdict.FULLY_SUPPORTED for r in report.results)  # the gate's reason, reported
    assert runner.invoke(cli.app, ["audit", str(run)]).exit_code == 0  # no gate, no failure

    supported = ["verify", str(DAG), "--claim", "Mara Voss proposed a ferry to carry grain across the river."]
    passing = runner.invoke(cli.app, [*supported, "--fail-on-unsupported", "--out", str(tmp_path / "r.json")])
    assert passing.exit_code == 0, passing.output
    assert "1 Fully Supported" in passing.output


def test_an_unwritable_report_exits_5(tmp_path: Path) -> None:
    (tmp_path / "blocked").write_text("a file, not a folder")
    result = runner.invoke(cli.app, ["verify", str(DAG), "--out", str(tmp_path / "blocked" / "r.json")])
    assert result.exit_code == 5, result.output
    assert "cannot write the report" in result.output and "blocked" in result.output


def test_errors_carry_the_file_row_and_ids_as_fields(tmp_path: Path) -> None:
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps([{"id": "ok", "text": "fine"}, {"id": "bad", "text": ""}]))
    with pytest.raises(ClaimsError) as info:
        load_claims(claims)
    assert (info.value.file, info.value.row, info.value.ids) == (str(claims), 1, ["bad"])

    dag = tmp_path / "dag.json"
    dag.write_text(json.dumps({"nodes": [{"id": "a", "stage": 1, "text": "x"}], "edges": [["a", "b"]]}))
    with pytest.raises(DagError) as dag_info:
        veritrail_graphrag.DAG.from_json(dag)
    assert dag_info.value.file == str(dag) and dag_info.value.ids == ["a -> b"]

    log = tmp_path / "run.jsonl"
    log.write_text('{"format": "veritrail-summary-log", "version": 1}\n{"id": "s", "text": "", "inputs": []}\n')
    with pytest.raises(AdapterError) as adapter_info:
        file_target(log)
    assert (adapter_info.value.file, adapter_info.value.line) == (str(log), 2)


@pytest.mark.parametrize("command", ["verify", "audit", "audit-index", "query", "eval", "compare", "check-cited"])
def test_help_at_80_columns_shows_every_option_whole(command: str) -> None:
    result = runner.invoke(cli.app, [command, "--help"], terminal_width=80, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "…" not in result.output and max(map(len, result.output.splitlines())) <= 80
    options = typer.main.get_command(cli.app).commands[command].params  # type: ignore[attr-defined]
    for option in options:
        for name in option.opts if option.param_type_name == "option" else []:
            assert name in result.output, name
    assert "METHOD.md" not in result.output  # users have the paper, not our notes
