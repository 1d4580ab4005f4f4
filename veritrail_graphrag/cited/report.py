"""The cited-answer report: the shape `detect_hallucination` returns and `check-cited` writes.

`flagged`, `under_budget`, `summary` (claims_scored, flagged_claims, flagged_idxs, units,
verifier_model, backend) and `details` (idx, claim, cites, flagged, required / observed /
budget_gap as {min, max, units}, prior_yes, post_yes, has_any_citations, missing_citations) are
the published interface; the other fields say why a claim got its status. Claim indices start
at 0. A report is flagged when a claim is, or when `max_claims` left claims unchecked
(`summary.claims_not_checked`): what was not checked was not shown to hold. This module only
counts and renders.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel, Field
from rich.markup import escape
from rich.table import Table

from veritrail_graphrag.cited.budget import BITS, Bits, Probability, Status, Units
from veritrail_graphrag.files import atomic_write_text
from veritrail_graphrag.llm.usage import Usage


class ClaimPrompts(BaseModel):
    """The two prompts of a scored claim, messages rendered as `[role]` and content."""

    posterior: str
    prior: str


class ClaimBudget(BaseModel):
    """One claim: its citations, its two probabilities of YES and the bits between them."""

    idx: int
    claim: str
    cites: list[str] = Field(description="ids the claim cites, as written")
    flagged: bool
    status: Status
    required: Bits | None = Field(default=None, description="bits needed to lift the prior to the target")
    observed: Bits | None = Field(default=None, description="bits the evidence moved belief by")
    budget_gap: Bits | None = Field(default=None, description="required - observed; positive: under-supported")
    log_odds_gain: Bits | None = Field(
        default=None, description="logit(post) - logit(prior): how far the evidence moved the odds of YES"
    )
    prior_yes: Probability | None = Field(default=None, description="P(YES) with the cited evidence withheld")
    post_yes: Probability | None = Field(default=None, description="P(YES) with the evidence shown")
    post_no: Probability | None = Field(default=None, description="P(NO) with the evidence shown")
    has_any_citations: bool
    missing_citations: bool = Field(description="require_citations is on and the claim cites nothing")
    unknown_cites: list[str] = Field(default_factory=list, description="cited ids that match no span")
    cites_without_text: list[str] = Field(
        default_factory=list,
        description="cited spans with nothing left once questions, instructions, headings are removed",
    )
    cites_without_evidence: list[str] | None = Field(
        default=None, description="cited spans in which no evidence for the claim was found (offline check only)"
    )
    note: str = ""
    prompts: ClaimPrompts | None = Field(default=None, description="with include_prompts")


class CheckSummary(BaseModel):
    claims_scored: int = Field(
        description="claims whose probabilities were read (or, offline, whose citations were checked)"
    )
    flagged_claims: int
    flagged_idxs: list[int]
    units: Units = BITS
    verifier_model: str
    backend: str = Field(description="'openai'/'azure' (log-probabilities), '<provider>+sampling', or 'lexical'")
    target: float
    context_mode: str
    require_citations: bool
    min_log_odds_gain: float = Field(default=0.0, description="in `units`")
    claim_split: str = Field(default="sentences", description="sentences, lines, or given (the caller's list)")
    claims_in_answer: int = Field(description="claims found before max_claims applied")
    claims_not_checked: int = Field(default=0, description="claims beyond max_claims: they flag the report")
    non_evidence_removed: dict[str, list[str]] = Field(
        default_factory=dict,
        description="per span id, its sentences removed before any call (questions, instructions, headings)",
    )
    statuses: dict[str, int] = Field(default_factory=dict)
    unverified_idxs: list[int] = Field(default_factory=list, description="claims that timed out or failed")
    probability: str = Field(description="how P(YES) was obtained, in words")
    usage: Usage | None = None


class CitedCheckReport(BaseModel):
    flagged: bool
    under_budget: bool = Field(description="mirrors `flagged` for this check")
    summary: CheckSummary
    details: list[ClaimBudget]

    def save(self, path: Path) -> None:
        atomic_write_text(path, self.model_dump_json(indent=2) + "\n")


def build_report(details: list[ClaimBudget], summary: CheckSummary) -> CitedCheckReport:
    """Fill the counts of `summary` from the details."""
    flagged = [d.idx for d in details if d.flagged]
    counted = Counter(d.status.value for d in details)
    summary = summary.model_copy(
        update={
            "flagged_claims": len(flagged),
            "flagged_idxs": flagged,
            "statuses": {s.value: counted[s.value] for s in Status if counted[s.value]},
            "unverified_idxs": [d.idx for d in details if d.status in (Status.TIMED_OUT, Status.ERROR)],
            "claims_scored": sum(d.status not in (Status.TIMED_OUT, Status.ERROR) for d in details),
        }
    )
    report_flagged = bool(flagged) or summary.claims_not_checked > 0
    return CitedCheckReport(flagged=report_flagged, under_budget=report_flagged, summary=summary, details=details)


def _range(value: Bits | Probability | None, digits: int = 2) -> str:
    if value is None:
        return "-"
    if abs(value.max - value.min) < 10**-digits:
        return f"{value.min:.{digits}f}"
    return f"{value.min:.{digits}f}..{value.max:.{digits}f}"


_STYLE = {Status.SUPPORTED: "green", Status.PRIOR_LEAK: "yellow", Status.UNSCORED: "dim"}


def budget_table(report: CitedCheckReport, width: int = 60) -> Table:
    """One row per claim, narrow enough for an 80-column terminal: what a claim cites goes under
    its text, and P(YES) before and after the evidence share one column."""
    s = report.summary
    table = Table(
        title=f"{len(report.details)} claims, {s.flagged_claims} flagged (target {s.target}, {s.backend})",
        expand=False,
    )
    table.add_column("#", justify="right")
    table.add_column("claim (cites)", overflow="fold", min_width=20, max_width=width)
    table.add_column("status", max_width=18, overflow="fold")
    table.add_column("P(yes)", no_wrap=True)
    table.add_column(f"gap ({s.units})", justify="right")
    for d in report.details:
        style = "red" if d.flagged else _STYLE.get(d.status, "green")
        cites = ", ".join(d.cites) or "nothing"
        if d.unknown_cites:
            cites += f" (unknown: {', '.join(d.unknown_cites)})"
        table.add_row(
            str(d.idx),
            f"{escape(d.claim)}\n[dim]cites {escape(cites)}[/dim]",
            f"[{style}]{d.status.value}[/]",
            f"prior {_range(d.prior_yes)}\npost {_range(d.post_yes)}",
            _range(d.budget_gap, 1),
        )
    return table
