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
from functools import lru_cache

from veritrail_graphrag import interruption
from veritrail_graphrag.sentences import split_sentences
from veritrail_graphrag.verifiers.facts.copies import Reversal, reversals
from veritrail_graphrag.verifiers.facts.relations import (
    POSSESSIVE,
    Place,
    Written,
    credited_elsewhere,
    evidence_read,
    keys_by_sentence,
    names_apart,
    negated_by_prefix,
    opposed_beside,
    quote,
    swaps,
    written,
)
from veritrail_graphrag.verifiers.lexical.config import LexicalConfig
from veritrail_graphrag.verifiers.lexical.judge import Evidence, assess, distinct_terms, number_role
from veritrail_graphrag.verifiers.lexical.text import Spans, Term, TextTerms, analyze

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

CONTRADICTIONS = ("number_conflict", "negation_conflict", "swapped_name", "supposed_only")
"""Findings that contradict the claim rather than leave it unsaid. A word said of another name
(`credited_elsewhere`) is not one: the evidence names the claim's subject by a pronoun or another
name as often as it credits someone else (`judge.decide`)."""


_CONDITIONAL = re.compile(r"(?<!\bas )\b(?:if|unless|suppose|supposing|whether)\b[^,;:.!?]*", re.IGNORECASE)
"""A supposition, up to the end of its clause; "as if" compares, it does not suppose."""
_SUPPOSING = re.compile(r"\b(?:if|unless|suppose|supposing|whether)\b", re.IGNORECASE)
"""The words `_CONDITIONAL` opens on, alone: a text without one supposes nothing (its sentences
are pieces of it) and is not split to look."""
_SHOWN_WORDS = 6
_PARENTHESIS = re.compile(r"(?<=\S)\s*\(([^()]+)\)")
"""A parenthesis right after a word: what it holds may be another name for that word."""
_ALIAS_TERMS = 3
"""At most this many terms in a parenthesis that gives another name ("(PV)", "(EHS Policy)")."""
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
    quote: str = ""
    """The evidence sentence the rule compared the claim with, as written ("" for an absence)."""


@dataclass
class Facts:
    """A claim against its evidence: the feature values and the findings behind them."""

    values: dict[str, float] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    terms: int = 0
    covered: float = 1.0
    found_share: float = 1.0
    """The share of the claim's terms the evidence has, each counted once, unweighted: below
    `judge.SOURCE_ABSENT_BELOW` in source text, the claim is too far from it to judge."""
    reversals: list[Reversal] = field(default_factory=list)
    """Sentences of the evidence the claim copies and turns around (`copies.py`)."""
    opposed: list[Finding] = field(default_factory=list)
    """Claim words whose opposite an intermediate output says of the same person
    (`relations.opposed_beside`)."""

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


def name_partners(claim: TextTerms, text: str, spans: Spans) -> dict[int, set[int]]:
    """Positions of the other names of what each term names: the other words of its capitalized
    run ("Ebenezer" -> "Scrooge"), and a name the claim gives in parentheses right after another
    ("Photovoltaics (PV)", "the Supersoul (Paramatman)"), both ways: the claim says they are one."""
    partners: dict[int, set[int]] = defaultdict(set)
    run_of: dict[int, set[int]] = {}
    for _, positions in claim.runs:
        for position in positions:
            partners[position] |= set(positions) - {position}
            run_of[position] = set(positions)
    for opening in _PARENTHESIS.finditer(text):
        inside = {p for p, (start, end) in spans.items() if opening.start() < start and end <= opening.end()}
        before = [p for p, (_, end) in spans.items() if end <= opening.start()]
        if not inside or not before or len(inside) > _ALIAS_TERMS:
            continue
        named = run_of.get(max(before), {max(before)})
        for position in inside:
            partners[position] |= named
        for position in named:
            partners[position] |= inside
    return partners


@lru_cache(maxsize=16384)
def _suppositions(sentence: str) -> tuple[frozenset[str], tuple[frozenset[str], ...], frozenset[str]]:
    """One evidence sentence read for `_supposed_keys`, once however many claims are shown it: its
    keys, the keys of each of its conditional clauses, and the keys it states outside them."""
    clauses = tuple(frozenset(t.key for t in analyze(clause).terms) for clause in _CONDITIONAL.findall(sentence))
    stated = frozenset(t.key for t in analyze(_CONDITIONAL.sub(" ", sentence)).terms)
    return analyze(sentence).key_set, clauses, stated


def _supposed_keys(texts: Sequence[str], claim_keys: set[str], subject: set[str]) -> dict[str, str]:
    """Keys that occur in the evidence only inside conditional clauses that restate part of the
    claim: two of its terms at least, and at least half of the clause's ("if I was to stop
    half-a-crown"), in a sentence about the claim's subject (`subject`: the evidence keys of what
    the claim opens on, "Scrooge said that if he stopped ..."). A clause that shares a word or two
    with the claim among many others is a passing mention ("if there were gatherings", a
    licence's "if you are preserving or distributing ..."): in the audit of the fixture index such
    clauses made 74 report sentences Not Fully Supported, and none of those read was a
    supposition the report had turned into fact. A sentence about something else supposes nothing
    of the claim's subject ("if not controlled, pests ..." against a claim on what controls them).
    Each key comes with the sentence that supposes it."""
    supposed: dict[str, str] = {}
    for text in texts:
        interruption.check()
        for keys, clauses, said in _conditionals(text):
            for clause in clauses if subject & keys else ():
                shared = len(clause & claim_keys)
                if shared >= 2 and 2 * shared >= len(clause):
                    supposed.update(dict.fromkeys(clause - supposed.keys(), said))
    if not supposed:
        return {}  # most evidence supposes nothing, and what it states then does not matter
    asserted = frozenset().union(*(_stated(text) for text in texts))
    return {key: said for key, said in supposed.items() if key not in asserted}


@lru_cache(maxsize=4096)
def _conditionals(text: str) -> tuple[tuple[frozenset[str], tuple[frozenset[str], ...], str], ...]:
    """An evidence text's sentences with conditional clauses, read for `_supposed_keys` once per
    text (a claim is shown the same chunks again and again): their keys, their clauses' keys, and
    the sentence on one line. A text with no word that opens one (`_SUPPOSING`) is not split, and
    in the rest only these sentences are read."""
    if not _SUPPOSING.search(text):
        return ()
    return tuple(
        (keys, clauses, " ".join(sentence.split()))
        for sentence in split_sentences(text)
        if _CONDITIONAL.search(sentence)
        for keys, clauses, _ in (_suppositions(sentence),)
    )


@lru_cache(maxsize=1024)
def _stated(text: str) -> frozenset[str]:
    """Every key an evidence text states outside conditional clauses: asked only when some
    clause supposes part of the claim, which few do."""
    return frozenset().union(*(_suppositions(sentence)[2] for sentence in split_sentences(text)))


def _closest_place(texts: Sequence[str], keys: set[str]) -> Place | None:
    """The evidence sentence that holds the most of these keys (the claim's, as the evidence has
    them): the one a claim-wide rule (a denial the evidence does not share) compared with."""
    best: tuple[int, Place] | None = None
    for index, text in enumerate(texts):
        for number, held in keys_by_sentence(text):
            shared = len(keys & held)
            if shared and (best is None or shared > best[0]):
                best = (shared, (index, number))
    return None if best is None else best[1]


def _number_place(evidence: Sequence[TextTerms], role: frozenset[str], key: str | None = None) -> Place | None:
    """The evidence sentence with a number in that role (its neighbours' keys), or with that
    number: the one a changed number was compared with."""
    best: tuple[int, Place] | None = None
    for index, text in enumerate(evidence):
        for term in text.terms:
            if term.kind != "number" or (key is not None and term.key != key):
                continue
            overlap = len(role & number_role(text.terms, term)) if key is None else 1
            if overlap and (best is None or overlap > best[0]):
                best = (overlap, (index, term.sentence))
    return None if best is None else best[1]


def subject_keys(claim: TextTerms) -> set[str]:
    """The keys of what a claim opens on, its first term with the capitalized run it stands in
    ("Scrooge stopped ...", "Nematicides, including ...", "The Nuclear Energy Agency is ..."): without a
    parser, the subject of most report sentences. A rule that compares the claim with an evidence
    sentence asks that sentence to be about it."""
    if not claim.terms:
        return set()
    return {claim.terms[p].key for p in _run_of(claim, claim.terms[0].position)}


def _run_of(claim: TextTerms, position: int) -> list[int]:
    """The positions of the capitalized run a term stands in ("Ebenezer Scrooge", the words of
    "SimpleDocumentIndexer"), or the term alone."""
    return next((list(run) for _, run in claim.runs if position in run), [position])


def _is_subsequence(letters: str, word: str) -> bool:
    remaining = iter(word)
    return all(letter in remaining for letter in letters)


def is_acronym(term: Term) -> bool:
    """Whether a claim term is an acronym: two or three Latin capitals ("PV", "NLP", "IDs",
    "U.S."), which `analyze` keeps as written; a word in capitals of four letters or more is read
    as the word ("JONES", "РЫНОК"). One that no node read has is still a missing name, but no flag
    by itself (`judge.ACRONYM_ONLY`)."""
    written = term.surface.replace(".", "").removesuffix("s")
    return (
        term.kind == "name"
        and 2 <= len(written) <= 3
        and written.isascii()
        and written.isalpha()
        and written.isupper()
        and written.lower() == term.key
    )


def _spelled_out(term: Term, claim: TextTerms, evidence: Sequence[TextTerms], matched: dict[str, str]) -> bool:
    """Whether an acronym the evidence lacks stands where an evidence sentence has a longer word
    that spells it, next to the same neighbour ("PV installations" / "photovoltaic installations",
    "the EHS policy" / "the environmental-health-safety policy" is the run initials `Evidence.match`
    already reads). The word must begin with the acronym's first letter and hold its letters in
    order; the shared neighbour keeps "PV" from being any word with a p and a v."""
    letters = term.key
    if not (term.surface.isupper() and 2 <= len(letters) <= 5):
        return False
    neighbours = {
        step: matched.get(claim.terms[term.position + step].key)
        for step in (-1, 1)
        if 0 <= term.position + step < len(claim.terms) and claim.terms[term.position + step].sentence == term.sentence
    }
    for text in evidence:
        for at, word in enumerate(text.terms):
            if len(word.key) <= len(letters) or word.key[0] != letters[0] or not _is_subsequence(letters, word.key):
                continue
            for step, key in neighbours.items():
                other = at + step
                if key is not None and 0 <= other < len(text.terms) and text.terms[other].key == key:
                    return True
    return False


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


def _qualifier(term: Term, absent_at: dict[int, Term], read_keys: frozenset[str], claim: Written) -> Term | None:
    """The word next to a name or number that the evidence also lacks ("a London surgeon", "twenty
    years"): the nodes may mention London elsewhere, but the thing the claim says about it is
    not in what was selected; or they mention neither, and the whole phrase is the claim's own.
    For a name, only a word that the nodes read lack as well: "the hardships faced by the Cratchit
    family" where the Cratchits' descriptions speak of their family (on the fixture index such
    words made report sentences Not Fully Supported for a name the report's own inputs are full
    of); and only in the name's own phrase, a name an article
    opens ("a London surgeon") with nothing but a space before the word: a name that does
    something ("JONES operates ...", "'HUMANMESSAGE' extend ...") is no qualified name, and on the
    wild dev set every such flag was a true sentence. The word after is named first: it is what
    the name or number qualifies ("surgeon" in "pays a London surgeon", not "pays")."""
    for step in (1, -1):
        other = absent_at.get(term.position + step)
        if other is None or other.kind != "word":
            continue
        if term.kind == "number":
            return other
        first, last = (term, other) if step == 1 else (other, term)
        if other.key not in read_keys and not claim.between(first, last).strip() and _opens_phrase(claim, first):
            return other
    return None


_ARTICLES = frozenset("a an the".split())


def _opens_phrase(claim: Written, first: Term) -> bool:
    """Whether an article stands right before the term: "a London surgeon", "the Cratchit family"."""
    start = claim.spans.starts.get(first.position, 0)
    before = claim.text[:start].split()
    return bool(before) and before[-1].lower() in _ARTICLES


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
    analyzed, read = [], []
    for text in evidence_texts:
        interruption.check()  # a verdict over a few hundred excerpts takes seconds
        side = evidence_read(text)  # "relationship 333" counts nothing
        read.append(side.counted)
        analyzed.append(side.terms)
        evidence.add(side.counted)
    assessment = assess(claim, evidence, config)
    ours = written(claim_text)
    spans = ours.spans
    partners = name_partners(claim, claim_text, spans)
    matched_positions = {t.position for t in distinct_terms(claim, evidence) if t.key in assessment.matched}
    facts = Facts(
        terms=assessment.total,
        covered=assessment.covered_weight / assessment.weight,
        found_share=assessment.covered / assessment.total if assessment.total else 1.0,
    )
    values = dict.fromkeys(FEATURES, 0.0)

    def found(kind: str, term: Term, why: str, place: Place | None = None) -> None:
        values[kind] += 1
        compared = quote(evidence_texts[place[0]], place[1]) if place is not None else ""
        facts.findings.append(Finding(kind, term.surface, spans.get(term.position), why, compared))

    conflicts = {term.position for term in assessment.conflicting}
    absent_at = {term.position: term for term in assessment.absent}
    read_positions = {term.position for term in claim.terms if term.key in read_keys}
    plain_missing: list[Term] = []
    absent_positions = set(absent_at)
    reported: set[int] = set()
    for term in assessment.absent:
        if term.position in reported:
            continue  # another word of a name already reported whole
        qualifier = _qualifier(term, absent_at, read_keys, ours)
        if term.kind in ("name", "number") and term.key in read_keys and qualifier is None:
            continue
        if term.kind == "name" and not _looks_named(term, claim):
            plain_missing.append(term)
        elif term.kind == "name":
            if partners.get(term.position, set()) & (matched_positions | read_positions):
                continue  # "Ebenezer Scrooge" where the evidence says "Scrooge"
            if _spelled_out(term, claim, analyzed, assessment.matched):
                continue  # "PV installations" where the evidence says "photovoltaic installations"
            if qualifier is not None:
                why = (
                    f"'{term.surface}' is in the nodes read, but not '{qualifier.surface}' next to it"
                    if term.key in read_keys
                    else f"neither '{term.surface}' nor '{qualifier.surface}' next to it is in the nodes read"
                )
                values["missing_name"] += 1
                facts.findings.append(Finding("missing_beside", term.surface, spans.get(term.position), why))
                continue
            run = [p for p in _run_of(claim, term.position) if p in absent_positions]
            reported.update(run)
            text, span = ours.phrase(claim.terms[run[0]], claim.terms[run[-1]])
            values["missing_name"] += 1
            facts.findings.append(Finding("missing_name", text, span, f"the name '{text}' is not in the evidence"))
        elif term.kind == "number":
            if term.position in conflicts and term.key not in read_keys:
                why = f"the evidence gives another number where the claim says {term.surface}"
                found("number_conflict", term, why, _number_place(analyzed, number_role(claim.terms, term)))
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
            why = f"the evidence has {term.surface}, but counting something else"
            found("number_conflict", term, why, _number_place(analyzed, frozenset(), term.key))
    # The claim denying what the evidence states is a contradiction; the evidence denying a clause
    # near the claim's words is as often another fact of a long source text (measured on the dev
    # splits), and counts against intermediate outputs only (`decide`).
    denials = assessment.negation_mismatches[: assessment.denied_in_claim]
    closest = _closest_place(read, set(assessment.matched.values())) if denials else None
    closest_quote = quote(evidence_texts[closest[0]], closest[1]) if closest else ""
    for message in denials:
        facts.findings.append(Finding("negation_conflict", message, None, message, closest_quote))
        values["negation_conflict"] += 1
    for term in claim.terms:
        occurrences = evidence.negations(assessment.matched.get(term.key, ""))
        if term.negation is None and occurrences and all(scope is not None for _, scope in occurrences):
            found("denied_in_evidence", term, f"the evidence denies '{term.surface}', the claim does not")
    for message in assessment.antonym_mismatches:
        facts.findings.append(Finding("opposite_word", message, None, message))
        values["opposite_word"] += 1
    for term, instead, place in swaps(claim, analyzed, assessment):
        why = f"the evidence says '{instead}' where the claim says '{term.surface}'"
        if negated_by_prefix(term.surface, instead):
            found("negation_conflict", term, why, place)
            continue
        found("swapped_name" if term.kind == "name" else "swapped_word", term, why, place)
    for name, word, other, place in credited_elsewhere(claim, read, assessment):
        why = f"the evidence says '{word.surface}' of '{other}', not of '{name.surface}'"
        found("credited_elsewhere", name, why, place)
    subject = {assessment.matched[k] for k in subject_keys(claim) if k in assessment.matched}
    supposed = _supposed_keys(evidence_texts, set(assessment.matched.values()), subject)
    if not _CONDITIONAL.search(claim_text):
        for term in claim.terms:
            said = supposed.get(assessment.matched.get(term.key, ""))
            if said is not None and term.kind != "name":
                why = f"the evidence says '{term.surface}' only as a supposition (if ...)"
                values["supposed_only"] += 1
                facts.findings.append(Finding("supposed_only", term.surface, spans.get(term.position), why, said))
    surfaces = {
        assessment.matched[t.key]: t.surface for t in claim.terms if t.kind == "name" and t.key in assessment.matched
    }
    apart = names_apart(list(surfaces), evidence)
    values["names_apart"] = float(min(len(apart), 3))
    if apart:
        a, b = (surfaces[key] for key in apart[0])
        facts.findings.append(Finding("names_apart", f"{a} / {b}", None, f"'{a}' and '{b}' never meet in the evidence"))
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
    outputs = [text for text, root in zip(evidence_texts, roots or [True] * len(analyzed), strict=True) if not root]
    for term, other, name, compared in opposed_beside(ours, outputs, assessment, read_keys):
        why = f"the evidence says '{other.surface}' of '{name}' where the claim says '{term.surface}'"
        facts.opposed.append(Finding("opposed", term.surface, spans.get(term.position), why, compared))
    facts.findings[:0] = facts.opposed
    facts.reversals = reversals(claim_text, claim, evidence_texts, assessment)
    for reversal in facts.reversals:
        why = f"the sentence the claim copies says '{reversal.instead}' where the claim says '{reversal.text}'"
        facts.findings.insert(0, Finding("reversed", reversal.text, reversal.span, why, reversal.compared))
    return facts
