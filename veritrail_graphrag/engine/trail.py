"""What verification of one claim returns: the evidence trail, interim verdicts and error stages."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field, computed_field

from veritrail_graphrag.citations import ClaimCitations
from veritrail_graphrag.models import Claim, Excerpt, Sentence, SupportGap, Verdict


class StopReason(StrEnum):
    """Why the traversal ended (the paper's section 3.1.4)."""

    ROOTS_REACHED = "roots_reached"
    NO_CANDIDATES = "no_candidates"
    NOT_SUPPORTED_LIMIT = "q_reached"


def untraced(verdict: Verdict, stop_reason: StopReason) -> bool:
    """Inconclusive with no node left to check, so no source text yielded evidence: "not traced
    to the source". Only a verifier that keeps such claims Inconclusive has them (the paper's rule
    ends them Not Fully Supported: `KeepsUntracedInconclusive`)."""
    return verdict is Verdict.INCONCLUSIVE and stop_reason is StopReason.NO_CANDIDATES


class BatchRecord(BaseModel):
    """One Evidence Selection prompt: which sentences it showed and what came back."""

    node_ids: list[str]
    shown: list[str] = Field(description="sentences shown, as `<node id>#<first>-<last>` per node")
    selected: list[str]
    context: list[str]
    discarded: list[str] = Field(default_factory=list, description="ids returned but never assigned")
    summary: str = ""
    reselection: bool = False
    cut: list[str] = Field(default_factory=list, description="sentences shown cut at the prompt limit")


class Iteration(BaseModel):
    index: int
    checked: list[str] = Field(description="node ids read by Evidence Selection in this iteration")
    carried_roots: list[str] = Field(default_factory=list, description="roots not re-read; evidence carried")
    nodes_with_evidence: list[str] = Field(
        description="nodes that yielded evidence, carried roots included: the next candidates come from these"
    )
    evidence: list[Sentence]
    context: list[Sentence] = Field(default_factory=list, description="sentences named as context for the evidence")
    batches: list[BatchRecord] = Field(default_factory=list)
    skipped: list[str] = Field(
        default_factory=list,
        description="sentences the verifier's prefilter left out before Evidence Selection, as "
        "`<node id>#<first>-<last>` per run",
    )
    not_read: dict[str, list[str]] = Field(
        default_factory=dict,
        description="candidates the verifier was not shown, by language (ISO 639-1; 'und' unknown): it does not "
        "compare their language with the claim's",
    )
    excerpts: list[Excerpt] = Field(default_factory=list, description="the Verdict Generation input")
    reselections: int = 0
    omitted_from_verdict: list[str] = Field(
        default_factory=list,
        description="nodes with evidence left out of the verdict input for its size; still part of the trail",
    )
    verdict: Verdict
    reasoning: str = ""
    score: float | None = None
    gaps: list[SupportGap] = Field(default_factory=list, description="the claim's words without support, if named")
    no_agreement: bool = Field(
        default=False,
        description="confidence mode: the samples agreed on no sentence (none was selected by enough of them)",
    )


class ClaimResult(BaseModel):
    claim: Claim
    terminal: str
    language: str | None = Field(default=None, description="the claim's language (ISO 639-1), None when unknown")
    unread_languages: list[str] = Field(
        default_factory=list,
        description="when the claim is Inconclusive because its evidence could not be read for its language: "
        "the languages of what was not read",
    )
    verdict: Verdict
    reasoning: str
    score: float | None = None
    error_stages: list[int] | None = Field(
        description="[] when supported or inconclusive; None when no stage can be named"
    )
    error_note: str = ""
    stop_reason: StopReason
    iterations: list[Iteration]
    gaps: list[SupportGap] = Field(
        default_factory=list, description="the claim's words its evidence does not support, as the verifier named them"
    )
    citations: ClaimCitations | None = Field(
        default=None, description="what the claim's sentence cites and whether its trail passes through it"
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def interim_verdicts(self) -> list[Verdict]:
        return [it.verdict for it in self.iterations]

    @property
    def not_checked_for_language(self) -> bool:
        """Inconclusive because the verifier could not read the evidence's language."""
        return bool(self.unread_languages)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def not_traced(self) -> bool:
        """Inconclusive and not traced to the source (`untraced`): the paper's provenance, a trail
        down to the source, does not hold for it, so reports show it apart."""
        return untraced(self.verdict, self.stop_reason)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def no_agreement(self) -> bool:
        """Confidence mode: its last iteration's samples agreed on no evidence sentence. The paper
        stopped such claims without a verdict and left them out of its AUROC (appendix E.3); here
        they are Not Fully Supported with score 0, and `veritrail eval --exclude-no-agreement`
        leaves them out of AUROC as the paper did."""
        return bool(self.iterations) and self.iterations[-1].no_agreement

    @computed_field  # type: ignore[prop-decorator]
    @property
    def nodes_read(self) -> int:
        """Distinct nodes split and shown to Evidence Selection for this claim."""
        return sum(len(it.checked) for it in self.iterations)
