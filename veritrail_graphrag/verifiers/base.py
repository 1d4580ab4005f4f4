"""The interface between the engine and whatever judges text (an LLM, or the offline lexical verifier).

A verifier knows prompts and models and nothing about traversal; the engine knows the DAG and
nothing about prompts. All three methods are async so that an LLM verifier can run many calls
concurrently; a verifier that does no I/O simply never awaits.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from veritrail_graphrag.models import Claim, EvidenceSelection, Excerpt, Sentence, VerdictResult


@runtime_checkable
class Verifier(Protocol):
    async def decompose(self, claim_text: str) -> list[str]:
        """Split a claim into simpler parts; one part (or none) means it cannot be split further."""
        ...

    async def select_evidence(self, claim: Claim, sentences: list[Sentence]) -> EvidenceSelection:
        """Pick the ids of sentences that strongly imply the claim or a sub-claim true or false."""
        ...

    async def judge(self, claim: Claim, excerpts: list[Excerpt]) -> VerdictResult:
        """Decide whether the excerpts justify the entire claim."""
        ...


@runtime_checkable
class PromptLimited(Protocol):
    """A verifier whose prompts have a size limit (a model's context window). The engine packs
    Evidence Selection prompts and fits the verdict input to `max_prompt_chars` characters of node
    text, unless its own config sets a limit."""

    @property
    def max_prompt_chars(self) -> int: ...
