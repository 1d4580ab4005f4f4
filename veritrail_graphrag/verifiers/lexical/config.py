"""Thresholds of the offline lexical verifier, kept in one object so a tuning run can sweep them
and a report can record exactly which values produced its verdicts."""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator


class LexicalConfig(BaseModel):
    """Evidence Selection keeps a sentence when its BM25 score is at least `min_relative_bm25`
    of the batch's best score for the claim (or a sub-claim) *and* it shares enough content terms
    with it: `min_overlap` terms, or `min_overlap_fraction` of a long claim's terms.

    The verdict score starts at 1 and loses `coverage_weight` times the weighted share of the
    claim's content terms the evidence lacks (names and numbers weigh more because changing them
    is the commonest hallucination), then a penalty per missing name or number and per number,
    negation or opposite-word mismatch; negations and opposites are looked for in the
    `aligned_sentences` evidence sentences that share the most with the claim. Fully Supported at
    or above `supported_threshold`, Not Fully Supported below `unsupported_threshold`, Inconclusive
    in between.

    The defaults were tuned on the dev splits of `veritrail eval` (SummEdits, FABLES, planted;
    documents disjoint from the test splits): the weights and penalties for AUROC, the thresholds
    for macro F1. On SummEdits the contradiction penalties carry nearly all the signal and plain
    coverage almost none (its consistent summaries paraphrase, its inconsistent ones swap one
    word), which is why the mismatch penalties are high.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_relative_bm25: float = Field(default=0.2, ge=0.0, le=1.0)
    min_overlap: int = Field(default=2, ge=1)
    min_overlap_fraction: float = Field(default=0.15, ge=0.0, le=1.0)
    coverage_weight: float = Field(default=1.0, ge=0.0, le=1.0)
    supported_threshold: float = Field(default=0.7, ge=0.0, le=1.0)
    unsupported_threshold: float = Field(default=0.6, ge=0.0, le=1.0)
    name_weight: float = Field(default=2.0, gt=0.0)
    number_weight: float = Field(default=3.0, gt=0.0)
    missing_name_penalty: float = Field(default=0.35, ge=0.0, le=1.0)
    missing_number_penalty: float = Field(default=0.2, ge=0.0, le=1.0)
    number_mismatch_penalty: float = Field(default=0.8, ge=0.0, le=1.0)
    negation_mismatch_penalty: float = Field(default=0.8, ge=0.0, le=1.0)
    antonym_mismatch_penalty: float = Field(default=0.6, ge=0.0, le=1.0)
    aligned_sentences: int = Field(default=3, ge=1)

    @model_validator(mode="after")
    def _ordered_thresholds(self) -> Self:
        if self.unsupported_threshold > self.supported_threshold:
            raise ValueError(
                f"unsupported_threshold ({self.unsupported_threshold}) must not exceed "
                f"supported_threshold ({self.supported_threshold})"
            )
        return self
