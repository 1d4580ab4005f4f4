"""What the terminal says after an audit: the claims, the counts read right, and where the files are."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import AuditedSample
from rich.console import Console

from veritrail_graphrag.cli import console


@pytest.fixture
def screen(monkeypatch: pytest.MonkeyPatch) -> Console:
    recorded = Console(record=True, width=100)
    monkeypatch.setattr(console, "stdout", recorded)
    return recorded


def _printed(audited: AuditedSample, screen: Console, report: object = None) -> list[str]:
    folder = audited.folder
    console.print_audit(report or audited.report, audited.dag.stage, folder / "report.json", folder / "report.md")
    return screen.export_text().splitlines()


def test_the_last_lines_name_report_html_first_then_the_other_files(
    audited_sample: AuditedSample, screen: Console
) -> None:
    lines = _printed(audited_sample, screen)
    folder = audited_sample.folder
    assert lines[-2] == f"Open {folder / 'report.html'} in a browser (one file, no network)."
    assert lines[-1] == f"Also written: report.md, report.json, claims.parquet, evidence.parquet in {folder}"
    text = " ".join(" ".join(lines).split())
    assert "Evidence: per iteration, toward the source (<-), stage(nodes that gave evidence)." in text
    assert "several stages" not in text  # here each flagged claim names one stage


def test_stage_counts_above_the_flagged_claims_say_why(audited_sample: AuditedSample, screen: Console) -> None:
    report = audited_sample.report
    flagged = report.summary.verdicts["Not Fully Supported"]
    summary = report.summary.model_copy(update={"error_stages": {4: flagged, 3: 1}})
    lines = _printed(audited_sample, screen, report.model_copy(update={"summary": summary}))
    assert f"Error stages: stage 4: {flagged}, stage 3: 1 (a claim can name several stages)." in " ".join(" ".join(lines).split())


def test_a_report_without_markdown_names_its_one_file(audited_sample: AuditedSample, screen: Console) -> None:
    path = Path("somewhere") / "dag.report.json"
    console.print_audit(audited_sample.report, audited_sample.dag.stage, path, None)
    assert screen.export_text().splitlines()[-1] == f"Report: {path}"


def test_a_huge_claim_is_cut_on_screen_and_kept_whole_in_the_report(
    audited_sample: AuditedSample, screen: Console
) -> None:
    report = audited_sample.report
    huge = " ".join(["Scrooge counts his coins again"] * 1600)  # 8,000 words
    first = report.results[0]
    results = [first.model_copy(update={"claim": first.claim.model_copy(update={"text": huge})}), *report.results[1:]]
    lines = _printed(audited_sample, screen, report.model_copy(update={"results": results}))
    assert len(lines) < 80
    assert f"(+{len(huge) - console.TEXT_LIMIT:,} characters)" in " ".join(" ".join(lines).split())


def test_without_a_terminal_progress_is_a_line_every_few_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A CI log shows no bar: one line per interval, with the rate and the time left."""
    recorded = Console(record=True, width=200)
    monkeypatch.setattr(console, "stderr", recorded)
    with console.Shown("claims", interval=0.05, terminal=False) as shown:
        shown.update(0, 3_362)
        shown.update(120, 3_362)  # claims taken from a checkpoint come at once
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(recorded.export_text(clear=False).splitlines()) < 2:
            time.sleep(0.01)
    lines = recorded.export_text().splitlines()
    assert lines[0] == "verifying claims: 120 of 3,362 done"
    assert lines[1].startswith("verifying claims: 120 of 3,362 done, none finished in the last ")

    shown = console.Shown("claims", terminal=False)
    shown.update(120, 3_362)
    assert shown.line(100.0) == "verifying claims: 120 of 3,362 done"  # the rate is measured from here
    shown.update(240, 3_362)
    assert shown.line(160.0) == "verifying claims: 240 of 3,362 done, 2 a second, about 26 min left"


def test_at_80_columns_only_file_paths_run_past_the_edge_and_skipped_ids_are_explained(
    audited_sample: AuditedSample, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Paths stay whole on their own lines (to copy them); everything else wraps between words."""
    narrow = Console(record=True, width=80)
    monkeypatch.setattr(console, "stdout", narrow)
    folder = audited_sample.folder
    console.print_audit(audited_sample.report, audited_sample.dag.stage, folder / "report.json", folder / "report.md")
    lines = narrow.export_text().splitlines()
    assert all(len(line) <= 80 for line in lines[:-2])  # then "Open <path> ..." and "Also written ... <path>"
    assert not any(str(folder) in line for line in lines[:-2])
    text = " ".join(" ".join(lines).split())
    assert "3 sentence(s) are not claims (3 heading(s)), so claim ids skip their numbers." in text
    assert "abstractive claims need --verifier llm" in text  # the verifier's note, wrapped
