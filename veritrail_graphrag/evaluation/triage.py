"""What a reviewer triaging flags needs to know of a verifier, with 95% intervals. Pure functions.

On a real index most sentences of a report are true, and many say nothing checkable ("this
community centres on ..."). A reviewer acts on Not Fully Supported flags, so the figures that
matter are how many flags are right (precision), how many invented facts get one (recall), what
share of true claims raises a false alarm, and how much is left Inconclusive. Here a *flag* is a
Not Fully Supported verdict only: an Inconclusive verdict asks for a look, it does not accuse.
Claims labelled uncheckable have no right answer, so a flag on one is counted on its own and
enters neither precision nor recall.

Intervals are Wilson score intervals (95%, the one `compare` computes with scipy): defined at 0
and at n, and sound for the small counts of one index. They treat claims as independent; claims
of one report are not (an invented relation is often restated in several sentences), so read
them as a lower bound on the uncertainty.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from veritrail_graphrag.compare.stats import proportion_interval


def wilson(count: int, total: int) -> tuple[float, float]:
    """The Wilson score interval of `count` successes in `total` trials; (0, 1) when `total` is 0
    (no claim of that kind: anything is possible)."""
    return (0.0, 1.0) if total == 0 else proportion_interval(count, total)


class Rate(BaseModel):
    """`count` of `total`, with its Wilson 95% interval; `rate` is None when `total` is 0."""

    count: int
    total: int
    rate: float | None
    low: float
    high: float


def rate(count: int, total: int) -> Rate:
    low, high = wilson(count, total)
    return Rate(count=count, total=total, rate=count / total if total else None, low=low, high=high)


class TriageMetrics(BaseModel):
    """A reviewer's figures over one set of claims labelled supported, unsupported or uncheckable."""

    claims: int
    supported: int
    unsupported: int
    uncheckable: int
    precision: Rate = Field(description="flags on unsupported claims, of flags on supported or unsupported ones")
    recall: Rate = Field(description="unsupported claims flagged")
    false_alarms: Rate = Field(description="supported claims flagged")
    inconclusive: Rate = Field(description="Inconclusive verdicts, of all claims")
    uncheckable_flagged: Rate = Field(description="uncheckable claims flagged")


def triage(labels: Sequence[str], flagged: Sequence[bool], inconclusive: Sequence[bool]) -> TriageMetrics:
    """`labels[i]` is "supported", "unsupported" or "uncheckable"; `flagged[i]` whether claim i was
    judged Not Fully Supported, `inconclusive[i]` whether it was Inconclusive."""
    if not len(labels) == len(flagged) == len(inconclusive):
        raise ValueError("labels, flagged and inconclusive must have the same length")
    unknown = sorted(set(labels) - {"supported", "unsupported", "uncheckable"})
    if unknown:
        raise ValueError(f"unknown labels: {', '.join(unknown)}")
    rows = list(zip(labels, flagged, strict=True))

    def count(label: str, flag: bool | None = None) -> int:
        return sum(lab == label and (flag is None or f is flag) for lab, f in rows)

    hits, false = count("unsupported", True), count("supported", True)
    return TriageMetrics(
        claims=len(rows),
        supported=count("supported"),
        unsupported=count("unsupported"),
        uncheckable=count("uncheckable"),
        precision=rate(hits, hits + false),
        recall=rate(hits, count("unsupported")),
        false_alarms=rate(false, count("supported")),
        inconclusive=rate(sum(inconclusive), len(rows)),
        uncheckable_flagged=rate(count("uncheckable", True), count("uncheckable")),
    )
