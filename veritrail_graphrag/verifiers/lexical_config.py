"""Thresholds of the offline lexical verifier, kept in one object so a tuning run can sweep them
and a report can record exactly which values produced its verdicts."""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator


class LexicalConfig(BaseModel):
    """Evidence Selection keeps a sentence when its BM25 score is at least `min_relative_bm25`
    of the batch's best score for the claim (or a sub-claim) *and* it shares enough content terms
    with it: `min_overlap` terms, or `min_overlap_fraction` of a long claim's terms.

    The verdict score is the weighted share of the claim's content terms that the evidence
    covers (names and numbers weigh more because changing them is the commonest hallucination),
    minus a penalty per missing name or number, per number mismatch and per negation mismatch.
    Fully Supported at or above `supported_threshold`, Not Fully Supported below
    `unsupported_threshold`, Inconclusive in between.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_relative_bm25: float = Field(default=0.2, ge=0.0, le=1.0)
    min_overlap: int = Field(default=2, ge=1)
    min_overlap_fraction: float = Field(default=0.15, ge=0.0, le=1.0)
    supported_threshold: float = Field(default=0.8, ge=0.0, le=1.0)
    unsupported_threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    name_weight: float = Field(default=3.0, gt=0.0)
    number_weight: float = Field(default=3.0, gt=0.0)
    missing_name_penalty: float = Field(default=0.2, ge=0.0, le=1.0)
    missing_number_penalty: float = Field(default=0.2, ge=0.0, le=1.0)
    number_mismatch_penalty: float = Field(default=0.4, ge=0.0, le=1.0)
    negation_mismatch_penalty: float = Field(default=0.6, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _ordered_thresholds(self) -> Self:
        if self.unsupported_threshold > self.supported_threshold:
            raise ValueError(
                f"unsupported_threshold ({self.unsupported_threshold}) must not exceed "
                f"supported_threshold ({self.supported_threshold})"
            )
        return self
