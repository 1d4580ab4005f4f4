"""An interrupted audit resumes from its checkpoint without re-asking finished claims."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from scripted import ScriptedVerifier

from veritrail_graphrag import DAG, Claim, TrailConfig, VerifierError, VeriTrail
from veritrail_graphrag.audit import checkpoint_path, run_audit

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "handwritten-hierarchical" / "dag.json"
CLAIMS = [Claim(id=f"c{i}", text=f"ferry claim {i}") for i in range(1, 5)]


class FailsOn(ScriptedVerifier):
    """Fails the verdict of one claim, after the other claims have finished."""

    def __init__(self, claim_id: str | None) -> None:
        super().__init__("ferry")
        self.claim_id = claim_id

    async def judge(self, claim, excerpts):  # type: ignore[no-untyped-def]
        if claim.id == self.claim_id:
            await asyncio.sleep(0.05)
            raise ConnectionError("killed mid-run")
        return await super().judge(claim, excerpts)


def audit(verifier: ScriptedVerifier, report: Path, config: TrailConfig | None = None, resume: bool = True):  # type: ignore[no-untyped-def]
    dag = DAG.from_json(SAMPLE)
    return asyncio.run(
        run_audit(
            VeriTrail(verifier, config),
            dag,
            CLAIMS,
            "final",
            source=str(SAMPLE),
            verifier_name="scripted",
            report_path=report,
            markdown_path=report.with_suffix(".md"),
            resume=resume,
        )
    )


def test_interrupted_audit_resumes_without_reasking_finished_claims(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    with pytest.raises(VerifierError, match="killed mid-run"):
        audit(FailsOn("c3"), report)
    assert not report.exists()
    assert checkpoint_path(report).exists()

    second = FailsOn(None)  # the same verifier, now healthy
    result = audit(second, report)
    assert {c[0].node_id for c in second.judge_calls}  # it did some work...
    assert {excerpts_claim for excerpts_claim in second.decompose_calls} == {"ferry claim 3"}  # ...only for c3
    assert result.resumed_claims == 3
    assert [r.claim.id for r in result.results] == ["c1", "c2", "c3", "c4"]
    assert report.exists() and report.with_suffix(".md").exists()
    assert not checkpoint_path(report).exists()


def test_checkpoint_for_other_settings_is_not_reused(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    with pytest.raises(VerifierError):
        audit(FailsOn("c3"), report)
    again = FailsOn(None)
    result = audit(again, report, TrailConfig(q=2))
    assert result.resumed_claims == 0
    assert len(again.decompose_calls) == 4


def test_checkpoint_of_another_verifier_is_not_reused(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    with pytest.raises(VerifierError):
        audit(FailsOn("c3"), report)
    other = ScriptedVerifier("ferry")  # another verifier class: its answers may differ
    assert audit(other, report).resumed_claims == 0


def test_concurrency_does_not_invalidate_the_checkpoint(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    with pytest.raises(VerifierError):
        audit(FailsOn("c3"), report, TrailConfig(concurrency=2))
    assert audit(FailsOn(None), report, TrailConfig(concurrency=7)).resumed_claims == 3


def test_no_resume_starts_over_and_torn_lines_are_ignored(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    with pytest.raises(VerifierError):
        audit(FailsOn("c3"), report)
    with checkpoint_path(report).open("a") as handle:
        handle.write('{"claim": {"id": "c3", "te')  # a write torn by a kill
    resumed = FailsOn(None)
    assert audit(resumed, report).resumed_claims == 3

    with pytest.raises(VerifierError):
        audit(FailsOn("c3"), report)
    fresh = FailsOn(None)
    assert audit(fresh, report, resume=False).resumed_claims == 0
    assert len(fresh.decompose_calls) == 4
