"""CLI behaviour at the edges: option precedence, refused combinations, bad paths, odd text."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from samples import copy_sample
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag.cli.options import AuditFlags
from veritrail_graphrag.files import atomic_write_text
from veritrail_graphrag.models import TrailConfig

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"
DAG = SAMPLES / "handwritten-hierarchical" / "dag.json"
runner = CliRunner()


def test_written_files_get_the_usual_permissions(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    atomic_write_text(path, "{}")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask


def test_concurrency_comes_from_llm_settings_unless_given(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("VERITRAIL_CONCURRENCY", "4")
    monkeypatch.setenv("VERITRAIL_MODEL", "some-model")
    monkeypatch.chdir(tmp_path)
    _, config = AuditFlags(verifier="llm").setup(None)
    assert config.concurrency == 4
    _, config = AuditFlags(verifier="llm", concurrency=9).setup(None)
    assert config.concurrency == 9
    monkeypatch.delenv("VERITRAIL_CONCURRENCY")
    _, config = AuditFlags(verifier="llm").setup(None)
    assert config.concurrency == 16  # calls to wait for: many in flight
    _, config = AuditFlags(verifier="lexical").setup(None)
    assert config == TrailConfig(concurrency=1)  # nothing to wait for: each claim saved as it ends
    _, config = AuditFlags(verifier="lexical", concurrency=8).setup(None)
    assert config.concurrency == 8


def test_llm_flags_with_the_lexical_verifier_are_refused() -> None:
    result = runner.invoke(cli.app, ["verify", str(DAG), "--model", "gpt-4o", "--samples", "3"])
    assert result.exit_code == 2 and "--model, --samples apply to --verifier llm only" in result.output
    result = runner.invoke(cli.app, ["verify", str(DAG), "--prefilter"])
    assert result.exit_code == 2 and "--prefilter applies to --verifier llm only" in result.output


def test_dry_run_with_the_lexical_verifier_says_there_are_no_calls(tmp_path: Path) -> None:
    result = runner.invoke(cli.app, ["verify", str(DAG), "--dry-run", "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 0 and "makes none" in result.output
    assert not (tmp_path / "r.json").exists()


def test_claim_text_with_markup_is_printed_literally(tmp_path: Path) -> None:
    result = runner.invoke(
        cli.app, ["verify", str(DAG), "--claim", "Mara [bold]rowed[/i] grain [Data: x].", "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 0, result.output
    assert "[bold]rowed[/i]" in result.output.replace("\n", " ") or "rowed[/i]" in result.output


def test_error_text_with_brackets_is_printed_literally(tmp_path: Path) -> None:
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps([{"id": "[llm]", "text": ""}]))
    result = runner.invoke(cli.app, ["verify", str(DAG), "--claims", str(claims)])
    assert result.exit_code == 2 and "'[llm]'" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["audit", "{empty}"], "no GraphRAG index found"),
        (["audit", "{missing}/nothing.json"], "no such file"),
        (["audit", "{carol}", "--answer", "{missing}/answer.md"], "answer.md: no such file"),
        (["audit", "{carol}", "--answer", "{dag}", "--map-answers", "{dag}"], "not a folder of map-answer files"),
        (["audit", "{carol}", "--map-answers", "{empty}"], "--map-answers goes with --answer"),
        (["audit", "{carol}", "--book", "x"], "--book applies to BooookScore files"),
        (["audit", "{dag}", "--query-run", "x"], "--query-run applies to GraphRAG projects"),
        (["audit-index", "{carol}", "--community", "45", "--all"], "give --community, or --reports/--all"),
        (["audit", "{carol}", "--answer", "{dag}", "--query-run", "x"], "give --answer or --query-run, not both"),
        (["audit-index", "{carol}", "--reports", "3", "--all"], "give --reports N or --all, not both"),
        (["audit", "{carol}", "--fail-on-unsupported", "--dry-run"], "--fail-on-unsupported applies to an audit"),
        (["verify", "{dag}", "--md-limit", "5"], "--md-limit applies to report.md, which verify does not write"),
        (
            ["query", "{carol}", "--query", "q", "--no-audit", "--q", "2", "--no-resume"],
            "--q, --no-resume apply to the audit",
        ),
        (["query", "{carol}", "--query", "q", "--no-audit", "--out", "{empty}"], "--out applies to the audit"),
    ],
)
def test_bad_paths_and_option_combinations_exit_2_with_a_message(tmp_path: Path, args: list[str], message: str) -> None:
    carol = tmp_path / "carol"
    copy_sample("graphrag-christmas-carol", carol)
    (tmp_path / "empty").mkdir()
    names = {"empty": tmp_path / "empty", "missing": tmp_path / "missing", "carol": carol, "dag": DAG}
    result = runner.invoke(cli.app, [a.format(**names) for a in args])
    assert result.exit_code == 2, result.output
    assert message in result.output.replace("\n", " ")


def test_a_conflicting_pair_is_one_line_and_exit_2_before_anything_is_read(tmp_path: Path) -> None:
    done = veritrail("audit-index", str(tmp_path / "nothing"), "--reports", "3", "--all")
    assert (done.returncode, done.stdout, done.stderr) == (2, "", "Error: give --reports N or --all, not both\n")


def test_repeated_community_is_audited_once(tmp_path: Path) -> None:
    carol = tmp_path / "carol"
    copy_sample("graphrag-christmas-carol", carol)
    result = runner.invoke(cli.app, ["audit-index", str(carol), "--community", "48", "--community", "48"])
    assert result.exit_code == 0, result.output
    report = json.loads((carol / "output" / "veritrail" / "index-audit-communities-48" / "report.json").read_text())
    assert report["terminals"] == ["report:48"]


def test_llm_settings_that_change_answers_change_the_resume_key() -> None:
    from veritrail_graphrag.llm.config import LLMConfig
    from veritrail_graphrag.verifiers.capabilities import verifier_settings
    from veritrail_graphrag.verifiers.llm.verifier import LLMVerifier

    def settings(**values: object) -> dict:
        config = LLMConfig(**{"model": "m1", "base_url": "http://127.0.0.1:9/v1", "cache": False, **values})
        return verifier_settings(LLMVerifier(config))

    assert settings() == settings(concurrency=3, timeout=5)
    assert settings() != settings(model="m2")
    assert settings() != settings(temperature=0.5)
    assert "api_key" not in json.dumps(settings(api_key="secret"))


def test_a_jsonl_claims_file_names_the_real_line(tmp_path: Path) -> None:
    claims = tmp_path / "claims.jsonl"
    claims.write_text('{"id": "a", "text": "Mara rowed the grain."}\n\n{"id": "b", "text": ""}\n')
    result = runner.invoke(cli.app, ["verify", str(DAG), "--claims", str(claims), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2 and f"{claims}, line 3: claim 'b'" in " ".join(result.output.split())
    claims.write_text('{"id": "a", "text": "Mara rowed the grain."}\n{"id": "b", "text": \n')
    result = runner.invoke(cli.app, ["verify", str(DAG), "--claims", str(claims), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2 and f"{claims}, line 2: neither JSON nor JSON lines" in " ".join(result.output.split())


def test_an_empty_claim_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(cli.app, ["verify", str(DAG), "--claim", "ok then", "--claim", " ", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.strip() == "Error: --claim number 2 is empty: give the text of the claim to verify"


def test_options_are_checked_before_the_input_is_read(tmp_path: Path) -> None:
    result = runner.invoke(cli.app, ["audit", str(tmp_path / "missing"), "--verifier", "foo"])
    assert result.exit_code == 2 and "unknown verifier 'foo'" in result.output


def test_a_torn_last_line_of_a_summary_log_is_a_warning_line(tmp_path: Path) -> None:
    log = tmp_path / "summary-log.jsonl"
    log.write_text((SAMPLES / "hierarchical-christmas-carol" / "summary-log.jsonl").read_text() + '{"type": "te')
    result = runner.invoke(cli.app, ["audit", str(log), "--dry-run"])
    assert result.exit_code == 0, result.output
    [line] = [line for line in result.output.splitlines() if "incomplete last line" in line]
    assert line.startswith(f"Warning: {log}, line ")
    assert "TornLineWarning" not in result.output


def test_ctrl_c_while_the_command_loads_is_one_line_and_code_130() -> None:
    code = (
        "import builtins\n"
        "real = builtins.__import__\n"
        "def interrupted(name, *args, **kwargs):\n"
        "    if name == 'veritrail_graphrag.cli':\n"
        "        raise KeyboardInterrupt\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = interrupted\n"
        "from veritrail_graphrag.__main__ import main\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", code, "audit", "x"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130
    assert done.stderr == "interrupted while starting: nothing was done\n" and not done.stdout


def veritrail(*args: str, columns: int | None = None) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it, its output not a terminal (`columns` wide, when given)."""
    env = {**os.environ, "COLUMNS": str(columns)} if columns is not None else None
    command = [sys.executable, "-m", "veritrail_graphrag", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False, env=env)


def test_write_targets_are_tried_before_the_audit(tmp_path: Path) -> None:
    carol = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    (carol / "output" / "veritrail" / "index-audit").write_text("a file where the reports go")
    done = veritrail("audit-index", str(carol))
    assert done.returncode == 5, done.stderr
    said = done.stderr.strip().splitlines()[-1]  # after the note saying what is audited
    assert said.startswith("Error: cannot write the report: ")
    assert "index-audit: a file, not a folder; write the reports elsewhere with --out DIR" in said

    (tmp_path / "afile").write_text("not a folder")
    done = veritrail("audit-index", str(carol), "--out", str(tmp_path / "afile"))
    assert done.returncode == 5 and f"--out {tmp_path / 'afile'}: a file, not a folder" in done.stderr

    junit = tmp_path / "afile" / "veritrail.xml"
    done = veritrail("audit-index", str(carol), "--out", str(tmp_path / "reports"), "--junit-xml", str(junit))
    assert done.returncode == 5 and f"--junit-xml {junit}: a file, not a folder" in done.stderr
    assert not (tmp_path / "reports" / "report.json").exists()  # refused before the audit, not after


def test_help_fits_80_columns_with_every_command_line_whole() -> None:
    done = veritrail("--help", columns=80)
    assert done.returncode == 0, done.stderr
    commands = done.stdout.split("Commands:\n")[1].splitlines()
    assert len(commands) == len(cli.app.registered_commands)
    assert all(len(line) <= 80 and line.endswith(".") and not line.endswith("...") for line in commands), commands
    assert "--version" in done.stdout


def test_version_is_a_flag_too() -> None:
    from veritrail_graphrag import __version__

    assert (veritrail("--version").stdout, veritrail("version").stdout) == (f"{__version__}\n", f"{__version__}\n")


def test_graphrag_without_the_extra_names_the_commands_that_need_it() -> None:
    code = (
        "import sys\n"
        "sys.modules['graphrag.cli.main'] = None\n"  # as if GraphRAG were not installed
        "from veritrail_graphrag.__main__ import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "graphrag", "index", "--root", "."], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert "running GraphRAG (veritrail query, veritrail graphrag) needs the graphrag extra" in done.stderr


def test_an_audit_at_80_columns_wraps_between_words_and_keeps_its_paths_whole(tmp_path: Path) -> None:
    """The sample's audit as a terminal 80 columns wide prints it: the caption named the report by
    its path, cut mid-word, and the verifier's note was one 190-character line."""
    carol = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    done = veritrail("audit", str(carol), columns=80)
    assert done.returncode == 0, done.stderr
    *lines, opened, written = done.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    assert not any(str(tmp_path) in line for line in lines)
    folder = carol / "output" / "veritrail" / "queries" / "handwritten-1"
    assert opened.startswith(f"Open {folder / 'report.html'} ") and written.endswith(f" in {folder}")
    said = " ".join(" ".join(lines).split())
    assert "3 sentence(s) are not claims (3 heading(s)), so claim ids skip their numbers." in said
