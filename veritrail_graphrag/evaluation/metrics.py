"""Detection and localization metrics. Pure functions: no I/O, no engine, no pydantic parsing of files.

Conventions, the paper's: the **positive class is "Not Fully Supported"** (a hallucination), so
`True` in a `gold` or `predicted` sequence means "not fully supported". An Inconclusive verdict is
turned into a positive before it gets here (the caller says so in the report): a claim nobody
could confirm is one a reviewer must look at. A zero denominator gives 0.0 (scikit-learn's
`zero_division=0`), so a system that never predicts a class gets no credit for that class's
precision instead of an undefined value. Scores are *support* scores (1 = surely supported), as
verifiers give them; AUROC ranks by `1 - score` so that it measures how well the score finds
hallucinations.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field, computed_field


class ClassMetrics(BaseModel):
    """Precision, recall and F1 of one class."""

    precision: float
    recall: float
    f1: float
    support: int = Field(description="gold units of this class")


class Confusion(BaseModel):
    """Counts with "Not Fully Supported" as the positive class."""

    tp: int = Field(description="not supported, flagged")
    fp: int = Field(description="supported, flagged")
    fn: int = Field(description="not supported, passed as Fully Supported")
    tn: int = Field(description="supported, passed")


class DetectionMetrics(BaseModel):
    """Hard-prediction metrics (and AUROC when scores exist) over one set of units."""

    units: int
    not_supported: ClassMetrics
    fully_supported: ClassMetrics
    macro_f1: float
    balanced_accuracy: float
    auroc: float | None = Field(description="None when a class is absent or the system gives no score")
    confusion: Confusion


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def _f1(precision: float, recall: float) -> float:
    return _ratio(2 * precision * recall, precision + recall)


def confusion(gold: Sequence[bool], predicted: Sequence[bool]) -> Confusion:
    if len(gold) != len(predicted):
        raise ValueError(f"gold has {len(gold)} labels but predicted has {len(predicted)}")
    pairs = list(zip(gold, predicted, strict=True))
    return Confusion(
        tp=sum(g and p for g, p in pairs),
        fp=sum(not g and p for g, p in pairs),
        fn=sum(g and not p for g, p in pairs),
        tn=sum(not g and not p for g, p in pairs),
    )


def class_metrics(counts: Confusion) -> tuple[ClassMetrics, ClassMetrics]:
    """(Not Fully Supported, Fully Supported): each class's own precision, recall and F1."""
    c = counts
    p_pos, r_pos = _ratio(c.tp, c.tp + c.fp), _ratio(c.tp, c.tp + c.fn)
    p_neg, r_neg = _ratio(c.tn, c.tn + c.fn), _ratio(c.tn, c.tn + c.fp)
    return (
        ClassMetrics(precision=p_pos, recall=r_pos, f1=_f1(p_pos, r_pos), support=c.tp + c.fn),
        ClassMetrics(precision=p_neg, recall=r_neg, f1=_f1(p_neg, r_neg), support=c.tn + c.fp),
    )


def macro_f1(gold: Sequence[bool], predicted: Sequence[bool]) -> float:
    """Mean F1 of the two classes (both always count, as the label set is fixed)."""
    positive, negative = class_metrics(confusion(gold, predicted))
    return (positive.f1 + negative.f1) / 2


def balanced_accuracy(gold: Sequence[bool], predicted: Sequence[bool]) -> float:
    """Mean recall over the classes present in `gold` (a class with no gold unit has no recall)."""
    positive, negative = class_metrics(confusion(gold, predicted))
    recalls = [m.recall for m in (positive, negative) if m.support]
    return sum(recalls) / len(recalls) if recalls else 0.0


def auroc(gold: Sequence[bool], support_scores: Sequence[float]) -> float | None:
    """Probability that a random not-supported unit scores lower than a random supported one; ties
    count half (the Mann-Whitney statistic). None when either class is absent."""
    if len(gold) != len(support_scores):
        raise ValueError(f"gold has {len(gold)} labels but there are {len(support_scores)} scores")
    positives = [s for g, s in zip(gold, support_scores, strict=True) if g]
    negatives = [s for g, s in zip(gold, support_scores, strict=True) if not g]
    if not positives or not negatives:
        return None
    ranked = sorted([(s, True) for s in positives] + [(s, False) for s in negatives], key=lambda x: x[0])
    # Count pairs where the supported unit outscores the unsupported one, via average ranks.
    rank_sum_negatives = 0.0
    position = 0
    while position < len(ranked):
        end = position
        while end + 1 < len(ranked) and ranked[end + 1][0] == ranked[position][0]:
            end += 1
        average_rank = (position + end) / 2 + 1
        rank_sum_negatives += average_rank * sum(1 for _, pos in ranked[position : end + 1] if not pos)
        position = end + 1
    n_neg, n_pos = len(negatives), len(positives)
    wins = rank_sum_negatives - n_neg * (n_neg + 1) / 2
    return wins / (n_neg * n_pos)


def detection(
    gold: Sequence[bool], predicted: Sequence[bool], support_scores: Sequence[float] | None
) -> DetectionMetrics:
    counts = confusion(gold, predicted)
    positive, negative = class_metrics(counts)
    return DetectionMetrics(
        units=len(gold),
        not_supported=positive,
        fully_supported=negative,
        macro_f1=(positive.f1 + negative.f1) / 2,
        balanced_accuracy=balanced_accuracy(gold, predicted),
        auroc=None if support_scores is None else auroc(gold, support_scores),
        confusion=counts,
    )


def best_threshold(gold: Sequence[bool], support_scores: Sequence[float]) -> float:
    """The support threshold (Fully Supported iff score >= threshold) with the best macro F1 on
    these units; ties go to the lowest threshold. Candidates are the observed scores and one above
    the maximum (flag everything), so the result is always one of a finite, reproducible set."""
    if not gold:
        raise ValueError("cannot tune a threshold on zero units")
    candidates = [*sorted(set(support_scores)), max(support_scores) + 1.0]
    return max(candidates, key=lambda t: (macro_f1(gold, [s < t for s in support_scores]), -t))


class StageLocalization(BaseModel):
    """How often the error stages a system reports name the stage an error was planted at."""

    planted: int = Field(description="planted (not supported) claims")
    flagged: int = Field(description="of those, predicted Not Fully Supported (Inconclusive excluded)")
    contains: int = Field(description="reported error stages include the planted stage")
    exact: int = Field(description="reported error stages are exactly [planted stage]")
    unnamed: int = Field(description="flagged, but no stage could be named")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def contains_rate(self) -> float:
        """Share of all planted claims: a missed detection is a missed localization."""
        return _ratio(self.contains, self.planted)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def exact_rate(self) -> float:
        return _ratio(self.exact, self.planted)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def contains_rate_flagged(self) -> float:
        """Share of the flagged claims only: localization quality once detection succeeded."""
        return _ratio(self.contains, self.flagged)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def exact_rate_flagged(self) -> float:
        return _ratio(self.exact, self.flagged)


def localization(
    planted_stages: Sequence[int], reported: Sequence[list[int] | None], flagged: Sequence[bool]
) -> StageLocalization:
    """`reported[i]` is the error stages of claim i ([] unless it was Not Fully Supported, None when
    no stage could be named); `flagged[i]` whether it was Not Fully Supported."""
    if not len(planted_stages) == len(reported) == len(flagged):
        raise ValueError("planted_stages, reported and flagged must have the same length")
    rows = list(zip(planted_stages, reported, flagged, strict=True))
    return StageLocalization(
        planted=len(rows),
        flagged=sum(f for _, _, f in rows),
        contains=sum(bool(f and r and s in r) for s, r, f in rows),
        exact=sum(bool(f and r == [s]) for s, r, f in rows),
        unnamed=sum(bool(f and r is None) for _, r, f in rows),
    )
