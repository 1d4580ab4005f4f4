"""The comparison statistics against values worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from veritrail_graphrag.compare import stats
from veritrail_graphrag.compare.audits import Audit, ClaimRow, pool
from veritrail_graphrag.compare.compute import compare


def test_stage_matrix_and_rates_count_a_claim_once_per_stage_it_names() -> None:
    matrix = stats.stage_matrix([[4], [4, 6], [6], [2]], [2, 4, 6])
    assert matrix.tolist() == [[False, True, False], [False, True, True], [False, False, True], [True, False, False]]
    assert stats.stage_rates(matrix).tolist() == [0.25, 0.5, 0.5]
    assert np.isnan(stats.stage_rates(stats.stage_matrix([], [4, 6]))).all()


def test_jensen_shannon_in_bits() -> None:
    assert stats.js_divergence(np.array([1.0, 0.0]), np.array([0.0, 1.0])) == pytest.approx(1.0)
    assert stats.js_divergence(np.array([2 / 3, 2 / 3]), np.array([0.3, 0.3])) == pytest.approx(0.0)
    # p = (1/2, 1/2), q = (1, 0), m = (3/4, 1/4):
    # KL(p||m) = 1/2 log2(2/3) + 1/2 log2(2) = 0.2075; KL(q||m) = log2(4/3) = 0.4150; JSD = 0.3113
    expected = 0.5 * (0.5 * math.log2(2 / 3) + 0.5 + math.log2(4 / 3))
    assert stats.js_divergence(np.array([0.5, 0.5]), np.array([1.0, 0.0])) == pytest.approx(expected)
    assert expected == pytest.approx(0.3113, abs=1e-4)
    assert math.isnan(stats.js_divergence(np.array([0.0, 0.0]), np.array([1.0, 0.0])))


def test_spearman_of_stage_rates() -> None:
    assert stats.spearman(np.array([0.1, 0.5, 0.4]), np.array([0.2, 0.6, 0.3])) == pytest.approx(1.0)
    assert stats.spearman(np.array([0.1, 0.2, 0.3]), np.array([0.3, 0.2, 0.1])) == pytest.approx(-1.0)
    assert math.isnan(stats.spearman(np.array([0.5, 0.5]), np.array([0.1, 0.9])))


def test_fisher_exact_on_the_nfs_rate() -> None:
    # Fisher's tea-tasting table [[3, 1], [1, 3]]: two-sided p = 34/70 = 0.4857
    assert stats.nfs_rate_test(3, 4, 1, 4) == pytest.approx(34 / 70)
    assert stats.nfs_rate_test(0, 50, 50, 50) < 1e-20
    assert stats.nfs_rate_test(5, 10, 5, 10) == pytest.approx(1.0)


def test_bootstrap_intervals_are_seeded_and_about_as_wide_as_the_normal_approximation() -> None:
    matrix = stats.stage_matrix([[4]] * 50 + [[6]] * 50, [4, 6])
    low, high = stats.rate_intervals(matrix)
    assert (low < 0.5).all() and (high > 0.5).all()
    width = 2 * 1.96 * math.sqrt(0.25 / 100)  # 0.196
    assert high - low == pytest.approx([width, width], abs=0.04)
    assert stats.rate_intervals(matrix)[0].tolist() == low.tolist()  # same seed, same interval
    certain = stats.stage_matrix([[4]] * 20, [4, 6])
    assert [x.tolist() for x in stats.rate_intervals(certain)] == [[1.0, 0.0], [1.0, 0.0]]
    js_low, js_high = stats.js_interval(matrix, certain)
    assert js_low <= stats.js_divergence(stats.stage_rates(matrix), stats.stage_rates(certain)) <= js_high


def _audit(label: str, flagged_at: dict[int, int], supported: int) -> Audit:
    claims = [
        ClaimRow(id=f"{label}{stage}-{i}", text=f"claim {stage} {i}", terminal="t", verdict="Not Fully Supported",
                 error_stages=[stage])
        for stage, n in flagged_at.items()
        for i in range(n)
    ] + [ClaimRow(id=f"{label}ok{i}", text=f"ok {i}", terminal="t", verdict="Fully Supported", error_stages=[])
         for i in range(supported)]  # fmt: skip
    return Audit(label=label, paths=[label], verifier="lexical", verifier_settings={}, claims=claims)


def test_groups_pool_claims_so_each_run_weighs_by_its_claim_count() -> None:
    small = _audit("a", {4: 5}, 5)  # 10 claims, all flagged ones at stage 4
    large = _audit("b", {6: 15}, 15)  # 30 claims, all flagged ones at stage 6
    pooled = pool("v1", [small, large])
    other = _audit("c", {4: 1}, 1)
    result = compare([pooled, other])
    rates = {r.stage: r.rate for r in result.audits[0].stages}
    assert rates == {4: 0.25, 6: 0.75}  # not (1.0 + 0.0) / 2 per stage
    assert result.audits[0].claims == 40 and result.audits[0].nfs_rate == 0.5


def test_claims_not_traced_to_the_source_are_counted_apart_and_not_in_the_nfs_rate() -> None:
    from veritrail_graphrag.compare.render import render_markdown, tables

    audit = _audit("a", {4: 2}, 2)
    audit.claims += [
        ClaimRow(id=f"u{i}", text=f"u {i}", terminal="t", verdict="Inconclusive", error_stages=[], not_traced=True)
        for i in range(3)
    ]
    result = compare([audit, _audit("b", {4: 2}, 2)])
    first = result.audits[0]
    assert first.not_traced == 3 and first.verdicts["Inconclusive"] == 3 and first.nfs_rate == round(2 / 7, 4)
    markdown = render_markdown(result, None)
    assert "| 2/2/3 (3 not traced) |" in markdown
    assert "counted in Inc, not in the NFS rate, the stage rates or --fail-on-regression" in markdown
    cells = [cell for table in tables(result) for column in table.columns for cell in column.cells]
    assert "2/2/3 (3 not traced)" in cells
