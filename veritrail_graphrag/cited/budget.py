"""The information budget of one claim, in bits: pure math, no I/O (METHOD.md section 7).

A verifier model gives P(yes) for a claim twice: without the claim's evidence (the prior q) and
with it (the posterior p). Both are intervals, because a probability read from the top-k
log-probabilities, or estimated from k samples, is only known within bounds.

- required bits = KL(Ber(target) || Ber(q)): what evidence must supply to lift q to the target;
- observed bits = KL(Ber(p) || Ber(q)): what the evidence moved;
- gap = required - observed (positive: under-supported).

KL counts movement in either direction, so evidence that contradicts a plausible claim shows many
observed bits. That is why the status of a claim (`claim_status`) is decided from the intervals
themselves, not from the gap alone: a claim passes only when the posterior's lower bound reaches
the target, the prior's upper bound does not, and belief moved toward yes.

Probabilities are clipped to [CLIP, 1 - CLIP] before any logarithm, so a probability of exactly
0 (a label absent from the top-k) costs about 40 bits instead of infinitely many.
"""

from __future__ import annotations

import math
from enum import StrEnum
from statistics import NormalDist
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

CLIP = 1e-12
BITS = "bits"
Units = Literal["bits", "nats"]


class Probability(BaseModel):
    """A probability known to lie in [min, max]; min == max when it was read exactly."""

    model_config = ConfigDict(frozen=True)

    min: float = Field(ge=0.0, le=1.0)
    max: float = Field(ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _ordered(self) -> Probability:
        if self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        return self

    @classmethod
    def exactly(cls, value: float) -> Probability:
        return cls(min=value, max=value)


class Bits(BaseModel):
    """An amount of information known to lie in [min, max]."""

    model_config = ConfigDict(frozen=True)

    min: float
    max: float
    units: Units = BITS

    def to(self, units: Units) -> Bits:
        """The same amount in `units` (1 bit = ln 2 nats)."""
        scale = {(BITS, "nats"): math.log(2), ("nats", BITS): 1 / math.log(2)}.get((self.units, units), 1.0)
        return Bits(min=self.min * scale, max=self.max * scale, units=units)


def _clip(p: float) -> float:
    return min(max(p, CLIP), 1.0 - CLIP)


def kl_bits(p: float, q: float) -> float:
    """KL(Ber(p) || Ber(q)) in bits."""
    p, q = _clip(p), _clip(q)
    return p * math.log2(p / q) + (1.0 - p) * math.log2((1.0 - p) / (1.0 - q))


def entropy_bits(p: float) -> float:
    """Binary entropy H(p) in bits."""
    p = _clip(p)
    return -p * math.log2(p) - (1.0 - p) * math.log2(1.0 - p)


def _logit_bits(q: float) -> float:
    q = _clip(q)
    return math.log2(q / (1.0 - q))


def log_odds_gain(posterior: Probability, prior: Probability) -> Bits:
    """logit2(p) - logit2(q) over both intervals: how far the evidence moved the odds of YES, in
    bits (monotone in each probability, so the ends are corners)."""
    return Bits(
        min=_logit_bits(posterior.min) - _logit_bits(prior.max),
        max=_logit_bits(posterior.max) - _logit_bits(prior.min),
    )


def gap_bits(target: float, p: float, q: float) -> float:
    """KL(t || q) - KL(p || q), which simplifies to H(p) - H(t) + (p - t) * logit2(q)."""
    return entropy_bits(p) - entropy_bits(target) + (_clip(p) - _clip(target)) * _logit_bits(q)


def required_bits(target: float, prior: Probability) -> Bits:
    """KL(t || q) over q in the prior: convex in q with its minimum 0 at q = t."""
    ends = [kl_bits(target, prior.min), kl_bits(target, prior.max)]
    low = 0.0 if prior.min <= target <= prior.max else min(ends)
    return Bits(min=low, max=max(ends))


def observed_bits(posterior: Probability, prior: Probability) -> Bits:
    """KL(p || q) over the rectangle: jointly convex, so the maximum is at a corner; the minimum
    is 0 when the intervals overlap (p = q is possible), else at the corner closest to p = q."""
    corners = [kl_bits(p, q) for p in (posterior.min, posterior.max) for q in (prior.min, prior.max)]
    overlap = posterior.min <= prior.max and prior.min <= posterior.max
    return Bits(min=0.0 if overlap else min(corners), max=max(corners))


def budget_gap(target: float, posterior: Probability, prior: Probability) -> Bits:
    """The exact range of required - observed over both intervals (tighter than subtracting the
    two ranges, which ignores that both depend on the same prior).

    For a fixed q the gap is linear in logit(q), so q is at an end of its interval; for a fixed q
    it is concave in p with its maximum at p = q, so the maximum takes p = q clamped into the
    posterior's interval and the minimum takes an end."""
    qs = (prior.min, prior.max)
    low = min(gap_bits(target, p, q) for p in (posterior.min, posterior.max) for q in qs)
    high = max(gap_bits(target, min(max(q, posterior.min), posterior.max), q) for q in qs)
    return Bits(min=low, max=high)


def wilson(successes: int, trials: int, confidence: float = 0.95) -> Probability:
    """Wilson score interval for a share of samples: never outside [0, 1], sensible at 0 and n."""
    if trials <= 0:
        return Probability(min=0.0, max=1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes out of {trials} trials")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    share = successes / trials
    centre = share + z * z / (2 * trials)
    spread = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials))
    scale = 1 + z * z / trials
    low = 0.0 if successes == 0 else max(0.0, (centre - spread) / scale)
    high = 1.0 if successes == trials else min(1.0, (centre + spread) / scale)
    return Probability(min=low, max=high)


class Status(StrEnum):
    """What the check concluded about one claim (the manual's table of statuses says when each applies)."""

    SUPPORTED = "supported"
    PRIOR_LEAK = "prior_leak"
    INSUFFICIENT_EVIDENCE_GAIN = "insufficient_evidence_gain"
    CONTRADICTED = "contradicted"
    NOT_ENTAILED = "not_entailed"
    AMBIGUOUS_VERIFIER = "ambiguous_verifier"
    SHORT_OF_TARGET = "short_of_target"
    MISSING_CITATIONS = "missing_citations"
    NO_CITATIONS = "no_citations"
    UNKNOWN_CITATIONS = "unknown_citations"
    NO_EVIDENCE_TEXT = "no_evidence_text"
    MIS_CITED = "mis_cited"
    UNSCORED = "unscored"
    TIMED_OUT = "timed_out"
    ERROR = "error"


PASSING = frozenset({Status.SUPPORTED, Status.PRIOR_LEAK, Status.UNSCORED})


class Thresholds(BaseModel):
    """Where the status rules draw their lines."""

    model_config = ConfigDict(frozen=True)

    target: float = Field(default=0.95, gt=0.0, lt=1.0)
    contradiction: float = Field(default=0.5, gt=0.0, le=1.0, description="P(no) with evidence, lower bound")
    leaning: float = Field(default=0.5, gt=0.0, lt=1.0, description="P(yes) above which belief leans yes")
    min_log_odds_gain: float = Field(default=0.0, description="bits the evidence must add to the odds of YES")


def claim_status(posterior: Probability, prior: Probability, posterior_no: Probability, rules: Thresholds) -> Status:
    """The status of a scored claim, from its intervals alone.

    - contradicted: with the evidence, P(no) is at least `contradiction` for certain;
    - the posterior's lower bound reaches the target: prior_leak when the prior's upper bound does
      too (the claim did not need its evidence); else insufficient_evidence_gain when the odds of
      YES grew by less than `min_log_odds_gain` bits for certain (never with the default 0, since
      belief then moved toward yes), else supported;
    - the posterior's interval straddles the target: ambiguous_verifier;
    - otherwise (it stays below the target): short_of_target when the evidence raised belief for
      certain and it now leans yes, else not_entailed.
    """
    t = rules.target
    if posterior_no.min >= rules.contradiction:
        return Status.CONTRADICTED
    if posterior.min >= t:
        if prior.max >= t:
            return Status.PRIOR_LEAK
        if log_odds_gain(posterior, prior).min < rules.min_log_odds_gain:
            return Status.INSUFFICIENT_EVIDENCE_GAIN
        return Status.SUPPORTED
    if posterior.max >= t:
        return Status.AMBIGUOUS_VERIFIER
    if posterior.min > prior.max and posterior.min >= rules.leaning:
        return Status.SHORT_OF_TARGET
    return Status.NOT_ENTAILED
