"""Benchmark items: a DAG, the claims to verify in it, and the human (or planted) labels.

Every benchmark is reduced to this one shape so that one runner scores them all. A label sits
either on the item (SummEdits labels a whole summary, whose claims are its sentences) or on each
claim (FABLES and the planted cases label claims). What gets a label is a *unit*: the runner
predicts one verdict per unit and the metrics compare units.
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, Field, model_validator

from veritrail_graphrag.dag import DAG, DagFile
from veritrail_graphrag.models import Claim


class LabeledClaim(BaseModel):
    """A claim with its gold label when the label is per claim (`None` when only the item has one)."""

    claim: Claim
    supported: bool | None = None
    planted_stage: int | None = Field(default=None, description="where a planted error starts (planted benchmark)")
    edit_kind: str | None = Field(default=None, description="name, number, negation, relation or attribute")


class Unit(BaseModel):
    """One labeled prediction target: its verdict aggregates the verdicts of `claim_ids`."""

    id: str
    item_id: str
    claim_ids: list[str]
    supported: bool
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

    @model_validator(mode="after")
    def _one_label_level(self) -> Self:
        per_claim = [c.supported is not None for c in self.claims]
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
                supported=bool(c.supported),
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
