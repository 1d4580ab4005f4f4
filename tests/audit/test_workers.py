"""Claims verified in worker processes (`--workers`): the report, failures, checkpoint and resume of
one process. Few and small: each test forks processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from samples import copy_sample
from test_audit_resume import FailsOn, audit, checkpoints

import veritrail_graphrag as v
from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.errors import UsageError


def test_two_workers_write_the_report_of_one_process(tmp_path: Path) -> None:
    root = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    reports = {n: v.audit_index(root, communities=[45, 46], workers=n, out=tmp_path / f"w{n}") for n in (1, 2)}
    one, two = (json.loads((tmp_path / f"w{n}" / "report.json").read_text()) for n in (1, 2))
    assert len(reports[1].results) > 4 and [r.verdict for r in reports[1].results] == [
        r.verdict for r in reports[2].results
    ]
    apart = {"created"}  # the time it was written
    assert {k: val for k, val in one.items() if k not in apart} == {k: val for k, val in two.items() if k not in apart}


NESTED_LOOPS = """
import sys
import nest_asyncio2

import veritrail_graphrag as v

nest_asyncio2.apply()  # as importing graphrag does (graphrag_llm), in `veritrail graphrag query` for one
root, out = sys.argv[1:]
print(len(v.audit_index(root, communities=[45, 46], workers=2, out=out).results))
"""


def test_workers_audit_in_a_process_whose_asyncio_is_patched_for_nested_loops(tmp_path: Path) -> None:
    """With nest_asyncio2 applied, `asyncio.run` in a forked worker ran the parent's own event loop
    (its tasks, its epoll): claims went missing, or the audit hung."""
    pytest.importorskip("nest_asyncio2")
    root = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    one = v.audit_index(root, communities=[45, 46], workers=1, out=tmp_path / "w1")
    done = subprocess.run(
        [sys.executable, "-c", NESTED_LOOPS, str(root), str(tmp_path / "w2")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [str(len(one.results))]


def test_a_claim_failing_in_a_worker_is_recorded_and_the_others_finish(tmp_path: Path) -> None:
    report = audit(FailsOn("c3"), tmp_path / "report.json", workers=2)
    assert [f.claim.id for f in report.failed] == ["c3"] and "connection dropped" in report.failed[0].error
    assert [r.claim.id for r in report.results] == ["c1", "c2", "c4"]


def test_finished_claims_are_in_the_checkpoint_and_a_rerun_resumes_them(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    seen: list[str] = []

    def stop_after_two(result: ClaimResult) -> None:
        seen.append(result.claim.id)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        audit(FailsOn(None), report, workers=2, on_result=stop_after_two)
    assert not report.exists()
    (checkpoint,) = checkpoints(report)
    assert len(checkpoint.read_text().splitlines()) == 1 + 2  # the header, the two claims finished
    resumed = audit(FailsOn(None), report, workers=2)
    alone = audit(FailsOn(None), tmp_path / "alone.json", workers=1)
    assert resumed.resumed_claims == 2
    assert [r.model_dump() for r in resumed.results] == [r.model_dump() for r in alone.results]


def test_workers_are_for_the_offline_verifiers() -> None:
    with pytest.raises(UsageError, match="--workers applies to the offline verifiers only"):
        v.audit_index("anywhere", verifier="llm", workers=2)
