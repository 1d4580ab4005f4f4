"""Faults around the audit, end to end through the CLI: nothing lost, nothing mixed, every failure
explained by its exit code and one line.

The model endpoint is the local fake OpenAI server; processes run as the user would run them.
"""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from fake_openai import FakeOpenAI, Fault
from samples import SAMPLES, copy_sample, llm_sample
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli

pytest_plugins = ["fake_openai"]


def run_folder(root: Path) -> Path:
    """Where the sample run's audit goes: the project's veritrail/ when a test made the copy a
    project (an LLM endpoint in settings.yaml), else beside the tables, where the run was saved."""
    base = root if (root / "settings.yaml").is_file() else root / "output"
    return base / "veritrail" / "queries" / "handwritten-1"


runner = CliRunner()


def results(root: Path) -> list[tuple[str, str]]:
    report = json.loads((run_folder(root) / "report.json").read_text())
    return [(r["claim"]["text"], r["verdict"]) for r in report["results"]]


def checkpoint_lines(root: Path) -> int:
    return sum(len(path.read_text().splitlines()) for path in run_folder(root).glob(".report.json.*.partial.jsonl"))


def test_second_audit_stops_and_restarts_report_as_if_run_alone(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """The issue's scenario: an LLM audit runs; a lexical audit with other settings is started on
    the same run folder. It must stop at once (exit 2) naming the other process, and once the LLM
    audit is killed, each audit run again reports exactly what it reports alone; the killed audit
    resumes from its own checkpoint, untouched by the other one, without re-asking finished work."""
    fake_openai.latency = 0.05
    llm = ["audit", "--verifier", "llm", "--concurrency", "2"]
    lexical = ["audit", "--q", "2"]
    alone_llm = llm_sample(tmp_path / "alone-llm", fake_openai.url)
    assert runner.invoke(cli.app, [*llm, str(alone_llm)]).exit_code == 0
    full_run_requests = fake_openai.count
    alone_lexical = copy_sample("graphrag-christmas-carol", tmp_path / "alone-lexical")
    assert runner.invoke(cli.app, [*lexical, str(alone_lexical)]).exit_code == 0

    fake_openai.reset()
    fake_openai.latency = 0.5  # the first audit outlives the second one's index loading
    project = llm_sample(tmp_path / "shared", fake_openai.url)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERITRAIL_", "OPENAI_"))}
    first = subprocess.Popen(
        [sys.executable, "-m", "veritrail_graphrag", *llm, str(project)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and first.poll() is None and checkpoint_lines(project) < 3:  # header + 2
        time.sleep(0.02)

    second = runner.invoke(cli.app, [*lexical, str(project)])
    assert second.exit_code == 2, second.output
    assert first.poll() is None, "the first audit finished before the second one was refused"
    assert f"pid {first.pid}" in second.output and str(run_folder(project)) in second.output
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    before_restarts = fake_openai.count
    assert not (run_folder(project) / "report.json").exists()

    fake_openai.latency = 0.0
    assert runner.invoke(cli.app, [*lexical, str(project)]).exit_code == 0
    assert results(project) == results(alone_lexical)
    restarted = runner.invoke(cli.app, [*llm, str(project)])
    assert restarted.exit_code == 0, restarted.output
    assert results(project) == results(alone_llm)
    assert json.loads((run_folder(project) / "report.json").read_text())["resumed_claims"] >= 2
    restart_requests = fake_openai.count - before_restarts
    # Finished claims and cached answers are not asked again: only the rest of the work is paid for.
    assert restart_requests < full_run_requests
    assert before_restarts + restart_requests <= full_run_requests + 2 * 2  # at most the killed in-flight calls twice
    assert checkpoint_lines(project) == 0


def test_report_path_that_is_a_folder_exits_5_and_keeps_the_checkpoint(tmp_path: Path) -> None:
    project = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    (run_folder(project) / "report.md").mkdir()
    failed = runner.invoke(cli.app, ["audit", str(project)])
    assert failed.exit_code == 5, failed.output
    assert str(run_folder(project) / "report.md") in failed.output and "Is a directory" in failed.output
    assert "Traceback" not in failed.output
    assert not (run_folder(project) / "report.json").exists()  # never one of the pair without the other
    assert checkpoint_lines(project) > 1

    (run_folder(project) / "report.md").rmdir()
    again = runner.invoke(cli.app, ["audit", str(project)])
    assert again.exit_code == 0, again.output
    report = json.loads((run_folder(project) / "report.json").read_text())
    assert report["resumed_claims"] == len(report["results"]) > 0


def test_a_full_disk_leaves_the_previous_report_pair_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    assert runner.invoke(cli.app, ["audit", str(project)]).exit_code == 0
    before = {name: (run_folder(project) / name).read_bytes() for name in ("report.json", "report.md")}
    sync = os.fsync

    def full_disk_for_markdown(fd: int) -> None:
        if ".report.md." in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        sync(fd)

    monkeypatch.setattr(os, "fsync", full_disk_for_markdown)
    failed = runner.invoke(cli.app, ["audit", str(project), "--q", "2"])
    assert failed.exit_code == 5, failed.output
    assert "No space left on device" in failed.output and str(run_folder(project) / "report.md") in failed.output
    assert {name: (run_folder(project) / name).read_bytes() for name in before} == before
    assert not list(run_folder(project).glob(".*.tmp"))
    assert checkpoint_lines(project) > 1


def _joined(frame: pd.DataFrame, column: str) -> None:
    """A list column after a CSV round trip: one text per row."""
    frame[column] = [",".join(ids) for ids in frame[column]]


def _numbered(frame: pd.DataFrame, column: str) -> None:
    """Ids that a spreadsheet turned into numbers."""
    frame[column] = range(len(frame))


def _word_in_row_1(frame: pd.DataFrame, column: str) -> None:
    frame[column] = frame[column].astype(str)
    frame.loc[1, column] = "forty"


@pytest.mark.parametrize(
    ("table", "column", "damage", "expected"),
    [
        ("entities", "text_unit_ids", _joined, "should hold lists, but row 0"),
        ("relationships", "text_unit_ids", _joined, "should hold lists, but row 0"),
        ("entities", "id", _numbered, "should hold texts, but row 0"),
        ("relationships", "source", _numbered, "should hold texts, but row 0"),
        ("community_reports", "community", _word_in_row_1, "should hold integers, but row 1"),
    ],
)
def test_a_column_of_the_wrong_type_is_an_error_naming_file_column_and_row(
    tmp_path: Path, table: str, column: str, damage: Callable[[pd.DataFrame, str], None], expected: str
) -> None:
    project = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    path = project / "output" / f"{table}.parquet"
    frame = pd.read_parquet(path)
    damage(frame, column)
    frame.to_parquet(path)
    result = runner.invoke(cli.app, ["audit", str(project), "--dry-run"])
    assert result.exit_code == 2, result.output
    assert f"{path}: column {column!r} {expected}" in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_every_adapter_refuses_a_field_of_the_wrong_type(tmp_path: Path) -> None:
    """Summary logs, BooookScore files and query runs are read through typed models: a list given
    as a text is refused with the file and the place, as for GraphRAG's tables."""
    log = tmp_path / "summary-log.jsonl"
    lines = (SAMPLES / "hierarchical-christmas-carol" / "summary-log.jsonl").read_text().splitlines()
    damaged = next(i for i, line in enumerate(lines) if json.loads(line).get("inputs"))
    record = json.loads(lines[damaged])
    lines[damaged] = json.dumps(record | {"inputs": ",".join(record["inputs"])})
    log.write_text("\n".join(lines) + "\n")
    result = runner.invoke(cli.app, ["audit", str(log), "--dry-run"])
    assert result.exit_code == 2 and f"{log}, line {damaged + 1}" in result.output and "inputs" in result.output

    book = tmp_path / "booookscore.json"
    book.write_text(json.dumps({"carol": {"summaries_dict": {"0": "one, two"}, "final_summary": "Done."}}))
    result = runner.invoke(cli.app, ["audit", str(book), "--dry-run"])
    assert result.exit_code == 2 and str(book) in result.output and "should be a non-empty list" in result.output

    project = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    run = run_folder(project) / "query_run.json"
    data = json.loads(run.read_text())
    data["batches"][0]["report_ids"] = ",".join(map(str, data["batches"][0]["report_ids"]))
    run.write_text(json.dumps(data))
    result = runner.invoke(cli.app, ["audit", str(project), "--dry-run"])
    assert result.exit_code == 2 and str(run) in result.output and "batches.0.report_ids" in result.output


def _closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # nothing listens there once the probe is closed


def test_a_dead_endpoint_exits_4_naming_url_model_and_attempts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = _closed_port_url()
    project = llm_sample(tmp_path / "carol", url)
    monkeypatch.setenv("VERITRAIL_MAX_ATTEMPTS", "2")
    monkeypatch.setenv("VERITRAIL_BACKOFF_BASE", "0.01")
    result = runner.invoke(cli.app, ["audit", str(project), "--verifier", "llm"])
    assert result.exit_code == 4, result.output
    line = " ".join(result.output.split())
    assert f"{url} (model 'test-model')" in line and "gave up after 2 attempts" in line
    assert "Traceback" not in result.output


def test_a_key_refused_mid_audit_exits_4_and_keeps_what_was_verified(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    project = llm_sample(tmp_path / "carol", fake_openai.url)
    fake_openai.schedule([None] * 25 + [Fault("bad_request", status=401)] * 500)
    result = runner.invoke(cli.app, ["audit", str(project), "--verifier", "llm", "--concurrency", "1"])
    assert result.exit_code == 4, result.output
    assert f"{fake_openai.url} (model 'test-model') refused" in " ".join(result.output.split())
    assert "check the API key" in result.output
    assert checkpoint_lines(project) > 1 and not (run_folder(project) / "report.json").exists()

    fake_openai.reset()  # the key works again
    resumed = runner.invoke(cli.app, ["audit", str(project), "--verifier", "llm", "--concurrency", "1"])
    assert resumed.exit_code == 0, resumed.output
    assert json.loads((run_folder(project) / "report.json").read_text())["resumed_claims"] >= 1


def test_retries_are_shown_while_they_wait(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    project = llm_sample(tmp_path / "carol", fake_openai.url)
    fake_openai.schedule([Fault("rate_limit", retry_after="1")])
    result = runner.invoke(cli.app, ["audit", str(project), "--verifier", "llm", "--concurrency", "1"])
    assert result.exit_code == 0, result.output
    assert "rate limited; retrying in 1.0 s (attempt 2/6)" in " ".join(result.output.split())


def test_ctrl_c_says_how_much_is_saved_and_how_to_resume(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.latency = 0.3
    project = llm_sample(tmp_path / "carol", fake_openai.url)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERITRAIL_", "OPENAI_"))}
    process = subprocess.Popen(
        [sys.executable, "-m", "veritrail_graphrag", "audit", str(project), "--verifier", "llm"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None and checkpoint_lines(project) < 3:
        time.sleep(0.02)
    assert process.poll() is None, "the audit finished before it could be interrupted"
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    told = re.search(r"interrupted: (\d+) of (\d+) claims are saved in the checkpoint; run the same command", err)
    assert told is not None, err
    assert int(told[1]) == checkpoint_lines(project) - 1 >= 2
    assert "Traceback" not in err
