"""The CI gates' decisions on hand-built audits: the Wilson interval, thresholds, regressions."""

from __future__ import annotations

import math

import pytest

from veritrail_graphrag.compare import stats
from veritrail_graphrag.compare.audits import Audit, ClaimRow
from veritrail_graphrag.compare.compute import compare
from veritrail_graphrag.compare.gate import exceeded_thresholds, regression, share
from veritrail_graphrag.engine.trail import ClaimResult, StopReason
from veritrail_graphrag.models import Claim, Verdict


def test_the_wilson_interval_against_the_formula() -> None:
    # 3 of 10, z = 1.95996: centre (0.3 + z²/20) / (1 + z²/10) = 0.3808, half-width 0.2729
    z = 1.959963984540054
    centre = (0.3 + z * z / 20) / (1 + z * z / 10)
    half = z / (1 + z * z / 10) * math.sqrt(0.3 * 0.7 / 10 + z * z / 400)
    assert stats.proportion_interval(3, 10) == pytest.approx((centre - half, centre + half))
    assert stats.proportion_interval(3, 10) == pytest.approx((0.1078, 0.6032), abs=1e-4)
    low, high = stats.proportion_interval(0, 12)  # not [0, 0]: 12 claims cannot make it certain
    assert low == 0 and high == pytest.approx(0.2425, abs=1e-4)
    assert all(math.isnan(x) for x in stats.proportion_interval(0, 0))
    assert share(3, 10) == "3 of 10 claims, 30.0% (95% CI 10.8-60.3%)"


def _result(number: int, verdict: Verdict, stages: list[int] | None) -> ClaimResult:
    return ClaimResult(
        claim=Claim(id=f"c{number}", text=f"claim number {number}"), terminal="t", verdict=verdict, reasoning="r",
        error_stages=stages, stop_reason=StopReason.ROOTS_REACHED, iterations=[],
    )  # fmt: skip


def test_a_threshold_is_exceeded_above_it_not_at_it() -> None:
    nfs = Verdict.NOT_FULLY_SUPPORTED
    results = [_result(0, nfs, [4]), _result(1, nfs, [2, 4]), _result(2, nfs, None)]
    results += [_result(i, Verdict.FULLY_SUPPORTED, []) for i in range(3, 9)] + [_result(9, Verdict.INCONCLUSIVE, [])]
    assert exceeded_thresholds(results, 0.3, {4: 0.2, 2: 0.1}) == []  # 3/10, 2/10, 1/10: all at the limit
    lines = exceeded_thresholds(results, 0.29, {4: 0.19, 2: 0.1})
    assert lines == [
        "--max-unsupported-rate 0.29 exceeded: Not Fully Supported in 3 of 10 claims, 30.0% (95% CI 10.8-60.3%)",
        f"--max-stage-rate 4=0.19 exceeded: an error at stage 4 in {share(2, 10)}",
    ]
    assert exceeded_thresholds([], 0.0, {4: 0.0}) == []


def _audit(label: str, flagged_at: dict[int, int], supported: int) -> Audit:
    claims = [
        ClaimRow(id=f"{stage}-{i}", text=f"claim {stage} {i}", terminal="t", verdict=Verdict.NOT_FULLY_SUPPORTED,
                 error_stages=[stage])
        for stage, n in flagged_at.items()
        for i in range(n)
    ] + [ClaimRow(id=f"ok{i}", text=f"ok {i}", terminal="t", verdict=Verdict.FULLY_SUPPORTED, error_stages=[])
         for i in range(supported)]  # fmt: skip
    return Audit(label=label, paths=[label], verifier="lexical", verifier_settings={}, claims=claims)


def _regression(old: Audit, new: Audit) -> str | None:
    comparison = compare([old, new], resamples=50)
    return regression(comparison.pairs[0], *comparison.audits)


def test_a_regression_needs_a_higher_rate_beyond_noise_and_names_the_stage_that_rose_most() -> None:
    old = _audit("old", {3: 2, 4: 2}, 26)  # 4 of 30
    assert _regression(old, _audit("same", {3: 2, 4: 2}, 26)) is None
    assert _regression(old, _audit("noise", {3: 2, 4: 4}, 24)) is None  # 6 of 30: p = 0.73
    assert _regression(_audit("worse", {3: 2, 4: 14}, 14), old) is None  # lower is better, never a regression
    line = _regression(old, _audit("new", {3: 3, 4: 13}, 14))  # 16 of 30
    assert line is not None and line.startswith(f"regression: Not Fully Supported in {share(16, 30)} of new, against ")
    assert f"{share(4, 30)} of old (Fisher's exact test p = 0.0022 < 0.05)" in line  # scipy: 0.00215
    assert line.endswith("the share of claims with an error rose most at stage 4 (6.7% -> 43.3%)")
    tie = _regression(old, _audit("tie", {3: 9, 4: 9}, 12))
    assert tie is not None and tie.endswith("at stage 3 (6.7% -> 30.0%), stage 4 (6.7% -> 30.0%)")
