"""Ctrl-C and SIGTERM stop an index audit within moments, whatever the verifier, keep every finished
claim in the checkpoint, say how to resume, and the same command resumes.

Real signals to a real process auditing the fixture index (copied into a project's `output/`), as
a user's terminal or a CI runner sends them; the LLM verifier talks to the fake OpenAI server.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
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
    root = tmp_path / "project"
    shutil.copytree(INDEX, root / "output", ignore=shutil.ignore_patterns("legacy", "*.csv", "README.md"))
    if endpoint is not None:
        (root / "settings.yaml").write_text(
            "completion_models:\n  default_completion_model:\n    model_provider: openai\n"
            f"    model: test-model\n    api_base: {endpoint}\n    api_key: not-a-real-key\n"
        )
    return root


def folder(root: Path) -> Path:
    return root / ("veritrail" if (root / "settings.yaml").exists() else "output/veritrail") / (
        "index-audit-communities-39-70"
    )


def checkpoint_lines(root: Path) -> int:
    return sum(len(p.read_text().splitlines()) for p in folder(root).glob(".report.json.*.partial.jsonl"))


def interrupted(
    root: Path,
    args: list[str],
    signals: list[signal.Signals],
    claims: int | None = 66,
    before: Callable[[], None] = lambda: None,
) -> int:
    """Start `veritrail audit-index ROOT ARGS`; once two claims are in the checkpoint, call `before`
    and send `signals`. Returns how many claims the checkpoint holds: as many as the process said."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERITRAIL_", "OPENAI_"))}
    process = subprocess.Popen(
        [sys.executable, "-m", "veritrail_graphrag", "audit-index", str(root), *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None and checkpoint_lines(root) < 3:  # header + 2
        time.sleep(0.01)
    before()
    assert process.poll() is None, "the audit ended before it could be interrupted"
    sent = time.monotonic()
    for number in signals:
        process.send_signal(number)
        time.sleep(0.05)
    _, err = process.communicate(timeout=60)
    assert time.monotonic() - sent < STOPS_WITHIN, f"stopped {time.monotonic() - sent:.1f} s after the signal"
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert not list(folder(root).glob(".*.lock")), "the report's lock was left behind"
    told = SAVED.search(" ".join(err.split()))
    assert told is not None, err
    saved = checkpoint_lines(root) - 1
    assert int(told[1]) == saved >= 2 and (claims is None or int(told[2]) == claims)
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
    ids=["facts", "lexical, Ctrl-C twice"],
)
def test_ctrl_c_stops_an_offline_index_audit_and_the_same_command_resumes(
    tmp_path: Path, verifier: str, signals: list[signal.Signals]
) -> None:
    """A second Ctrl-C (lexical) exits at once, and the checkpoint is as whole as after one."""
    root = project(tmp_path)
    args = [*COMMUNITIES, "--verifier", verifier]
    saved = interrupted(root, args, signals)
    report = resumed(root, args)
    assert report["resumed_claims"] == saved and len(report["results"]) == 66


def test_sigterm_is_ctrl_c(tmp_path: Path) -> None:
    """A CI job cancelled or a `kill`: the same line, the checkpoint kept, no lock left behind."""
    interrupted(project(tmp_path), COMMUNITIES, [signal.SIGTERM])


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
