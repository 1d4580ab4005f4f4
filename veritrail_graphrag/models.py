"""The values that cross boundaries: claims, verdicts, sentences, evidence, configuration.

They are pydantic models so that the same object is the Python API, the JSON file format and
the test oracle.
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class Verdict(StrEnum):
    FULLY_SUPPORTED = "Fully Supported"
    NOT_FULLY_SUPPORTED = "Not Fully Supported"
    INCONCLUSIVE = "Inconclusive"


class Claim(BaseModel):
    """A self-contained statement from the terminal node. Sub-claims are context, never verified."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    sub_claims: list[str] = Field(default_factory=list)
    sentence: int | None = Field(
        default=None, ge=0, description="index of the terminal's sentence the claim was taken from (its citations)"
    )
    references: list[tuple[int, int]] = Field(
        default_factory=list,
        description="characters of the text that name the pipeline's own records by their ids ('entity 438'), "
        "resolved to its nodes: identifiers, which offline verifiers do not check as facts of the evidence",
    )


class SentenceFailure(BaseModel):
    """A sentence of the output whose claims could not be extracted (no readable model answer)."""

    sentence: int = Field(ge=0)
    text: str
    error: str


class ClaimExtraction(BaseModel):
    """The claims a verifier extracted from an output, and the sentences it could not read."""

    claims: list[Claim]
    failed: list[SentenceFailure] = Field(default_factory=list)


class Sentence(BaseModel):
    """One sentence of a node. `id` is stable: the node id and the sentence's position."""

    model_config = ConfigDict(frozen=True)

    id: str
    node_id: str
    index: int
    text: str


class Excerpt(BaseModel):
    """Verdict input: a root's full text, or an Evidence Selection summary otherwise.

    One summary can describe evidence from several nodes of the same prompt; it is then given once,
    and `covers` lists every node it stands for (node_id first).
    """

    node_id: str
    text: str
    is_root: bool
    covers: list[str] = Field(default_factory=list)
    abridged: bool = Field(
        default=False,
        description="shown in part to fit the prompt limit: a root by its selected sentences and their "
        "neighbours, any excerpt cut at the limit",
    )
    beside_checked: bool = Field(
        default=False,
        description="only the rest of inputs checked before: every node it stands for came from nodes whose "
        "other inputs an earlier iteration read (a sub-community report reached after its parent: its "
        "inputs are the parent's too, but for the edges it cites to other communities). Nothing close to "
        "the claim in it says nothing of what the claim was written from as a whole",
    )

    @property
    def nodes(self) -> list[str]:
        return self.covers or [self.node_id]


class Agreement(BaseModel):
    """How a sampled Evidence Selection decided (confidence mode, the paper's appendix E.3): each
    sentence needed `needed` of the `samples` answers to select it."""

    samples: int = Field(ge=2)
    needed: int = Field(ge=1)
    short: list[str] = Field(default_factory=list, description="ids some samples selected, fewer than `needed`")


class EvidenceSelection(BaseModel):
    """What a verifier picked from one batch: sentence ids, context ids and a summary of them;
    `agreement` when the pick is the agreement of several samples."""

    selected: list[str] = Field(default_factory=list)
    context: list[str] = Field(default_factory=list)
    summary: str = ""
    agreement: Agreement | None = None


class SupportGap(BaseModel):
    """Words of a claim that its evidence does not support, as characters of the claim text, and
    why: what a reviewer reads first instead of re-reading the sources."""

    model_config = ConfigDict(frozen=True)

    text: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    why: str = ""
    check: str = Field(default="", description="the check that flagged these words, when one did")
    quote: str = Field(default="", description="the evidence sentence a check compared the words with, if one did")

    def found_in(self, text: str) -> bool:
        """Whether `text` holds these words, whole and in any case: the node a reviewer needs to
        see is the one that says them."""
        return re.search(rf"(?<!\w){re.escape(self.text)}(?!\w)", text, re.IGNORECASE) is not None


class VerdictResult(BaseModel):
    """A verdict with its reasoning; `score` (0-1, belief that the claim is supported) when the
    verifier can give one, for AUROC and confidence; `gaps`, when the verifier can name them, the
    claim's words without support."""

    verdict: Verdict
    reasoning: str = ""
    score: float | None = Field(default=None, ge=0.0, le=1.0)
    gaps: list[SupportGap] = Field(default_factory=list)


class TrailConfig(BaseModel):
    """Traversal settings. `q` = consecutive Not Fully Supported verdicts that end a claim."""

    model_config = ConfigDict(frozen=True)

    q: int = Field(default=1, ge=1)
    max_sentences_per_prompt: int = Field(default=40, ge=1)
    max_verdict_sentences: int = Field(default=200, ge=1, description="non-root evidence (summaries) per verdict")
    max_verdict_root_sentences: int = Field(
        default=2_000, ge=1, description="roots given in full per verdict: stands for the model's context window"
    )
    max_prompt_chars: int | None = Field(
        default=None,
        ge=10,
        description="characters of node text one prompt may carry; set from the verifier's prompt limit "
        "(`max_input_tokens`), none for a verifier without one",
    )
    max_reselections: int = Field(default=3, ge=0)
    max_decompositions: int = Field(default=20, ge=0, description="decomposition calls per claim, at most")
    decomposition_depth: int | None = Field(
        default=1,
        ge=1,
        description="rounds of sub-claim decomposition: 1 splits the claim once and its parts are final; None "
        "splits parts again until they stop changing (the paper's recursion), within max_decompositions",
    )
    untraced_inconclusive: bool | None = Field(
        default=None,
        description="a claim whose latest verdict is Inconclusive when no node is left to check (no source text "
        "yielded evidence): False ends it Not Fully Supported (the paper's rule), True keeps it Inconclusive, 'not "
        "traced to the source'; None lets the verifier decide (True only for one that declares "
        "KeepsUntracedInconclusive), and the engine's config records what it decided",
    )
    concurrency: int = Field(default=16, ge=1)
