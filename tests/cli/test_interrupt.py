"""Ctrl-C and SIGTERM stop an index audit within moments, whatever the verifier and whatever it is
doing (reading tables, extracting claims, verifying, writing the report), keep every finished claim
in the checkpoint, say how to resume, and the same command resumes.

Real signals to a real process auditing the fixture index (copied into a project's `output/`), as
a user's terminal or a CI runner sends them; the LLM verifier talks to the fake OpenAI server. A
phase too short to hit from outside is hit from inside: the process sends the signal to itself as
the phase begins (`interrupting.SIGNAL_AT`).
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import interrupting
import pytest
from fake_openai import FakeOpenAI
from interrupting import audit_folder, index_project, signal_sent, start
from samples import SHARED, needs_shared
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli

pytest_plugins = ["fake_openai"]

INDEX = SHARED / "fixtures" / "graphrag-verbs-data"
pytestmark = needs_shared(INDEX)

STOPS_WITHIN = 10.0
"""Seconds from the signal to the exit, however loaded the machine (unloaded: well under one)."""
COMMUNITIES = ["--community", "39", "--community", "70"]
"""66 claims that take a few seconds offline: an audit to interrupt after its first claims."""
SAVED = re.compile(r"interrupted: (\d+) of (\d+) claims are saved in the checkpoint; run the same command to resume")


def project(tmp_path: Path, endpoint: str | None = None) -> Path:
    return index_project(INDEX, tmp_path / "project", endpoint)


def folder(root: Path) -> Path:
    return audit_folder(root, "index-audit-communities-39-70")


def checkpoint_lines(root: Path) -> int:
    return interrupting.checkpoint_lines(folder(root))


def stopped(process: subprocess.Popen[str], root: Path, sent: float | None = None) -> tuple[int, int, str]:
    """Wait for an interrupted audit; check that it stopped within `STOPS_WITHIN` of the signal
    (sent at `sent`, else when the process sent it itself), with code 130, without a traceback or
    a lock left behind, and said how to resume. Returns (claims saved, of how many, its line)."""
    _, err = process.communicate(timeout=60)
    ended = time.monotonic()
    if sent is None:
        sent = signal_sent(root)
    assert ended - sent < STOPS_WITHIN, f"stopped {ended - sent:.1f} s after the signal"
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert not list(folder(root).glob(".*.lock")), "the report's lock was left behind"
    line = " ".join(err.split())
    assert "run the same command to resume" in line, err
    told = SAVED.search(line)
    saved, total = (int(told[1]), int(told[2])) if told else (0, 0)
    assert saved == max(checkpoint_lines(root) - 1, 0), line
    return saved, total, line


def interrupted(
    root: Path,
    args: list[str],
    signals: list[signal.Signals],
    claims: int | None = 66,
    before: Callable[[], None] = lambda: None,
) -> int:
    """Start `veritrail audit-index ROOT ARGS`; once two claims are in the checkpoint, call `before`
    and send `signals`. Returns how many claims the checkpoint holds: as many as the process said."""
    process = start(root, args)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None and checkpoint_lines(root) < 3:  # header + 2
        time.sleep(0.01)
    before()
    assert process.poll() is None, "the audit ended before it could be interrupted"
    sent = time.monotonic()
    for number in signals:
        process.send_signal(number)
        time.sleep(0.05)
    saved, total, _ = stopped(process, root, sent)
    assert saved >= 2 and (claims is None or total == claims)
    return saved


def resumed(root: Path, args: list[str]) -> dict:  # type: ignore[type-arg]
    """The same command run again: it ends, taking the claims saved from the checkpoint."""
    result = CliRunner().invoke(cli.app, ["audit-index", str(root), *args])
    assert result.exit_code == 0, result.output
    assert checkpoint_lines(root) == 0
    return json.loads((folder(root) / "report.json").read_text())


@pytest.mark.parametrize(
    ("verifier", "signals"),
    [("facts", [signal.SIGINT]), ("lexical", [signal.SIGINT, signal.SIGINT])],
    ids=["facts, two worker processes", "lexical, Ctrl-C twice"],
)
def test_ctrl_c_stops_an_offline_index_audit_and_the_same_command_resumes(
    tmp_path: Path, verifier: str, signals: list[signal.Signals]
) -> None:
    """A second Ctrl-C (lexical) exits at once, and the checkpoint is as whole as after one."""
    root = project(tmp_path)
    args = [*COMMUNITIES, "--verifier", verifier, "--workers", "2" if verifier == "facts" else "1"]
    saved = interrupted(root, args, signals)
    report = resumed(root, args)
    assert report["resumed_claims"] == saved and len(report["results"]) == 66


@pytest.mark.parametrize(
    ("signal_at", "number"),
    [
        ("veritrail_graphrag.adapters.graphrag.tables:read_table", "SIGINT"),
        ("veritrail_graphrag.audit.claims:split_claims", "SIGINT"),
        ("veritrail_graphrag.report.outputs:write_html", "SIGTERM"),
    ],
    ids=["reading tables", "extracting claims", "writing the report, SIGTERM"],
)
def test_a_signal_in_any_phase_stops_the_audit(tmp_path: Path, signal_at: str, number: str) -> None:
    """SIGTERM (a CI job cancelled, a `kill`) is Ctrl-C: the same line, the checkpoint kept, no lock
    left behind. Stopped while writing, no report file is written (all or none); the checkpoint
    holds every claim, and the same command writes the report from it without verifying again."""
    root = project(tmp_path)
    saved, total, _ = stopped(start(root, COMMUNITIES, signal_at, number), root)
    if "write_html" not in signal_at:
        assert saved == total == 0 and not list(folder(root).glob("report.*"))
        return
    assert saved == total == 66
    assert [p.name for p in folder(root).iterdir() if not p.name.endswith(".partial.jsonl")] == []
    assert resumed(root, COMMUNITIES)["resumed_claims"] == 66


def test_ctrl_c_stops_an_llm_claim_extraction_waiting_on_the_model(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """Before any claim is verified: the extraction's calls in flight are cancelled, nothing is saved
    but the model's answers (cached), and the line says so."""
    fake_openai.latency = 60.0
    root = project(tmp_path, fake_openai.url)
    process = start(root, [*COMMUNITIES, "--verifier", "llm"])
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None and not fake_openai.count:
        time.sleep(0.01)
    time.sleep(0.2)  # the calls now sent wait on the model
    assert {view.task for view in fake_openai.views()} == {"claim extraction"}
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    saved, _, line = stopped(process, root, sent)
    fake_openai.latency = 0.0
    assert saved == 0 and "no claim was verified yet (model answers received so far are cached)" in line


def test_ctrl_c_stops_an_llm_index_audit_waiting_on_the_model(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """Calls in flight are cancelled, not waited for: once two claims are saved the fake server
    takes 60 s an answer, and the audit still stops within moments."""
    root = project(tmp_path, fake_openai.url)
    args = [*COMMUNITIES, "--verifier", "llm", "--concurrency", "4"]

    def slow_answers() -> None:
        fake_openai.latency = 60.0
        time.sleep(0.5)  # the calls now sent wait on the model

    fake_openai.latency = 0.02
    saved = interrupted(root, args, [signal.SIGINT], claims=None, before=slow_answers)
    fake_openai.latency = 0.0
    report = resumed(root, args)
    assert report["resumed_claims"] == saved and len(report["results"]) > saved
