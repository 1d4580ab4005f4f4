"""The offline lexical verifier: VeriTrail's three verifier steps with no model and no network.

It exists so that the CLI does real work out of the box (on a laptop, in CI, on data that may not
leave the machine) and so that a run can be triaged before paying for an LLM judge.
"""

from __future__ import annotations

from typing import Any

from veritrail_graphrag.models import Claim, EvidenceSelection, Excerpt, Sentence, VerdictResult
from veritrail_graphrag.verifiers.lexical.config import LexicalConfig
from veritrail_graphrag.verifiers.lexical.decompose import decompose_claim
from veritrail_graphrag.verifiers.lexical.judge import judge_claim
from veritrail_graphrag.verifiers.lexical.select import select_sentences
from veritrail_graphrag.verifiers.registry import PreparedVerifier, VerifierSpec

__all__ = ["LexicalConfig", "LexicalVerifier", "prepare"]


class LexicalVerifier:
    """A `Verifier` built from word overlap: BM25 selection, coverage-based verdicts.

    This is a triage tool, not a replacement for an LLM judge. It sees which words, numbers and
    names of a claim the evidence contains, and catches changed numbers, flipped negations and
    common opposites ("easy"/"difficult") in the evidence sentences the claim aligns with; it
    cannot see paraphrase, swapped roles ("A sold to B" vs "B sold to A"), uncommon antonyms or
    reasoning across sentences, and abstractive claims (a book summary checked against scattered
    quotes) score low whether true or not. Use its scores to rank claims for review, and its Not
    Fully Supported verdicts as "look here first", never as proof. `veritrail eval` measures it.

    Deterministic, synchronous inside (the methods are `async` only to satisfy the protocol) and
    fast: one 40-sentence batch takes about a millisecond.
    """

    estimate_note = (
        "offline word-overlap verdicts: an estimate for triage, which cannot see paraphrase or "
        "reasoning; use --verifier llm for verdicts to rely on"
    )
    languages = frozenset({"en"})
    """It reads English: its stopwords, negation words, number words and stems are English's
    (`ReadsLanguages`); the facts verifier, built on it, too."""

    def __init__(self, config: LexicalConfig | None = None) -> None:
        self.config = config or LexicalConfig()

    async def decompose(self, claim_text: str) -> list[str]:
        """Split with rules; the claim comes back whole when no rule applies safely."""
        return decompose_claim(claim_text)

    async def select_evidence(self, claim: Claim, sentences: list[Sentence]) -> EvidenceSelection:
        """Rank the batch with BM25 against the claim and each sub-claim, keep what overlaps."""
        return select_sentences(claim, sentences, self.config)

    async def judge(self, claim: Claim, excerpts: list[Excerpt]) -> VerdictResult:
        """Verdict from how much of the claim the excerpts cover, minus contradictions."""
        return judge_claim(claim.text, [excerpt.text for excerpt in excerpts], self.config)

    def settings(self, *, after_run: bool = False) -> dict[str, Any]:
        return {"lexical": self.config.model_dump(mode="json")}


def prepare(spec: VerifierSpec) -> PreparedVerifier:
    """Nothing to read: the lexical verifier has no settings files and calls no model."""
    return PreparedVerifier(build=LexicalVerifier)
