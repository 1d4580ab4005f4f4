"""Deterministic verifiers for engine tests: they answer from rules, never from a model."""

from __future__ import annotations

from collections.abc import Callable

from veritrail_graphrag import Claim, Verdict
from veritrail_graphrag.verifiers import EvidenceSelection, Excerpt, Sentence, VerdictResult


class ScriptedVerifier:
    """Selects sentences containing `marker`; the verdict comes from `rule(excerpts)`.

    Records every call so tests can assert what was read.
    """

    def __init__(
        self,
        marker: str,
        rule: Callable[[list[Excerpt]], Verdict] = lambda _: Verdict.FULLY_SUPPORTED,
        parts: dict[str, list[str]] | None = None,
    ) -> None:
        self.marker = marker
        self.rule = rule
        self.parts = parts or {}
        self.selection_calls: list[list[Sentence]] = []
        self.judge_calls: list[list[Excerpt]] = []
        self.decompose_calls: list[str] = []

    async def decompose(self, claim_text: str) -> list[str]:
        self.decompose_calls.append(claim_text)
        return self.parts.get(claim_text, [claim_text])

    async def select_evidence(self, claim: Claim, sentences: list[Sentence]) -> EvidenceSelection:
        self.selection_calls.append(list(sentences))
        chosen = [s for s in sentences if self.marker in s.text]
        return EvidenceSelection(selected=[s.id for s in chosen], context=[], summary=" ".join(s.text for s in chosen))

    async def judge(self, claim: Claim, excerpts: list[Excerpt]) -> VerdictResult:
        self.judge_calls.append(list(excerpts))
        verdict = self.rule(excerpts)
        return VerdictResult(verdict=verdict, reasoning=f"scripted: {verdict.value}")

    def nodes_read(self) -> list[str]:
        return [s.node_id for call in self.selection_calls for s in call]
