"""What an evaluation run produces: per-unit outcomes, per-system metrics, cost, and the report.

These are the JSON file's schema; computing them lives in `scoring.py` and `runner.py`, and
rendering in `render.py`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from veritrail_graphrag.evaluation.metrics import DetectionMetrics, StageLocalization
from veritrail_graphrag.evaluation.triage import TriageMetrics
from veritrail_graphrag.models import Verdict

REPORT_FORMAT = "veritrail-eval"
REPORT_VERSION = 1

CONVENTIONS = [
    "Positive class = Not Fully Supported (a hallucination), as in the VeriTrail paper; precision, recall "
    "and F1 are given for both classes, macro F1 is their mean and balanced accuracy the mean recall.",
    "Inconclusive counts as Not Fully Supported for every hard metric (a claim nobody could confirm needs "
    "a reviewer); the Inconclusive rate is reported on its own.",
    "A zero denominator gives 0.0 (scikit-learn's zero_division=0).",
    "AUROC ranks units by 1 - support score (ties count half); it is omitted when a system gives no score.",
    "Every system is scored on the same units; units whose verification raised an error are left out of "
    "all systems' figures and counted.",
    "Units labelled uncheckable (nothing factual to check) are left out of the two-class metrics.",
]


class UnitOutcome(BaseModel):
    """One system's prediction for one unit, next to the gold label."""

    unit_id: str
    item_id: str
    subset: str
    supported: bool = Field(description="gold label")
    uncheckable: bool = Field(default=False, description="gold label: nothing factual to check")
    verdict: Verdict | None = Field(description="None when verification failed")
    score: float | None = Field(default=None, description="support score, 1 = surely supported")
    error_stages: list[int] | None = Field(default_factory=list)
    planted_stage: int | None = None
    edit_kind: str | None = None
    claims: int = 1
    nodes_read: int = 0
    error: str | None = None
    no_agreement: bool = Field(
        default=False, description="confidence mode: a claim of the unit ended with samples that agreed on no evidence"
    )
    reasoning: str = Field(default="", description="the verifier's reasoning, for a one-claim unit")


class SystemResult(BaseModel):
    """Metrics of one system (the verifier or a reference point) on the evaluated units."""

    name: str
    description: str
    threshold: float | None = Field(default=None, description="support threshold tuned on dev, if any")
    overall: DetectionMetrics
    inconclusive_rate: float
    by_subset: dict[str, DetectionMetrics] = Field(default_factory=dict)
    by_planted_stage: dict[str, DetectionMetrics] = Field(
        default_factory=dict, description="planted at stage s, together with every unchanged (supported) claim"
    )
    localization: dict[str, StageLocalization] = Field(
        default_factory=dict, description="'all' and per planted stage; verifier only"
    )
    triage: TriageMetrics | None = Field(
        default=None, description="a reviewer's figures (flag precision, false alarms, ...), on three-label data"
    )
    triage_by_subset: dict[str, TriageMetrics] = Field(default_factory=dict)


class Cost(BaseModel):
    """What verifying cost: engine calls, model tokens (when metered), wall time, nodes read."""

    claims: int
    calls: int
    calls_by_kind: dict[str, int]
    calls_per_claim: float
    model_calls_by_kind: dict[str, int] | None = Field(
        default=None,
        description="model calls per kind, repair and resample turns apart; None when the verifier does not meter them",
    )
    tokens: int | None = Field(description="None when the verifier does not meter tokens")
    tokens_per_claim: float | None
    seconds: float
    seconds_per_claim: float
    nodes_read_per_claim: float


class EvalReport(BaseModel):
    format: str = REPORT_FORMAT
    version: int = REPORT_VERSION
    created: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    tool_version: str
    command: str
    benchmark: str
    split: str
    verifier: str
    verifier_settings: dict[str, Any] = Field(
        default_factory=dict, description="what changes the verifier's verdicts: its model and sampling, or its weights"
    )
    data_dir: str
    split_seed: str
    dev_fraction: float
    limit: int | None
    triage: bool = Field(default=False, description="whether the data has three labels and a reviewer's figures")
    conventions: list[str] = Field(default_factory=lambda: list(CONVENTIONS))
    notes: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(
        default_factory=list, description="why some figures mean nothing, e.g. a one-class slice"
    )
    items: int
    units: int
    claims: int
    dev_units_for_tuning: int
    skipped: dict[str, int] = Field(default_factory=dict, description="records the loader left out, by reason")
    errors: int = Field(description="items whose verification raised an error (left out of the figures)")
    auroc_left_out: int = Field(
        default=0,
        description="units left out of every system's AUROC (--exclude-no-agreement): a claim's samples agreed on no "
        "evidence, which the paper's appendix E.3 left without a verdict and out of its AUROC",
    )
    systems: list[SystemResult]
    cost: Cost
    outcomes: list[UnitOutcome] = Field(description="the verifier's prediction per unit")
