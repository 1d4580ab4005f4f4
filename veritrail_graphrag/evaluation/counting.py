"""Count the verifier calls the engine makes, and read tokens from verifiers that meter them.

Calls per claim is the engine's cost whatever the verifier is, so it is counted here by wrapping
the verifier rather than trusting each backend to report it. Tokens and model calls only exist for
verifiers that meter their usage (`MetersUsage`, like the LLM verifier): they are read before and
after the run; any other verifier reports none.
"""

from __future__ import annotations

from collections import Counter

from veritrail_graphrag.models import Claim, EvidenceSelection, Excerpt, Sentence, VerdictResult
from veritrail_graphrag.verifiers.base import Verifier
from veritrail_graphrag.verifiers.capabilities import MetersUsage, close, usage_report


class CountingVerifier:
    """A `Verifier` that forwards every call and counts it by kind."""

    def __init__(self, inner: Verifier) -> None:
        self.inner = inner
        self.calls: Counter[str] = Counter()

    async def decompose(self, claim_text: str) -> list[str]:
        self.calls["decompose"] += 1
        return await self.inner.decompose(claim_text)

    async def select_evidence(self, claim: Claim, sentences: list[Sentence]) -> EvidenceSelection:
        self.calls["select_evidence"] += 1
        return await self.inner.select_evidence(claim, sentences)

    async def judge(self, claim: Claim, excerpts: list[Excerpt]) -> VerdictResult:
        self.calls["judge"] += 1
        return await self.inner.judge(claim, excerpts)

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    async def aclose(self) -> None:
        await close(self.inner)


def tokens_used(verifier: Verifier) -> int | None:
    """Tokens the verifier has spent so far, or None when it does not meter them."""
    return verifier.usage.total().total_tokens if isinstance(verifier, MetersUsage) else None


def model_calls(verifier: Verifier) -> dict[str, int] | None:
    """Model calls the verifier has sent so far by kind, repair and resample turns apart (one
    engine call can be several model calls), or None when it does not meter them."""
    report = usage_report(verifier)
    return None if report is None else report.calls_by_kind
