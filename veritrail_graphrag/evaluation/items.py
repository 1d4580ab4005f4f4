"""Benchmark items: a DAG, the claims to verify in it, and the human (or planted) labels.

Every benchmark is reduced to this one shape so that one runner scores them all. A label sits
either on the item (SummEdits labels a whole summary, whose claims are its sentences) or on each
claim (FABLES and the planted cases label claims). What gets a label is a *unit*: the runner
predicts one verdict per unit and the metrics compare units.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Self

from pydantic import BaseModel, Field, model_validator

from veritrail_graphrag.dag import DAG, DagFile
from veritrail_graphrag.models import Claim


class Split(StrEnum):
    """Tune on dev, report test (`splits.py` says how items are assigned)."""

    DEV = "dev"
    TEST = "test"


class LabeledClaim(BaseModel):
    """A claim with its gold label when the label is per claim (`None` when only the item has one).

    `uncheckable`: a label of the wild set, a sentence with nothing factual to check (appraisal,
    remarks about the graph). Such a claim is neither supported nor unsupported: it is left out of
    the two-class metrics, and what a verifier says of it is counted on its own."""

    claim: Claim
    supported: bool | None = None
    uncheckable: bool = False
    planted_stage: int | None = Field(default=None, description="where a planted error starts (planted benchmark)")
    edit_kind: str | None = Field(default=None, description="name, number, negation, relation or attribute")


class Unit(BaseModel):
    """One labeled prediction target: its verdict aggregates the verdicts of `claim_ids`."""

    id: str
    item_id: str
    claim_ids: list[str]
    supported: bool
    uncheckable: bool = False
    planted_stage: int | None = None
    edit_kind: str | None = None


class BenchmarkItem(BaseModel):
    """One DAG with its claims. `document_id` names the source document so splits never share one."""

    id: str = Field(min_length=1)
    benchmark: str
    subset: str = Field(description="a slice reported on its own: SummEdits domain, FABLES summarizer, edit kind")
    document_id: str = Field(min_length=1)
    dag: DagFile
    terminal: str
    claims: list[LabeledClaim] = Field(min_length=1)
    supported: bool | None = Field(default=None, description="the item-level label, when there is one")
    metadata: dict[str, str | int | float | bool | list[str] | None] = Field(default_factory=dict)
    split: Split | None = Field(
        default=None, description="fixed by the data (a labels file is one split); None: by document, seeded"
    )

    @model_validator(mode="after")
    def _one_label_level(self) -> Self:
        per_claim = [c.supported is not None or c.uncheckable for c in self.claims]
        if self.supported is not None and any(per_claim):
            raise ValueError(f"item {self.id!r}: label the item or its claims, not both")
        if self.supported is None and not all(per_claim):
            raise ValueError(f"item {self.id!r}: without an item label every claim needs one")
        return self

    def build_dag(self) -> DAG:
        return DAG.from_records(self.dag.nodes, self.dag.edges, self.dag.metadata)

    def units(self) -> list[Unit]:
        """What gets scored: the item itself, or each of its claims."""
        if self.supported is not None:
            return [
                Unit(id=self.id, item_id=self.id, claim_ids=[c.claim.id for c in self.claims], supported=self.supported)
            ]
        return [
            Unit(
                id=f"{self.id}/{c.claim.id}",
                item_id=self.id,
                claim_ids=[c.claim.id],
                supported=bool(c.supported) or c.uncheckable,
                uncheckable=c.uncheckable,
                planted_stage=c.planted_stage,
                edit_kind=c.edit_kind,
            )
            for c in self.claims
        ]


class LoadedBenchmark(BaseModel):
    """A benchmark's items, what was left out and why, and what a reader must know about them."""

    name: str
    items: list[BenchmarkItem]
    skipped: dict[str, int] = Field(default_factory=dict, description="reason -> records left out")
    notes: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(
        default_factory=list,
        description="labels that could not be scored, and why: shown on the terminal and in the report",
    )
    triage: bool = Field(
        default=False,
        description="whether its headline figures are a reviewer's (flag precision, false alarms, Inconclusive share): "
        "claims labelled supported, unsupported or uncheckable",
    )
