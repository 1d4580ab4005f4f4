"""From loaded audits to the comparison: per-audit rates with intervals, and every pair's differences."""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import combinations

import numpy as np
from pydantic import BaseModel, Field

from veritrail_graphrag.compare import stats
from veritrail_graphrag.compare.audits import Audit, ClaimRow
from veritrail_graphrag.models import Verdict


def _number(value: float) -> float | None:
    return None if value is None or not np.isfinite(value) else round(float(value), 4)


class StageRate(BaseModel):
    stage: int
    flagged: int = Field(description="flagged claims naming this stage")
    rate: float | None
    low: float | None
    high: float | None


class AuditStats(BaseModel):
    label: str
    paths: list[str]
    verifier: str
    claims: int = Field(description="claims with a verdict")
    failed: int
    verdicts: dict[str, int]
    not_traced: int = Field(default=0, description="Inconclusive claims not traced to the source (among the verdicts')")
    nfs_rate: float | None
    stages: list[StageRate]
    flagged_with_stage: int
    unlocalized_share: float | None = Field(description="share of flagged claims whose stage could not be named")
    mean_nodes_read: float | None
    calls: int
    cached_calls: int
    reused: float | None = Field(description="share of model calls answered from the cache")
    cost_usd: float | None


class ClaimChange(BaseModel):
    text: str
    terminal_a: str
    terminal_b: str
    verdict_a: str
    verdict_b: str
    stages_a: list[int] | None
    stages_b: list[int] | None


class PairStats(BaseModel):
    a: str
    b: str
    js_divergence: float | None
    js_low: float | None
    js_high: float | None
    spearman: float | None
    nfs_p_value: float | None = Field(description="Fisher's exact test: is the Not Fully Supported rate the same")
    matched: int = Field(description="claims present in both")
    matched_by: str
    flipped: list[ClaimChange]
    moved: list[ClaimChange] = Field(description="flagged in both, with different error stages")
    warning: str | None = None


class Comparison(BaseModel):
    stages: list[int]
    audits: list[AuditStats]
    pairs: list[PairStats]
    warnings: list[str]


def _flagged_stage_lists(audit: Audit) -> list[list[int]]:
    return [c.error_stages for c in audit.claims if c.flagged and c.error_stages]


def _audit_stats(audit: Audit, stages: list[int], resamples: int, seed: int) -> AuditStats:
    verdicts = Counter(c.verdict for c in audit.claims)
    flagged = verdicts.get(Verdict.NOT_FULLY_SUPPORTED, 0)
    matrix = stats.stage_matrix(_flagged_stage_lists(audit), stages)
    rates = stats.stage_rates(matrix)
    low, high = stats.rate_intervals(matrix, resamples, seed)
    total_calls = audit.calls + audit.cached_calls
    return AuditStats(
        label=audit.label,
        paths=audit.paths,
        verifier=audit.verifier,
        claims=len(audit.claims),
        failed=audit.failed,
        verdicts={v.value: verdicts.get(v, 0) for v in Verdict},
        not_traced=sum(c.not_traced for c in audit.claims),
        nfs_rate=_number(flagged / len(audit.claims)) if audit.claims else None,
        stages=[
            StageRate(stage=s, flagged=int(matrix[:, i].sum()), rate=_number(rates[i]), low=_number(low[i]),
                      high=_number(high[i]))
            for i, s in enumerate(stages)
        ],  # fmt: skip
        flagged_with_stage=matrix.shape[0],
        unlocalized_share=_number((flagged - matrix.shape[0]) / flagged) if flagged else None,
        mean_nodes_read=_number(float(np.mean([c.nodes_read for c in audit.claims]))) if audit.claims else None,
        calls=audit.calls,
        cached_calls=audit.cached_calls,
        reused=_number(audit.cached_calls / total_calls) if total_calls else None,
        cost_usd=audit.cost_usd,
    )


def _match(a: Audit, b: Audit) -> tuple[list[tuple[ClaimRow, ClaimRow]], str]:
    """Claims present in both, by normalized text (and terminal, for index audits whose community
    ids line up); a text said twice matches in order of appearance."""
    by_terminal = a.index_audit and b.index_audit and bool({c.terminal for c in a.claims} & {c.terminal for c in b.claims})

    def key(claim: ClaimRow) -> tuple[str, str]:
        return (claim.terminal if by_terminal else "", claim.key)

    waiting: dict[tuple[str, str], list[ClaimRow]] = defaultdict(list)
    for claim in b.claims:
        waiting[key(claim)].append(claim)
    pairs = [(claim, waiting[key(claim)].pop(0)) for claim in a.claims if waiting.get(key(claim))]
    return pairs, "terminal and text" if by_terminal else "normalized text"


def _change(x: ClaimRow, y: ClaimRow) -> ClaimChange:
    return ClaimChange(
        text=x.text, terminal_a=x.terminal, terminal_b=y.terminal, verdict_a=x.verdict, verdict_b=y.verdict,
        stages_a=x.error_stages, stages_b=y.error_stages,
    )  # fmt: skip


def _pair(a: Audit, b: Audit, stages: list[int], resamples: int, seed: int) -> PairStats:
    matrix_a = stats.stage_matrix(_flagged_stage_lists(a), stages)
    matrix_b = stats.stage_matrix(_flagged_stage_lists(b), stages)
    rates_a, rates_b = stats.stage_rates(matrix_a), stats.stage_rates(matrix_b)
    low, high = stats.js_interval(matrix_a, matrix_b, resamples, seed)
    flagged_a = sum(c.flagged for c in a.claims)
    flagged_b = sum(c.flagged for c in b.claims)
    matched, matched_by = _match(a, b)
    warning = None
    if a.judge != b.judge:
        warning = (
            f"{a.label} and {b.label} were judged by different verifiers or settings: part of any "
            "difference may be the judge, not the index"
        )
    return PairStats(
        a=a.label,
        b=b.label,
        js_divergence=_number(stats.js_divergence(rates_a, rates_b)),
        js_low=_number(low),
        js_high=_number(high),
        spearman=_number(stats.spearman(rates_a, rates_b)),
        nfs_p_value=_number(stats.nfs_rate_test(flagged_a, len(a.claims), flagged_b, len(b.claims))),
        matched=len(matched),
        matched_by=matched_by,
        flipped=[_change(x, y) for x, y in matched if x.verdict != y.verdict],
        moved=[
            _change(x, y)
            for x, y in matched
            if x.flagged and y.flagged and sorted(x.error_stages or []) != sorted(y.error_stages or [])
        ],
        warning=warning,
    )


def compare(
    audits: list[Audit], resamples: int = stats.RESAMPLES, seed: int = stats.SEED
) -> Comparison:
    """Every audit's rates, then every pair (in the order given)."""
    stages = sorted({s for audit in audits for row in _flagged_stage_lists(audit) for s in row})
    pairs = [_pair(a, b, stages, resamples, seed) for a, b in combinations(audits, 2)]
    return Comparison(
        stages=stages,
        audits=[_audit_stats(a, stages, resamples, seed) for a in audits],
        pairs=pairs,
        warnings=[p.warning for p in pairs if p.warning],
    )
