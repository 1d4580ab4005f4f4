"""The statistics of comparing audits (the paper's appendix H), as pure functions of arrays.

A claim's error stages are a row of booleans over the stages compared (a claim may name several).
The rate of stage s is the share of flagged claims with a named stage that name s; across several
runs of one version, claims are pooled, which weights each run by its claim count. Intervals are
bootstraps over claims (scipy's percentile bootstrap, seeded); divergence is Jensen-Shannon in bits
between the rates normalised to a distribution; a change of the Not Fully Supported rate is tested
with Fisher's exact test on the 2x2 table. A single share of claims (what a CI threshold measures)
gets a Wilson score interval.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from scipy import stats
from scipy.spatial.distance import jensenshannon

RESAMPLES = 1000
SEED = 20261122
CONFIDENCE = 0.95

Matrix = NDArray[np.bool_]


def stage_matrix(stage_lists: Sequence[Sequence[int]], stages: Sequence[int]) -> Matrix:
    """One row per flagged claim with a named stage, one column per stage: does the claim name it."""
    column = {stage: i for i, stage in enumerate(stages)}
    matrix = np.zeros((len(stage_lists), len(stages)), dtype=bool)
    for row, named in enumerate(stage_lists):
        for stage in named:
            matrix[row, column[stage]] = True
    return matrix


def stage_rates(matrix: Matrix) -> NDArray[np.float64]:
    """p_s: the share of claims naming stage s (NaN for every stage when there is no claim)."""
    if matrix.shape[0] == 0:
        return np.full(matrix.shape[1], np.nan)
    return np.asarray(matrix.mean(axis=0), dtype=float)


def rate_intervals(
    matrix: Matrix, resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """95% percentile-bootstrap interval of each stage rate, resampling claims."""
    stages = matrix.shape[1]
    if matrix.shape[0] < 2:
        rates = stage_rates(matrix)
        return rates.copy(), rates.copy()
    result = stats.bootstrap(
        (matrix.astype(float),),
        lambda sample, axis: np.mean(sample, axis=axis),
        axis=0,
        n_resamples=resamples,
        confidence_level=CONFIDENCE,
        method="percentile",
        rng=np.random.default_rng(seed),
        vectorized=True,
    )
    low = np.asarray(result.confidence_interval.low, dtype=float).reshape(stages)
    high = np.asarray(result.confidence_interval.high, dtype=float).reshape(stages)
    return low, high


def _distribution(rates: NDArray[np.float64]) -> NDArray[np.float64] | None:
    total = float(np.nansum(rates))
    if not np.isfinite(total) or total <= 0:
        return None
    return np.nan_to_num(rates) / total


def js_divergence(rates_a: NDArray[np.float64], rates_b: NDArray[np.float64]) -> float:
    """Jensen-Shannon divergence in bits (0 = same distribution, 1 = disjoint); NaN if one is empty."""
    a, b = _distribution(rates_a), _distribution(rates_b)
    if a is None or b is None:
        return float("nan")
    return float(jensenshannon(a, b, base=2) ** 2)


def js_interval(
    matrix_a: Matrix, matrix_b: Matrix, resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[float, float]:
    """95% bootstrap interval of the divergence, resampling each audit's claims independently."""
    if matrix_a.shape[0] < 2 or matrix_b.shape[0] < 2:
        value = js_divergence(stage_rates(matrix_a), stage_rates(matrix_b))
        return value, value
    result = stats.bootstrap(
        (np.arange(matrix_a.shape[0]), np.arange(matrix_b.shape[0])),  # claims resampled by row index
        lambda rows_a, rows_b: js_divergence(stage_rates(matrix_a[rows_a]), stage_rates(matrix_b[rows_b])),
        n_resamples=resamples,
        confidence_level=CONFIDENCE,
        method="percentile",
        rng=np.random.default_rng(seed),
        vectorized=False,
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def spearman(rates_a: NDArray[np.float64], rates_b: NDArray[np.float64]) -> float:
    """Rank correlation of the stage rates; NaN when either has no spread (nothing to rank)."""
    a, b = np.nan_to_num(rates_a), np.nan_to_num(rates_b)
    if len(a) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(stats.spearmanr(a, b).statistic)


def nfs_rate_test(flagged_a: int, claims_a: int, flagged_b: int, claims_b: int) -> float:
    """p-value (two-sided Fisher exact test) that the Not Fully Supported rate is the same."""
    if claims_a == 0 or claims_b == 0:
        return float("nan")
    table = [[flagged_a, claims_a - flagged_a], [flagged_b, claims_b - flagged_b]]
    return float(stats.fisher_exact(table).pvalue)


def proportion_interval(count: int, total: int) -> tuple[float, float]:
    """95% Wilson score interval of count/total (NaN when total is 0). A threshold reads one share
    of often few claims: a bootstrap of 0 flagged in 12 is [0, 0], which claims a certainty that
    12 claims cannot give; Wilson's interval is [0, 24%]."""
    if total == 0:
        return float("nan"), float("nan")
    interval = stats.binomtest(count, total).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return float(interval.low), float(interval.high)
