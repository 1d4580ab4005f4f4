"""Count the verifier calls the engine makes, and read tokens from verifiers that meter them.

Calls per claim is the engine's cost whatever the verifier is, so it is counted here by wrapping
the verifier rather than trusting each backend to report it. Tokens and model calls only exist for
verifiers that meter their usage (`MetersUsage`, like the LLM verifier): they are read before and
after the run; any other verifier reports none.

The wrapper keeps the inner verifier's optional capabilities (`counting`): without them the engine
would run another verifier than the one a user audits with (no prefilter, no abstaining when no
evidence is selected, no untraced claim kept Inconclusive, every language's sources judged), and
`veritrail eval` would measure that one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from contextlib import AbstractContextManager
from functools import cache
from typing import cast

from veritrail_graphrag.models import Claim, EvidenceSelection, Excerpt, Sentence, SupportGap, VerdictResult
from veritrail_graphrag.verifiers.base import (
    AbstainsWithoutEvidence,
    Estimates,
    KeepsClaimState,
    KeepsUntracedInconclusive,
    LocatesInventions,
    Prefilters,
    PromptLimited,
    ReadsLanguages,
    Verifier,
)
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


class _Abstains(CountingVerifier):
    async def judge_without_evidence(self, claim: Claim, checked: list[Excerpt]) -> VerdictResult:
        self.calls["judge"] += 1
        return await cast(AbstainsWithoutEvidence, self.inner).judge_without_evidence(claim, checked)


class _Prefilters(CountingVerifier):
    def may_be_evidence(self, claim: Claim, sentences: list[Sentence]) -> list[bool]:
        return cast(Prefilters, self.inner).may_be_evidence(claim, sentences)


class _LocatesInventions(CountingVerifier):
    def holds(self, gaps: Sequence[SupportGap], node_id: str, text: str) -> bool:
        return cast(LocatesInventions, self.inner).holds(gaps, node_id, text)


class _PromptLimited(CountingVerifier):
    @property
    def max_prompt_chars(self) -> int:
        return cast(PromptLimited, self.inner).max_prompt_chars


class _Estimates(CountingVerifier):
    @property
    def estimate_note(self) -> str:
        return cast(Estimates, self.inner).estimate_note


class _KeepsUntraced(CountingVerifier):
    @property
    def keeps_untraced_inconclusive(self) -> bool:
        return cast(KeepsUntracedInconclusive, self.inner).keeps_untraced_inconclusive


class _KeepsClaimState(CountingVerifier):
    def reading(self, claim: Claim) -> AbstractContextManager[None]:
        return cast(KeepsClaimState, self.inner).reading(claim)


class _ReadsLanguages(CountingVerifier):
    @property
    def languages(self) -> frozenset[str]:
        return cast(ReadsLanguages, self.inner).languages


_CAPABILITIES: tuple[tuple[type, type[CountingVerifier]], ...] = (
    (AbstainsWithoutEvidence, _Abstains),
    (KeepsUntracedInconclusive, _KeepsUntraced),
    (Prefilters, _Prefilters),
    (LocatesInventions, _LocatesInventions),
    (PromptLimited, _PromptLimited),
    (Estimates, _Estimates),
    (ReadsLanguages, _ReadsLanguages),
    (KeepsClaimState, _KeepsClaimState),
)


@cache
def _counting_class(kept: tuple[type[CountingVerifier], ...]) -> type[CountingVerifier]:
    return type("CountingVerifier", kept, {}) if kept else CountingVerifier


def counting(inner: Verifier) -> CountingVerifier:
    """A counting wrapper with the optional capabilities of `inner`, and no others: the engine
    asks for each with `isinstance`."""
    kept = tuple(wrapper for capability, wrapper in _CAPABILITIES if isinstance(inner, capability))
    return _counting_class(kept)(inner)


def tokens_used(verifier: Verifier) -> int | None:
    """Tokens the verifier has spent so far, or None when it does not meter them."""
    return verifier.usage.total().total_tokens if isinstance(verifier, MetersUsage) else None


def model_calls(verifier: Verifier) -> dict[str, int] | None:
    """Model calls the verifier has sent so far by kind, repair and resample turns apart (one
    engine call can be several model calls), or None when it does not meter them."""
    report = usage_report(verifier)
    return None if report is None else report.calls_by_kind
