"""An LLM audit killed mid-run (SIGKILL) resumes without re-asking what it already paid for."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from samples import copy_sample
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli

pytest_plugins = ["fake_openai"]
SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "graphrag-christmas-carol"
RUN = Path("output") / "veritrail" / "queries" / "handwritten-1"


def make_project(root: Path, url: str) -> Path:
    copy_sample("graphrag-christmas-carol", root)
    (root / "settings.yaml").write_text(
        "completion_models:\n  default_completion_model:\n    model_provider: openai\n"
        f"    model: test-model\n    api_base: {url}\n    api_key: not-a-real-key\n"
    )
    return root


def results(root: Path) -> list[tuple[str, str]]:
    report = json.loads((root / RUN / "report.json").read_text())
    return [(r["claim"]["text"], r["verdict"]) for r in report["results"]]


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_killed_audit_resumes_from_its_checkpoint(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.latency = 0.05
    reference = make_project(tmp_path / "reference", fake_openai.url)
    assert (
        CliRunner().invoke(cli.app, ["audit", str(reference), "--verifier", "llm", "--concurrency", "2"]).exit_code == 0
    )
    full_run_requests = fake_openai.count

    fake_openai.reset()
    fake_openai.latency = 0.05
    project = make_project(tmp_path / "killed", fake_openai.url)
    checkpoint = project / RUN / ".report.json.partial.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERITRAIL_", "OPENAI_"))}
    process = subprocess.Popen(
        [sys.executable, "-m", "veritrail_graphrag", "audit", str(project), "--verifier", "llm", "--concurrency", "2"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if checkpoint.exists() and len(checkpoint.read_text().splitlines()) >= 3:  # header + 2 claims
            break
        time.sleep(0.02)
    assert process.poll() is None, "the audit finished before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    before_resume = fake_openai.count
    assert not (project / RUN / "report.json").exists()

    resumed = CliRunner().invoke(cli.app, ["audit", str(project), "--verifier", "llm", "--concurrency", "2"])
    assert resumed.exit_code == 0, resumed.output
    report = json.loads((project / RUN / "report.json").read_text())
    assert report["resumed_claims"] >= 2
    assert results(project) == results(reference)
    resume_requests = fake_openai.count - before_resume
    # Finished claims and cached answers are not asked again: only the rest of the work is paid for.
    assert resume_requests < full_run_requests
    assert before_resume + resume_requests <= full_run_requests + 2 * 2  # at most the killed in-flight calls twice
    assert not checkpoint.exists()
