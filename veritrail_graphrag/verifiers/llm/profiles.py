"""The prompt profiles (`PromptProfile`): which prompts, answer readers and decomposition each uses.

`compact` (`prompts.py`) asks for Evidence Selection and verdicts in a few bounded fields, which a
135M-parameter local model writes within its window and grammar. `paper` (`paper_prompts.py`)
asks for the steps of the paper's appendix C, and splits sub-claims recursively (up to 20
decomposition calls a claim), as the paper did: what a capable model should be given. Claim
extraction and decomposition prompts are the same in both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from veritrail_graphrag.llm.config import PromptProfile
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.llm.request import Prompt
from veritrail_graphrag.models import Claim, Excerpt
from veritrail_graphrag.verifiers.llm.labels import SentenceLabels
from veritrail_graphrag.verifiers.llm.paper_prompts import (
    PAPER_EVIDENCE_SYSTEM,
    PAPER_VERDICT_SYSTEM,
    paper_evidence_prompt,
    paper_verdict_prompt,
)
from veritrail_graphrag.verifiers.llm.parsing import (
    parse_evidence,
    parse_paper_evidence,
    parse_paper_verdict,
    parse_verdict,
)
from veritrail_graphrag.verifiers.llm.prompts import SYSTEM_PROMPTS, evidence_prompt, verdict_prompt
from veritrail_graphrag.verifiers.llm.schemas import (
    EvidenceAnswer,
    PaperEvidenceAnswer,
    PaperVerdictAnswer,
    VerdictAnswer,
)


@dataclass(frozen=True)
class Profile:
    """`decomposition_depth`: the rounds of sub-claim decomposition it calls for when none is set
    (None: the paper's recursion, within `TrailConfig.max_decompositions`)."""

    system_prompts: dict[CallKind, str]
    evidence_prompt: Callable[[Claim, SentenceLabels], Prompt]
    verdict_prompt: Callable[[Claim, Sequence[Excerpt]], Prompt]
    parse_evidence: Callable[[str], EvidenceAnswer | PaperEvidenceAnswer]
    parse_verdict: Callable[[str], VerdictAnswer | PaperVerdictAnswer]
    decomposition_depth: int | None


PROFILES: dict[PromptProfile, Profile] = {
    PromptProfile.COMPACT: Profile(
        system_prompts=SYSTEM_PROMPTS,
        evidence_prompt=evidence_prompt,
        verdict_prompt=verdict_prompt,
        parse_evidence=parse_evidence,
        parse_verdict=parse_verdict,
        decomposition_depth=1,
    ),
    PromptProfile.PAPER: Profile(
        system_prompts={
            **SYSTEM_PROMPTS,
            CallKind.EVIDENCE_SELECTION: PAPER_EVIDENCE_SYSTEM,
            CallKind.VERDICT: PAPER_VERDICT_SYSTEM,
        },
        evidence_prompt=paper_evidence_prompt,
        verdict_prompt=paper_verdict_prompt,
        parse_evidence=parse_paper_evidence,
        parse_verdict=parse_paper_verdict,
        decomposition_depth=None,
    ),
}
