"""The kinds of model call. Usage, estimates, errors and prompts are all keyed on them.

The first four are VeriTrail's; `entailment` is the one-word YES/NO/UNSURE question of the
cited-answer check (`veritrail_graphrag.cited`).
"""

from __future__ import annotations

from enum import StrEnum


class CallKind(StrEnum):
    CLAIM_EXTRACTION = "claim_extraction"
    DECOMPOSITION = "decomposition"
    EVIDENCE_SELECTION = "evidence_selection"
    VERDICT = "verdict"
    ENTAILMENT = "entailment"

    @property
    def label(self) -> str:
        """The method's name for the step: error messages and prompt titles use it."""
        return _LABELS[self]


_LABELS = {
    CallKind.CLAIM_EXTRACTION: "claim extraction",
    CallKind.DECOMPOSITION: "sub-claim decomposition",
    CallKind.EVIDENCE_SELECTION: "evidence selection",
    CallKind.VERDICT: "verdict generation",
    CallKind.ENTAILMENT: "entailment check",
}
