"""Opposites a claim puts into a sentence it copies from an intermediate output.

A pipeline step often restates a sentence of its input almost word for word: a map answer copies a
community report, a final answer copies a map answer. When the claim keeps most of such a sentence,
in order, and puts other words in one short place, that place is an edit. Most edits are synonyms
("crucial" -> "vital": all 25 read of the hundred such edits in an audit of the fixture index's
122 reports), which words alone cannot tell from a changed fact, so they are no alarm. An edit
that puts an opposite in place of the copied word ("a young, careworn man" -> "an old, carefree
man", "patient" -> "impatient") is a contradiction.

The antonym check of the whole evidence (`opposite_word`) stays a weak signal: a source text holds
many sentences, and an opposite somewhere in it says little. In the sentence the claim copies, the
alignment says which word the opposite replaced.

Only intermediate outputs are compared: source text is summarized, not copied.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from veritrail_graphrag.verifiers.facts.relations import negated_by_prefix, sentences_of
from veritrail_graphrag.verifiers.lexical.antonyms import opposites
from veritrail_graphrag.verifiers.lexical.judge import Assessment
from veritrail_graphrag.verifiers.lexical.text import Term, TextTerms

MAX_EDIT = 3
"""Terms on either side of an edit: more than this is a rewrite, not a copy with a word changed."""


@dataclass(frozen=True)
class Reversal:
    """Claim terms standing where the copied sentence has their opposite (`instead`)."""

    terms: tuple[Term, ...]
    instead: str

    @property
    def text(self) -> str:
        return " ".join(term.surface for term in self.terms)


def _opposed(term: Term, copied: Sequence[Term]) -> bool:
    return any(other.key in opposites(term.key) or negated_by_prefix(term.surface, other.surface) for other in copied)


def reversals(claim: TextTerms, outputs: Sequence[TextTerms], assessment: Assessment) -> list[Reversal]:
    """The opposites the claim puts into the intermediate-output sentence it copies most: one that
    holds more than half of the claim's terms in the claim's order. An edit is a short run of
    claim terms in place of a short run of the sentence's; its claim terms that the evidence lacks
    and that oppose a replaced term are a reversal."""
    if not claim.terms:
        return []
    absent = {term.position for term in assessment.absent}
    keys = [assessment.matched.get(term.key, f"\0{term.key}") for term in claim.terms]
    best: tuple[int, SequenceMatcher[str], list[Term]] | None = None
    for output in outputs:
        for sentence in sentences_of(output):
            matcher = SequenceMatcher(None, keys, [term.key for term in sentence], autojunk=False)
            shared = sum(block.size for block in matcher.get_matching_blocks())
            if best is None or shared > best[0]:
                best = (shared, matcher, sentence)
    if best is None or 2 * best[0] <= len(keys):
        return []
    _, matcher, sentence = best
    found = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        span, copied = claim.terms[i1:i2], sentence[j1:j2]
        if tag != "replace" or len(span) > MAX_EDIT or len(copied) > MAX_EDIT:
            continue
        opposed = tuple(term for term in span if term.position in absent and _opposed(term, copied))
        if opposed:
            found.append(Reversal(opposed, " ".join(term.surface for term in copied)))
    return found
