"""The checkable facts of a claim, looked for in its evidence.

What carries signal without a model is not how many words a claim shares with its evidence (a
faithful paraphrase shares few, a one-word swap shares all but one) but its factual anchors: the
names it mentions, its numbers and what they count, whether it denies or asserts, whether two
named things it relates ever meet in the evidence, and whether the evidence states as fact what
it only supposes ("if I stopped half a crown"). Each anchor that fails is a `Finding`: what, where
in the claim, and why; counted, they are the features the verdict model weighs.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from veritrail_graphrag import interruption
from veritrail_graphrag.sentences import split_sentences
from veritrail_graphrag.verifiers.facts.copies import Reversal, reversals
from veritrail_graphrag.verifiers.facts.relations import (
    POSSESSIVE,
    credited_elsewhere,
    names_apart,
    negated_by_prefix,
    opposed_beside,
    swaps,
    written,
)
from veritrail_graphrag.verifiers.lexical.config import LexicalConfig
from veritrail_graphrag.verifiers.lexical.judge import Evidence, assess, distinct_terms, number_role
from veritrail_graphrag.verifiers.lexical.text import Term, TextTerms, analyze

FEATURES = (
    "missing_name",
    "missing_number",
    "number_conflict",
    "negation_conflict",
    "opposite_word",
    "swapped_word",
    "swapped_name",
    "denied_in_evidence",
    "supposed_only",
    "names_apart",
    "credited_elsewhere",
    "uncovered",
    "missing_words",
    "missing_phrase",
)
"""What the verdict model weighs, each a count (or share) that can only speak against the claim."""

CONTRADICTIONS = ("number_conflict", "negation_conflict", "swapped_name", "credited_elsewhere", "supposed_only")
"""Findings that contradict the claim rather than leave it unsaid."""


_CONDITIONAL = re.compile(r"(?<!\bas )\b(?:if|unless|suppose|supposing|whether)\b[^,;:.!?]*", re.IGNORECASE)
"""A supposition, up to the end of its clause; "as if" compares, it does not suppose."""
_SHOWN_WORDS = 6
_COMMON_NUMBERS = frozenset({"1", "2", "3"})
"""Numbers too common to say what they count: "two gentlemen" and "two days" in one chapter."""
_YEAR = re.compile(r"1[5-9]\d\d|20\d\d")


def _uncounted(key: str) -> bool:
    """Numbers whose neighbours say nothing of what they count: the smallest, and years ("rescued
    six sailors in 1887" and "the 1887 rescue" are the same year)."""
    return key in _COMMON_NUMBERS or _YEAR.fullmatch(key) is not None


@dataclass(frozen=True)
class Finding:
    """One anchor of the claim that its evidence does not carry: `kind` is a feature name (or
    "reversed", a copied sentence turned around, or "opposed", its opposite said of the same
    person, which the verdict rule weighs, not the model), `text` the claim's words, `span` their
    characters in the claim, `why` one line for a reviewer."""

    kind: str
    text: str
    span: tuple[int, int] | None
    why: str


@dataclass
class Facts:
    """A claim against its evidence: the feature values and the findings behind them."""

    values: dict[str, float] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    terms: int = 0
    covered: float = 1.0
    reversals: list[Reversal] = field(default_factory=list)
    """Sentences of the evidence the claim copies and turns around (`copies.py`)."""
    opposed: list[Finding] = field(default_factory=list)
    """Claim words whose opposite an intermediate output says of the same person
    (`relations.opposed_beside`)."""

    @property
    def contradicted(self) -> bool:
        return any(self.values.get(name, 0) > 0 for name in CONTRADICTIONS)

    @property
    def one_word_changed(self) -> bool:
        """Every word of the claim its evidence lacks stands where an evidence sentence has
        another ("the blacksmith's daughter" / "the miller's daughter"), and nothing else is
        missing: a changed fact, or a synonym."""
        swapped = self.values.get("swapped_word", 0)
        return swapped > 0 and self.values.get("missing_words", 0) == swapped and not self.missing_anchor

    @property
    def missing_anchor(self) -> bool:
        return self.values.get("missing_name", 0) > 0 or self.values.get("missing_number", 0) > 0


def _run_partners(claim: TextTerms) -> dict[int, set[int]]:
    """Positions of the other words of each capitalized run ("Ebenezer" -> "Scrooge")."""
    partners: dict[int, set[int]] = defaultdict(set)
    for _, positions in claim.runs:
        for position in positions:
            partners[position] |= set(positions) - {position}
    return partners


def _supposed_keys(texts: Sequence[str], claim_keys: set[str]) -> set[str]:
    """Keys that occur in the evidence only inside conditional clauses that restate part of the
    claim: two of its terms at least, and at least half of the clause's ("if I was to stop
    half-a-crown"). A clause that shares a word or two with the claim among many others is a
    passing mention ("if there were gatherings", a licence's "if you are preserving or
    distributing ..."): in the audit of the fixture index such clauses made 74 report sentences
    Not Fully Supported, and none of those read was a supposition the report had turned into fact."""
    supposed: set[str] = set()
    asserted: set[str] = set()
    for text in texts:
        interruption.check()
        for sentence in split_sentences(text):
            for clause in _CONDITIONAL.findall(sentence):
                keys = {t.key for t in analyze(clause).terms}
                shared = len(keys & claim_keys)
                if shared >= 2 and 2 * shared >= len(keys):
                    supposed |= keys
            asserted |= {t.key for t in analyze(_CONDITIONAL.sub(" ", sentence)).terms}
    return supposed - asserted


def _looks_named(term: Term, claim: TextTerms) -> bool:
    """Whether a claim term the evidence lacks reads as a name. Capitalized mid-sentence, yes; a
    capital that only opens the sentence says nothing ("Key entities include ...", "Although
    ...": 40 such words made report sentences of the fixture index Not Fully Supported), unless the
    word owns something ("Neptune's trident") or opens a run of capitalized words ("Ebenezer
    Scrooge", not "Importantly, Christmas")."""
    if claim.terms[term.position].kind == "name":
        return True
    in_run = any(term.position in positions for _, positions in claim.runs)
    return in_run or term.surface.endswith(POSSESSIVE)


def _qualifier(term: Term, absent_at: dict[int, Term], read_keys: frozenset[str]) -> Term | None:
    """The word next to a name or number that the evidence also lacks ("a London surgeon", "twenty
    years"): the nodes may mention London elsewhere, but the thing the claim says about it is
    not in what was selected. For a name, only a word that the nodes read lack as well: "the
    hardships faced by the Cratchit family" where the Cratchits' descriptions speak of their
    family (on the fixture index such words made report sentences Not Fully Supported for a name
    the report's own inputs are full of). The word after is named first: it is what the name or
    number qualifies ("surgeon" in "pays a London surgeon", not "pays")."""
    for step in (1, -1):
        other = absent_at.get(term.position + step)
        if other is not None and other.kind == "word" and (term.kind == "number" or other.key not in read_keys):
            return other
    return None


def claim_facts(
    claim_text: str,
    evidence_texts: Sequence[str],
    config: LexicalConfig,
    read_keys: frozenset[str] = frozenset(),
    roots: Sequence[bool] | None = None,
) -> Facts | None:
    """The claim's facts against the pooled evidence; None when the claim has nothing checkable.

    `read_keys`: every term of the nodes the evidence was selected from. A name or number there is
    not missing from the source, only from the sentences Evidence Selection kept, unless the claim
    says something the evidence lacks right next to it ("a London surgeon"). `roots`: per text,
    whether it is source text (all of it when not given); what the intermediate outputs say of
    the claim's people (`Facts.opposed`) is looked for in those only."""
    claim = analyze(claim_text)
    if not claim.terms:
        return None
    evidence = Evidence()
    analyzed = []
    for index, text in enumerate(evidence_texts):
        interruption.check()  # a verdict over a few hundred excerpts takes seconds
        analyzed.append(analyze(text))
        evidence.add(index, analyzed[-1])
    assessment = assess(claim, evidence, config)
    spans = written(claim_text).spans
    partners = _run_partners(claim)
    matched_positions = {t.position for t in distinct_terms(claim, evidence) if t.key in assessment.matched}
    facts = Facts(terms=assessment.total, covered=assessment.covered_weight / assessment.weight)
    values = dict.fromkeys(FEATURES, 0.0)

    def found(kind: str, term: Term, why: str) -> None:
        values[kind] += 1
        facts.findings.append(Finding(kind, term.surface, spans.get(term.position), why))

    conflicts = {term.position for term in assessment.conflicting}
    absent_at = {term.position: term for term in assessment.absent}
    read_positions = {term.position for term in claim.terms if term.key in read_keys}
    plain_missing: list[Term] = []
    for term in assessment.absent:
        qualifier = _qualifier(term, absent_at, read_keys) if term.key in read_keys else None
        if term.kind in ("name", "number") and term.key in read_keys and qualifier is None:
            continue
        if term.kind == "name" and not _looks_named(term, claim):
            plain_missing.append(term)
        elif term.kind == "name":
            if partners.get(term.position, set()) & (matched_positions | read_positions):
                continue  # "Ebenezer Scrooge" where the evidence says "Scrooge"
            if qualifier is not None:
                why = f"'{term.surface}' is in the nodes read, but not '{qualifier.surface}' next to it"
            else:
                why = f"the name '{term.surface}' is not in the evidence"
            found("missing_name", term, why)
        elif term.kind == "number":
            if term.position in conflicts and term.key not in read_keys:
                found("number_conflict", term, f"the evidence gives another number where the claim says {term.surface}")
            else:
                found("missing_number", term, f"the number {term.surface} is not in the evidence")
        else:
            plain_missing.append(term)
    for term in claim.terms:  # a number the evidence has, but counting something else
        if term.kind != "number" or term.key not in evidence.keys or _uncounted(term.key):
            continue
        wanted = number_role(claim.terms, term)
        roles = [context for key, _, context in evidence.numbers if key == term.key]
        if wanted and roles and all(context and not (context & wanted) for context in roles):
            found("number_conflict", term, f"the evidence has {term.surface}, but counting something else")
    # The claim denying what the evidence states is a contradiction; the evidence denying a clause
    # near the claim's words is as often another fact of a long source text (measured on the dev
    # splits), and counts against intermediate outputs only (`decide`).
    for message in assessment.negation_mismatches[: assessment.denied_in_claim]:
        facts.findings.append(Finding("negation_conflict", message, None, message))
        values["negation_conflict"] += 1
    for term in claim.terms:
        occurrences = evidence.negations.get(assessment.matched.get(term.key, ""), [])
        if term.negation is None and occurrences and all(scope is not None for _, scope in occurrences):
            found("denied_in_evidence", term, f"the evidence denies '{term.surface}', the claim does not")
    for message in assessment.antonym_mismatches:
        facts.findings.append(Finding("opposite_word", message, None, message))
        values["opposite_word"] += 1
    for term, instead in swaps(claim, analyzed, assessment):
        if negated_by_prefix(term.surface, instead):
            found("negation_conflict", term, f"the evidence says '{instead}' where the claim says '{term.surface}'")
            continue
        kind = "swapped_name" if term.kind == "name" else "swapped_word"
        found(kind, term, f"the evidence says '{instead}' where the claim says '{term.surface}'")
    for name, word, other in credited_elsewhere(claim, analyzed, assessment):
        found("credited_elsewhere", name, f"the evidence says '{word.surface}' of '{other}', not of '{name.surface}'")
    supposed = _supposed_keys(evidence_texts, set(assessment.matched.values()))
    if not _CONDITIONAL.search(claim_text):
        for term in claim.terms:
            if assessment.matched.get(term.key) in supposed and term.kind != "name":
                found("supposed_only", term, f"the evidence says '{term.surface}' only as a supposition (if ...)")
    surfaces = {
        assessment.matched[t.key]: t.surface for t in claim.terms if t.kind == "name" and t.key in assessment.matched
    }
    apart = names_apart(list(surfaces), evidence)
    values["names_apart"] = float(min(len(apart), 3))
    if apart:
        a, b = (surfaces[key] for key in apart[0])
        facts.findings.append(Finding("names_apart", f"{a} / {b}", None, f"'{a}' and '{b}' never meet in the evidence"))
    absent_positions = {t.position for t in assessment.absent}
    longest, run = 0, 0
    for term in claim.terms:
        run = run + 1 if term.position in absent_positions else 0
        longest = max(longest, run)
    values["missing_phrase"] = float(longest)
    values["uncovered"] = 1.0 - facts.covered
    values["missing_words"] = float(len(plain_missing))
    for term in plain_missing[:_SHOWN_WORDS]:
        facts.findings.append(Finding("missing_words", term.surface, spans.get(term.position), "not in the evidence"))
    facts.values = values
    outputs = [
        written(text) for text, root in zip(evidence_texts, roots or [True] * len(analyzed), strict=True) if not root
    ]
    for term, other, name in opposed_beside(written(claim_text), outputs, assessment, read_keys):
        why = f"the evidence says '{other.surface}' of '{name}' where the claim says '{term.surface}'"
        facts.opposed.append(Finding("opposed", term.surface, spans.get(term.position), why))
    facts.findings[:0] = facts.opposed
    facts.reversals = reversals(claim_text, claim, evidence_texts, assessment)
    for reversal in facts.reversals:
        why = f"the sentence the claim copies says '{reversal.instead}' where the claim says '{reversal.text}'"
        facts.findings.insert(0, Finding("reversed", reversal.text, reversal.span, why))
    return facts
