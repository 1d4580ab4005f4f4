"""Metric code against hand-computed values (positive class = Not Fully Supported = True)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veritrail_graphrag.evaluation.metrics import (
    auroc,
    balanced_accuracy,
    best_threshold,
    class_metrics,
    confusion,
    detection,
    localization,
    macro_f1,
)
from veritrail_graphrag.evaluation.triage import triage, wilson

# gold: 3 not supported, 2 supported; predicted: flags 0, 2, 3.
GOLD = [True, True, True, False, False]
PREDICTED = [True, False, True, True, False]


def test_confusion_counts_by_hand() -> None:
    counts = confusion(GOLD, PREDICTED)
    assert (counts.tp, counts.fn, counts.fp, counts.tn) == (2, 1, 1, 1)


def test_precision_recall_f1_of_both_classes_by_hand() -> None:
    positive, negative = class_metrics(confusion(GOLD, PREDICTED))
    assert (positive.precision, positive.recall, positive.f1) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    assert (negative.precision, negative.recall, negative.f1) == pytest.approx((1 / 2, 1 / 2, 1 / 2))
    assert (positive.support, negative.support) == (3, 2)


def test_macro_f1_and_balanced_accuracy_by_hand() -> None:
    assert macro_f1(GOLD, PREDICTED) == pytest.approx(7 / 12)
    assert balanced_accuracy(GOLD, PREDICTED) == pytest.approx(7 / 12)
    # An unbalanced case where the two differ: F1s 0.8 and 2/3, recalls 2/3 and 1.
    gold, predicted = [True, True, True, False], [True, True, False, False]
    assert macro_f1(gold, predicted) == pytest.approx((0.8 + 2 / 3) / 2)
    assert balanced_accuracy(gold, predicted) == pytest.approx((2 / 3 + 1) / 2)


def test_zero_denominators_give_zero() -> None:
    never = confusion([True, False], [False, False])
    positive, negative = class_metrics(never)
    assert (positive.precision, positive.recall, positive.f1) == (0.0, 0.0, 0.0)
    assert negative.precision == pytest.approx(0.5) and negative.recall == 1.0
    assert macro_f1([True, False], [False, False]) == pytest.approx((0 + 2 / 3) / 2)
    assert balanced_accuracy([True, False], [False, False]) == pytest.approx(0.5)
    # No gold positive: its recall is undefined (0.0) and balanced accuracy uses the other class only.
    positive, _ = class_metrics(confusion([False, False], [False, True]))
    assert (positive.precision, positive.recall) == (0.0, 0.0)
    assert balanced_accuracy([False, False], [False, True]) == pytest.approx(0.5)
    assert macro_f1([], []) == 0.0


def test_auroc_with_ties_by_hand() -> None:
    # Supported units score 0.5 and 0.9, unsupported 0.2 and 0.5: pairs won 1 + 0.5 (tie) + 1 + 1 of 4.
    assert auroc([True, True, False, False], [0.2, 0.5, 0.5, 0.9]) == pytest.approx(0.875)
    assert auroc([True, False], [0.3, 0.3]) == pytest.approx(0.5)
    assert auroc([True, False], [0.9, 0.1]) == 0.0
    assert auroc([True, True], [0.1, 0.2]) is None
    assert auroc([False], [0.1]) is None


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])), min_size=2, max_size=30))
def test_auroc_equals_the_pairwise_definition(rows: list[tuple[bool, float]]) -> None:
    gold = [g for g, _ in rows]
    scores = [s for _, s in rows]
    positives = [s for g, s in rows if g]
    negatives = [s for g, s in rows if not g]
    expected = None
    if positives and negatives:
        wins = sum(1.0 if n > p else 0.5 if n == p else 0.0 for n in negatives for p in positives)
        expected = wins / (len(negatives) * len(positives))
    assert auroc(gold, scores) == pytest.approx(expected)


def test_detection_bundles_the_figures() -> None:
    result = detection(GOLD, PREDICTED, [0.1, 0.9, 0.2, 0.3, 0.8])
    assert result.units == 5
    assert result.macro_f1 == pytest.approx(7 / 12)
    # supported 0.3 and 0.8 vs unsupported 0.1, 0.9, 0.2: 0.3 beats 2, 0.8 beats 2 -> 4 of 6.
    assert result.auroc == pytest.approx(4 / 6)
    assert detection(GOLD, PREDICTED, None).auroc is None


def test_mismatched_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="gold has 1 labels but predicted has 2"):
        confusion([True], [True, False])
    with pytest.raises(ValueError):
        auroc([True, False], [0.1])


def test_best_threshold_separates_and_prefers_the_lowest_on_ties() -> None:
    assert best_threshold([True, True, False, False], [0.1, 0.4, 0.6, 0.9]) == 0.6
    # Any threshold in (0.4, 0.6] separates; only observed scores are candidates, the lowest wins.
    assert best_threshold([True, False], [0.4, 0.6]) == 0.6
    # Every unit unsupported: flag everything (one above the maximum).
    assert best_threshold([True, True], [0.2, 0.7]) == pytest.approx(1.7)
    with pytest.raises(ValueError):
        best_threshold([], [])


def test_localization_counts_and_rates_by_hand() -> None:
    result = localization([4, 4, 5, 6], [[4], [2, 4], None, []], [True, True, True, False])
    assert (result.planted, result.flagged, result.contains, result.exact, result.unnamed) == (4, 3, 2, 1, 1)
    assert result.contains_rate == pytest.approx(0.5)
    assert result.exact_rate == pytest.approx(0.25)
    assert result.contains_rate_flagged == pytest.approx(2 / 3)
    assert result.exact_rate_flagged == pytest.approx(1 / 3)
    assert result.model_dump()["contains_rate"] == pytest.approx(0.5)
    empty = localization([], [], [])
    assert empty.contains_rate == 0.0 and empty.exact_rate_flagged == 0.0


def test_wilson_intervals_match_the_textbook_values() -> None:
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_triage_counts_flags_apart_from_inconclusive_and_uncheckable() -> None:
    labels = ["supported", "unsupported", "unsupported", "uncheckable", "supported"]
    flagged = [True, True, False, True, False]
    inconclusive = [False, False, True, False, False]
    m = triage(labels, flagged, inconclusive)
    assert (m.precision.count, m.precision.total, m.precision.rate) == (1, 2, 0.5)
    assert (m.recall.count, m.recall.total) == (1, 2)
    assert (m.false_alarms.count, m.false_alarms.total) == (1, 2)
    assert (m.inconclusive.count, m.inconclusive.total) == (1, 5)
    assert (m.uncheckable_flagged.count, m.uncheckable_flagged.total) == (1, 1)
    assert triage(["supported"], [False], [False]).precision.rate is None
    with pytest.raises(ValueError, match="unknown labels: maybe"):
        triage(["maybe"], [False], [False])
