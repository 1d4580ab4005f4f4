"""Turn per-unit outcomes into a system's metrics. Pure: no engine, no files."""

from __future__ import annotations

from collections.abc import Callable, Sequence, Set

from veritrail_graphrag.evaluation.metrics import DetectionMetrics, auroc, detection, localization
from veritrail_graphrag.evaluation.results import SystemResult, UnitOutcome
from veritrail_graphrag.evaluation.triage import TriageMetrics, triage
from veritrail_graphrag.models import Verdict


def flagged(outcome: UnitOutcome) -> bool:
    """Predicted positive: anything but Fully Supported (Inconclusive included)."""
    return outcome.verdict is not Verdict.FULLY_SUPPORTED


def _detection(outcomes: Sequence[UnitOutcome], auroc_left_out: Set[tuple[str, str]] = frozenset()) -> DetectionMetrics:
    """Hard metrics over every outcome; AUROC over those not in `auroc_left_out` ((item, unit) keys)."""
    scores = [o.score for o in outcomes]
    metrics = detection(
        [not o.supported for o in outcomes],
        [flagged(o) for o in outcomes],
        None if any(s is None for s in scores) else [float(s) for s in scores if s is not None],
    )
    if metrics.auroc is None or not auroc_left_out:
        return metrics
    ranked = [o for o in outcomes if (o.item_id, o.unit_id) not in auroc_left_out]
    ranked_auroc = auroc([not o.supported for o in ranked], [o.score or 0.0 for o in ranked])
    return metrics.model_copy(update={"auroc": ranked_auroc})


def _triage(outcomes: Sequence[UnitOutcome]) -> TriageMetrics:
    return triage(
        ["uncheckable" if o.uncheckable else "supported" if o.supported else "unsupported" for o in outcomes],
        [o.verdict is Verdict.NOT_FULLY_SUPPORTED for o in outcomes],
        [o.verdict is Verdict.INCONCLUSIVE for o in outcomes],
    )


def _grouped(outcomes: Sequence[UnitOutcome], key: Callable[[UnitOutcome], str]) -> dict[str, list[UnitOutcome]]:
    groups: dict[str, list[UnitOutcome]] = {}
    for outcome in outcomes:
        groups.setdefault(key(outcome), []).append(outcome)
    return dict(sorted(groups.items()))


def score_system(
    name: str,
    description: str,
    outcomes: Sequence[UnitOutcome],
    *,
    threshold: float | None = None,
    localizes: bool = False,
    auroc_left_out: Set[tuple[str, str]] = frozenset(),
    reviewed: bool = False,
) -> SystemResult:
    """Overall and per-subset detection; for planted units also per planted stage (each stage's
    cases against every supported unit) and, when the system names error stages, localization;
    with `reviewed` (three-label data), a reviewer's figures overall and per subset. Units
    labelled uncheckable enter only those. `auroc_left_out`: (item, unit) keys left out of AUROC
    (not of the hard metrics)."""
    if not outcomes:
        raise ValueError(f"{name}: no outcomes to score")
    checkable = [o for o in outcomes if not o.uncheckable]
    if not checkable:
        raise ValueError(f"{name}: every unit is labelled uncheckable")
    supported = [o for o in checkable if o.supported]
    planted = [o for o in outcomes if o.planted_stage is not None]
    by_stage = _grouped(planted, lambda o: str(o.planted_stage))
    located: dict[str, list[UnitOutcome]] = {"all": planted, **by_stage} if localizes and planted else {}
    return SystemResult(
        name=name,
        description=description,
        threshold=threshold,
        overall=_detection(checkable, auroc_left_out),
        inconclusive_rate=sum(o.verdict is Verdict.INCONCLUSIVE for o in outcomes) / len(outcomes),
        by_subset={k: _detection(v, auroc_left_out) for k, v in _grouped(checkable, lambda o: o.subset).items()},
        by_planted_stage={k: _detection([*v, *supported], auroc_left_out) for k, v in by_stage.items()},
        localization={
            k: localization(
                [o.planted_stage or 0 for o in v],
                [o.error_stages for o in v],
                [o.verdict is Verdict.NOT_FULLY_SUPPORTED for o in v],
            )
            for k, v in located.items()
        },
        triage=_triage(outcomes) if reviewed else None,
        triage_by_subset={k: _triage(v) for k, v in _grouped(outcomes, lambda o: o.subset).items()} if reviewed else {},
    )
