"""Gating in CI on finished audits: one audit's rates against thresholds, a newer audit against an older.

A threshold is exceeded when the measured share of claims is above it: a share anyone can check
by counting the report. The line that says so gives the share's 95% interval, so that 3 flagged
claims in 10 is not read as as clear an excess as 300 in 1,000. A regression asks for more than a
higher rate: the newer audit's Not Fully Supported rate is higher and Fisher's exact test (the
p-value `compare` reports) is below `ALPHA`, so two audits of one index never fail the gate and
noise alone rarely does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from veritrail_graphrag.compare import stats
from veritrail_graphrag.compare.compute import AuditStats, PairStats
from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.models import Verdict

ALPHA = 0.05
_NFS = Verdict.NOT_FULLY_SUPPORTED


def share(count: int, total: int) -> str:
    """`7 of 20 claims, 35.0% (95% CI 18.1-56.7%)`: the count behind the rate, and how sure it is."""
    low, high = stats.proportion_interval(count, total)
    return f"{count} of {total} claims, {100 * count / total:.1f}% (95% CI {100 * low:.1f}-{100 * high:.1f}%)"


def exceeded_thresholds(
    results: Sequence[ClaimResult], max_unsupported_rate: float | None, max_stage_rates: Mapping[int, float]
) -> list[str]:
    """One line per threshold exceeded. Shares are of the claims with a verdict: a claim that could
    not be verified is neither supported nor not, and its own exit code says so."""
    if not results:
        return []
    flagged = [r for r in results if r.verdict is _NFS]
    lines = []
    if max_unsupported_rate is not None and len(flagged) / len(results) > max_unsupported_rate:
        lines.append(
            f"--max-unsupported-rate {max_unsupported_rate:g} exceeded: Not Fully Supported in "
            f"{share(len(flagged), len(results))}"
        )
    for stage, limit in max_stage_rates.items():
        count = sum(stage in (r.error_stages or []) for r in flagged)
        if count / len(results) > limit:
            measured = share(count, len(results))
            lines.append(f"--max-stage-rate {stage}={limit:g} exceeded: an error at stage {stage} in {measured}")
    return lines


def untraced_note(results: Sequence[ClaimResult]) -> str | None:
    """How the rate gates treat Inconclusive claims not traced to the source: not as unsupported
    (nothing was found wrong in them), which a user gating on a rate must be told, since the
    paper's rule would have flagged them. None when there are none."""
    count = sum(r.not_traced for r in results)
    if not count:
        return None
    return (
        f"the rate gates count Not Fully Supported claims only: {share(count, len(results))} are Inconclusive "
        "and not traced to the source (no source text yielded evidence), and are not counted; "
        "--fail-on-unsupported fails on them"
    )


def regression(pair: PairStats, old: AuditStats, new: AuditStats) -> str | None:
    """The line that fails `compare --fail-on-regression`, or None. It names the stage(s) whose
    share of claims rose most: where to look first (a claim may name several stages)."""
    flagged_old, flagged_new = old.verdicts[_NFS.value], new.verdicts[_NFS.value]
    if not old.claims or not new.claims or flagged_new / new.claims <= flagged_old / old.claims:
        return None
    if pair.nfs_p_value is None or pair.nfs_p_value >= ALPHA:
        return None
    shares = {
        b.stage: (a.flagged / old.claims, b.flagged / new.claims) for a, b in zip(old.stages, new.stages, strict=True)
    }
    top = max((after - before for before, after in shares.values()), default=0.0)
    if top > 0:
        where = "the share of claims with an error rose most at " + ", ".join(
            f"stage {stage} ({100 * before:.1f}% -> {100 * after:.1f}%)"
            for stage, (before, after) in shares.items()
            if math.isclose(after - before, top)
        )
    else:
        where = "no error stage's share rose (the added flags name no stage)"
    return (
        f"regression: Not Fully Supported in {share(flagged_new, new.claims)} of {new.label}, against "
        f"{share(flagged_old, old.claims)} of {old.label} (Fisher's exact test p = {pair.nfs_p_value:.4f} < "
        f"{ALPHA}); {where}"
    )
