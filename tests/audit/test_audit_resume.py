"""An audit records claims its verifier could not judge and resumes without re-asking the others."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from scripted import ScriptedVerifier

from veritrail_graphrag import DAG, Claim, TrailConfig, VeriTrail, event_loop
from veritrail_graphrag.audit.run import run_audit
from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.report.model import AuditReport

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "handwritten-hierarchical" / "dag.json"
CLAIMS = [Claim(id=f"c{i}", text=f"ferry claim {i}") for i in range(1, 5)]


def checkpoints(report: Path) -> list[Path]:
    return sorted(report.parent.glob(f".{report.name}.*.partial.jsonl"))


class FailsOn(ScriptedVerifier):
    """Fails the verdict of one claim (or none), after the other claims have finished."""

    def __init__(self, claim_id: str | None) -> None:
        super().__init__("ferry")
        self.claim_id = claim_id

    async def judge(self, claim, excerpts):  # type: ignore[no-untyped-def]
        if claim.id == self.claim_id:
            await asyncio.sleep(0.05)
            raise ConnectionError("connection dropped for good")
        return await super().judge(claim, excerpts)


def audit(
    verifier: ScriptedVerifier,
    report: Path,
    config: TrailConfig | None = None,
    resume: bool = True,
    workers: int = 1,
    on_result: Callable[[ClaimResult], None] | None = None,
) -> AuditReport:
    """The scripted audit of the four claims; `workers` processes verify them (`test_workers.py`)."""
    return event_loop.run(
        run_audit(
            VeriTrail(verifier, config),
            DAG.from_json(SAMPLE),
            CLAIMS,
            "final",
            source=str(SAMPLE),
            verifier_name="scripted",
            report_path=report,
            markdown_path=report.with_suffix(".md"),
            resume=resume,
            workers=workers,
            on_result=on_result,
        )
    )


def test_a_failed_claim_is_recorded_not_guessed_and_a_rerun_retries_only_it(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    first = audit(FailsOn("c3"), report)
    assert [f.claim.id for f in first.failed] == ["c3"]
    assert "connection dropped for good" in first.failed[0].error
    assert [r.claim.id for r in first.results] == ["c1", "c2", "c4"]
    assert first.summary.claims == 4 and first.summary.failed == 1
    assert "could not be verified" in report.with_suffix(".md").read_text()
    assert len(checkpoints(report)) == 1

    healthy = FailsOn(None)
    second = audit(healthy, report)
    assert healthy.decompose_calls == ["ferry claim 3"]
    assert second.resumed_claims == 3 and second.failed == []
    assert [r.claim.id for r in second.results] == ["c1", "c2", "c3", "c4"]
    assert checkpoints(report) == []


def test_checkpoint_for_other_traversal_settings_is_not_reused(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    audit(FailsOn("c3"), report)
    again = FailsOn(None)
    assert audit(again, report, TrailConfig(q=2)).resumed_claims == 0
    assert len(again.decompose_calls) == 4


def test_checkpoint_of_another_verifier_is_not_reused(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    audit(FailsOn("c3"), report)
    other = ScriptedVerifier("ferry")  # another verifier class: its answers may differ
    assert audit(other, report).resumed_claims == 0


def test_concurrency_does_not_invalidate_the_checkpoint(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    audit(FailsOn("c3"), report, TrailConfig(concurrency=2))
    assert audit(FailsOn(None), report, TrailConfig(concurrency=7)).resumed_claims == 3


def test_torn_lines_are_ignored_and_no_resume_starts_over(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    audit(FailsOn("c3"), report)
    with checkpoints(report)[0].open("a") as handle:
        handle.write('{"claim": {"id": "c3", "te')  # a write torn by a kill
    resumed = audit(FailsOn("c3"), report)
    assert resumed.resumed_claims == 3 and [f.claim.id for f in resumed.failed] == ["c3"]
    assert audit(FailsOn(None), report).resumed_claims == 3

    audit(FailsOn("c3"), report)
    fresh = FailsOn(None)
    assert audit(fresh, report, resume=False).resumed_claims == 0
    assert len(fresh.decompose_calls) == 4
