"""The values that cross boundaries: claims, verdicts, sentences, evidence, configuration.

They are pydantic models so that the same object is the Python API, the JSON file format and
the test oracle.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict, Field


class Verdict(str, Enum):
    FULLY_SUPPORTED = "Fully Supported"
    NOT_FULLY_SUPPORTED = "Not Fully Supported"
    INCONCLUSIVE = "Inconclusive"


class Claim(BaseModel):
    """A self-contained statement from the terminal node. Sub-claims are context, never verified."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    sub_claims: list[str] = Field(default_factory=list)


class Sentence(BaseModel):
    """One sentence of a node. `id` is stable: the node id and the sentence's position."""

    model_config = ConfigDict(frozen=True)

    id: str
    node_id: str
    index: int
    text: str


class Excerpt(BaseModel):
    """Verdict input for one node: a root's full text, or the Evidence Selection summary otherwise."""

    node_id: str
    text: str
    is_root: bool


class EvidenceSelection(BaseModel):
    """What a verifier picked from one batch: sentence ids, context ids and a summary of them."""

    selected: list[str] = Field(default_factory=list)
    context: list[str] = Field(default_factory=list)
    summary: str = ""


class VerdictResult(BaseModel):
    verdict: Verdict
    reasoning: str = ""


class TrailConfig(BaseModel):
    """Traversal settings. `q` = consecutive Not Fully Supported verdicts that end a claim."""

    model_config = ConfigDict(frozen=True)

    q: int = Field(default=1, ge=1)
    max_sentences_per_prompt: int = Field(default=40, ge=1)
    max_verdict_sentences: int = Field(default=200, ge=1)
    max_reselections: int = Field(default=3, ge=0)
    max_decompositions: int = Field(default=20, ge=0)
    concurrency: int = Field(default=16, ge=1)
