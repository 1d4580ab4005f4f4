"""A whole verifier in one module: a claim is supported when the excerpts contain all its words.

Far too naive to use (it cannot see paraphrase, negation or numbers), but it shows everything a
verifier needs: the three steps the engine calls, a `settings` method (optional: it goes into the
report and the resume key) and a `prepare` function for the registry. To use it, add one line to
`VERIFIERS` in `veritrail_graphrag/verifiers/registry.py`:

    "keyword": Registration("keyword_verifier:prepare"),

and run `veritrail verify DAG.json --verifier keyword` with this folder on `PYTHONPATH`.
"""

from __future__ import annotations

import re
from typing import Any

from veritrail_graphrag.models import Claim, EvidenceSelection, Excerpt, Sentence, Verdict, VerdictResult
from veritrail_graphrag.verifiers.registry import PreparedVerifier, VerifierSpec

MIN_LENGTH = 4  # shorter words ("the", "was", "of") say nothing about the claim


def words(text: str) -> set[str]:
    return {word for word in re.findall(r"[a-z0-9]+", text.lower()) if len(word) >= MIN_LENGTH}


class KeywordVerifier:
    async def decompose(self, claim_text: str) -> list[str]:
        """Never splits: one part means the claim stays whole."""
        return [claim_text]

    async def select_evidence(self, claim: Claim, sentences: list[Sentence]) -> EvidenceSelection:
        """Every sentence sharing a word with the claim; its summary is the sentences themselves."""
        wanted = words(claim.text)
        chosen = [s for s in sentences if wanted & words(s.text)]
        return EvidenceSelection(selected=[s.id for s in chosen], summary=" ".join(s.text for s in chosen))

    async def judge(self, claim: Claim, excerpts: list[Excerpt]) -> VerdictResult:
        """Fully Supported when no word of the claim is missing from the excerpts."""
        seen = set().union(*(words(e.text) for e in excerpts))
        missing = sorted(words(claim.text) - seen)
        if not missing:
            return VerdictResult(verdict=Verdict.FULLY_SUPPORTED, reasoning="every word is in the excerpts", score=1.0)
        share = 1 - len(missing) / len(words(claim.text))
        return VerdictResult(
            verdict=Verdict.NOT_FULLY_SUPPORTED, reasoning=f"not in the excerpts: {', '.join(missing)}", score=share
        )

    def settings(self, *, after_run: bool = False) -> dict[str, Any]:
        return {"keyword": {"min_length": MIN_LENGTH}}


def prepare(spec: VerifierSpec) -> PreparedVerifier:
    """No settings to read and no model to call: build it as is."""
    return PreparedVerifier(build=KeywordVerifier)
