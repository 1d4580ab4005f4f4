"""The budget math against values computed by hand, and the status rules case by case."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veritrail_graphrag.cited.budget import (
    Probability,
    Status,
    Thresholds,
    budget_gap,
    claim_status,
    entropy_bits,
    kl_bits,
    log_odds_gain,
    observed_bits,
    required_bits,
    wilson,
)

P = Probability.exactly
RULES = Thresholds(target=0.95)


def test_kl_in_bits_by_hand() -> None:
    # 0.95*log2(0.95/0.5) + 0.05*log2(0.05/0.5) = 0.879699 - 0.166096
    assert kl_bits(0.95, 0.5) == pytest.approx(0.713603, abs=1e-6)
    # 0.9*log2(9) + 0.1*log2(1/9) = 0.8*log2(9)
    assert kl_bits(0.9, 0.1) == pytest.approx(2.535940, abs=1e-6)
    assert kl_bits(0.3, 0.3) == 0.0
    assert entropy_bits(0.5) == pytest.approx(1.0)
    assert entropy_bits(0.95) == pytest.approx(0.286397, abs=1e-6)


def test_zero_probability_is_clipped_not_infinite() -> None:
    # 0.95*log2(0.95/1e-12) + 0.05*log2(0.05/1) = 0.95*39.792 - 0.216
    assert kl_bits(0.95, 0.0) == pytest.approx(0.95 * math.log2(0.95e12) + 0.05 * math.log2(0.05), abs=1e-6)
    assert math.isfinite(kl_bits(1.0, 0.0))


def test_point_estimates_give_points() -> None:
    required = required_bits(0.95, P(0.5))
    observed = observed_bits(P(0.9), P(0.5))
    gap = budget_gap(0.95, P(0.9), P(0.5))
    assert required.min == required.max == pytest.approx(0.713603, abs=1e-6)
    # KL(0.9 || 0.5) = 1 - H(0.9) = 1 - 0.468996
    assert observed.min == observed.max == pytest.approx(0.531004, abs=1e-6)
    assert gap.min == pytest.approx(gap.max) == pytest.approx(0.713603 - 0.531004, abs=1e-6)
    assert required.units == "bits"


def test_required_is_zero_when_the_prior_interval_holds_the_target() -> None:
    required = required_bits(0.95, Probability(min=0.9, max=0.99))
    assert required.min == 0.0
    assert required.max == pytest.approx(max(kl_bits(0.95, 0.9), kl_bits(0.95, 0.99)))


def test_observed_is_zero_when_intervals_overlap_and_a_corner_otherwise() -> None:
    assert observed_bits(Probability(min=0.4, max=0.6), Probability(min=0.5, max=0.7)).min == 0.0
    disjoint = observed_bits(Probability(min=0.8, max=0.9), Probability(min=0.1, max=0.2))
    assert disjoint.min == pytest.approx(kl_bits(0.8, 0.2))
    assert disjoint.max == pytest.approx(kl_bits(0.9, 0.1))


def test_gap_range_by_hand_for_an_absent_yes_token() -> None:
    # prior: YES not in the top-k, k-th token at 0.01 -> [0, 0.01]; posterior exactly 0.97.
    gap = budget_gap(0.95, P(0.97), Probability(min=0.0, max=0.01))
    # The smallest gap takes q = 1e-12 (clipped 0); the largest q = 0.01; p is fixed.
    assert gap.min == pytest.approx(kl_bits(0.95, 0.0) - kl_bits(0.97, 0.0), abs=1e-6)
    assert gap.max == pytest.approx(kl_bits(0.95, 0.01) - kl_bits(0.97, 0.01), abs=1e-6)
    assert gap.max < 0  # supported: more bits observed than required at every corner


@settings(deadline=None)  # timing is for benchmarks, not tests: a loaded CI machine is slow
@given(
    st.floats(0.5, 0.99),
    st.tuples(st.floats(0, 1), st.floats(0, 1)).map(sorted),
    st.tuples(st.floats(0, 1), st.floats(0, 1)).map(sorted),
)
def test_gap_range_matches_a_grid_search(target: float, post: list[float], prior: list[float]) -> None:
    posterior, before = Probability(min=post[0], max=post[1]), Probability(min=prior[0], max=prior[1])
    gap = budget_gap(target, posterior, before)
    grid = [
        kl_bits(target, q) - kl_bits(p, q)
        for p in (post[0] + (post[1] - post[0]) * i / 400 for i in range(401))
        for q in (prior[0] + (prior[1] - prior[0]) * j / 40 for j in range(41))
    ]
    assert gap.min == pytest.approx(min(grid), abs=1e-6)  # the grid holds every corner
    assert max(grid) - 1e-6 <= gap.max <= max(grid) + 0.05
    observed = observed_bits(posterior, before)
    kl_grid = [kl_bits(p, q) for p in (post[0], post[1]) for q in (prior[0], prior[1])]
    assert observed.max == pytest.approx(max(kl_grid))


def test_wilson_by_hand() -> None:
    # z = 1.959964, z^2 = 3.841459; 0/10 -> upper 0.384146 / 1.384146
    zero = wilson(0, 10)
    assert zero.min == 0.0 and zero.max == pytest.approx(0.277533, abs=1e-6)
    half = wilson(5, 10)
    assert (half.min, half.max) == (pytest.approx(0.236593, abs=1e-6), pytest.approx(0.763407, abs=1e-6))
    full = wilson(10, 10)
    assert full.min == pytest.approx(0.722467, abs=1e-6) and full.max == 1.0
    assert wilson(0, 0) == Probability(min=0.0, max=1.0)
    # 73 unanimous samples are the fewest that certify 0.95 at 95% confidence
    assert wilson(72, 72).min < 0.95 <= wilson(73, 73).min
    with pytest.raises(ValueError):
        wilson(11, 10)


@pytest.mark.parametrize(
    ("post_yes", "prior_yes", "post_no", "status"),
    [
        (P(0.98), P(0.10), P(0.01), Status.SUPPORTED),
        (P(0.98), P(0.97), P(0.01), Status.PRIOR_LEAK),
        (P(0.97), Probability(min=0.0, max=0.96), P(0.01), Status.PRIOR_LEAK),
        (P(0.02), P(0.60), P(0.95), Status.CONTRADICTED),
        (P(0.01), P(0.01), P(0.05), Status.NOT_ENTAILED),
        (P(0.30), P(0.05), P(0.05), Status.NOT_ENTAILED),
        (P(0.80), P(0.05), P(0.05), Status.SHORT_OF_TARGET),
        (P(0.80), P(0.85), P(0.05), Status.NOT_ENTAILED),
        (Probability(min=0.72, max=1.0), P(0.0), P(0.0), Status.AMBIGUOUS_VERIFIER),
        (Probability(min=0.0, max=0.3), P(0.0), Probability(min=0.1, max=0.6), Status.NOT_ENTAILED),
    ],
)
def test_status_rules(post_yes: Probability, prior_yes: Probability, post_no: Probability, status: Status) -> None:
    assert claim_status(post_yes, prior_yes, post_no, RULES) is status


def test_contradiction_counts_as_many_observed_bits_but_never_as_support() -> None:
    """The reference flags only when required > observed; a plausible claim that the evidence
    contradicts moves belief by more bits than a supported one needs, yet it must not pass."""
    post, prior = P(0.02), P(0.60)
    assert budget_gap(0.95, post, prior).max < 0
    assert claim_status(post, prior, P(0.9), RULES) is Status.CONTRADICTED
    assert claim_status(post, prior, P(0.3), RULES) is Status.NOT_ENTAILED


def test_supported_implies_a_non_positive_gap() -> None:
    post, prior = Probability(min=0.96, max=0.99), Probability(min=0.0, max=0.4)
    assert claim_status(post, prior, P(0.0), RULES) is Status.SUPPORTED
    assert budget_gap(0.95, post, prior).max <= 0


def test_log_odds_gain_by_hand_and_the_minimum_gain_rule() -> None:
    # logit2(0.98) = log2(49) = 5.61, logit2(0.5) = 0: the evidence added 5.61 bits to the odds
    gain = log_odds_gain(P(0.98), P(0.5))
    assert gain.min == gain.max == pytest.approx(math.log2(49))
    wide = log_odds_gain(Probability(min=0.96, max=0.99), Probability(min=0.1, max=0.5))
    assert wide.min == pytest.approx(math.log2(24)) and wide.max == pytest.approx(math.log2(99) + math.log2(9))
    post, prior = P(0.96), P(0.90)  # supported by the default rules: the gain is 1.41 bits
    assert claim_status(post, prior, P(0.0), RULES) is Status.SUPPORTED
    strict = Thresholds(target=0.95, min_log_odds_gain=2.0)
    assert claim_status(post, prior, P(0.0), strict) is Status.INSUFFICIENT_EVIDENCE_GAIN
    assert claim_status(P(0.99), P(0.10), P(0.0), strict) is Status.SUPPORTED


def test_nats_are_bits_times_ln2() -> None:
    gap = budget_gap(0.95, P(0.98), P(0.01))
    nats = gap.to("nats")
    assert nats.units == "nats" and nats.min == pytest.approx(gap.min * math.log(2))
    assert nats.to("bits") == gap and gap.to("bits") == gap
    # KL in nats straight from its definition
    t, q = 0.95, 0.01
    by_hand = t * math.log(t / q) + (1 - t) * math.log((1 - t) / (1 - q))
    assert required_bits(t, P(q)).to("nats").min == pytest.approx(by_hand)
