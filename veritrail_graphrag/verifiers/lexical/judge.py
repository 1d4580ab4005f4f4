"""The lexical verdict: how much of a claim the evidence covers, and what contradicts it.

Coverage alone cannot see the cheapest hallucinations, a changed number, a dropped or added
"not", a word swapped for its opposite, because the changed sentence shares almost every word with
its source. So these are checked explicitly and subtracted from the score, and the reasoning names
the figures, so that a reviewer can tell at a glance whether the flag is worth a closer look.

Coverage is pooled over all evidence (a claim may combine several sentences), but the
contradiction checks for negations and opposites only look at the few evidence sentences that
align best with the claim: a long transcript negates or contradicts some word of any claim
somewhere, and only the sentences the claim was written from can contradict it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from veritrail_graphrag.models import Verdict, VerdictResult
from veritrail_graphrag.verifiers.lexical.antonyms import opposites
from veritrail_graphrag.verifiers.lexical.config import LexicalConfig
from veritrail_graphrag.verifiers.lexical.text import Term, TextTerms, analyze, fuzzy_equal

_ROLE_WINDOW = 3
"""How many terms on each side of a number describe its role ("revenue ... 2019", "5 employees")."""
_SHOWN = 8

Place = tuple[int, int]
"""(excerpt, sentence): one evidence sentence."""


@dataclass(frozen=True)
class _Indexed:
    """One evidence text's share of `Evidence`, computed once per text: a source chunk is shown in
    full to every verdict of every claim traced to it, so its terms are indexed once rather than
    walked again per verdict (on a published index whose verdicts read a dozen chunks each, that
    walk was a sixth of the audit's time)."""

    keys: frozenset[str]
    by_prefix: dict[str, tuple[str, ...]]
    """The words of five letters or more by their first five, in the order the text first has them."""
    sentences: dict[int, frozenset[str]]
    negations: dict[str, tuple[int | None, ...]]
    """Per key, the negation scope of each of its terms in turn (None where no negation reaches it)."""
    scopes: dict[int, frozenset[str]]
    scope_sentences: dict[int, int]
    numbers: tuple[tuple[str, str, frozenset[str]], ...]
    lowercase: frozenset[str]
    acronyms: frozenset[str]


@lru_cache(maxsize=256)
def indexed(text: str) -> _Indexed:
    """`text`'s terms (`analyze`) indexed as `Evidence` pools them. Most texts are shown once (an
    Evidence Selection summary); the chunks shown again and again stay in the cache."""
    terms = analyze(text)
    by_prefix: dict[str, list[str]] = defaultdict(list)
    sentences: dict[int, set[str]] = defaultdict(set)
    negations: dict[str, list[int | None]] = defaultdict(list)
    scopes: dict[int, set[str]] = defaultdict(set)
    scope_sentences: dict[int, int] = {}
    for term in terms.terms:
        if term.kind == "word" and len(term.key) >= 5 and term.key not in by_prefix[term.key[:5]]:
            by_prefix[term.key[:5]].append(term.key)
        sentences[term.sentence].add(term.key)
        sentences[term.sentence].update(term.parts)
        negations[term.key].append(term.negation)
        if term.negation is not None:
            scopes[term.negation].add(term.key)
            scope_sentences[term.negation] = term.sentence
    return _Indexed(
        keys=terms.key_set,
        by_prefix={prefix: tuple(keys) for prefix, keys in by_prefix.items()},
        sentences={number: frozenset(keys) for number, keys in sentences.items()},
        negations={key: tuple(scopes_of) for key, scopes_of in negations.items()},
        scopes={scope: frozenset(keys) for scope, keys in scopes.items()},
        scope_sentences=scope_sentences,
        numbers=tuple(
            (term.key, term.surface, number_role(terms.terms, term)) for term in terms.terms if term.kind == "number"
        ),
        lowercase=terms.lowercase_keys,
        acronyms=terms.acronyms,
    )


class Evidence:
    """Every excerpt's terms pooled (a claim may be supported by several nodes together), with the
    sentence each term and each negation scope stands in. Built from each text's `indexed` share:
    what every claim term is looked up in is pooled here, what only a few are asked (negations,
    words by prefix) is looked up in the shares when asked."""

    def __init__(self) -> None:
        self._parts: list[_Indexed] = []
        self.keys: set[str] = set()
        self.lowercase: set[str] = set()
        self.acronyms: set[str] = set()
        self.numbers: list[tuple[str, str, frozenset[str]]] = []
        self.sentences: dict[Place, frozenset[str]] = {}

    def add(self, text: str) -> None:
        """The next excerpt, by the text its terms are read from (`analyze`)."""
        part = indexed(text)
        excerpt = len(self._parts)
        self._parts.append(part)
        self.keys |= part.keys
        self.lowercase |= part.lowercase
        self.acronyms |= part.acronyms
        self.numbers.extend(part.numbers)
        self.sentences.update(((excerpt, number), keys) for number, keys in part.sentences.items())

    def has_term(self, key: str) -> bool:
        """Whether some excerpt has a term of this key (not only a word of a camel-case name)."""
        return any(key in part.negations for part in self._parts)

    def negations(self, key: str) -> list[tuple[int, int | None]]:
        """(excerpt, negation scope or None) of each term of this key, in the excerpts' order."""
        return [(excerpt, scope) for excerpt, part in enumerate(self._parts) for scope in part.negations.get(key, ())]

    def scope_keys(self, excerpt: int, scope: int) -> frozenset[str]:
        return self._parts[excerpt].scopes[scope]

    def scope_place(self, excerpt: int, scope: int) -> Place:
        return (excerpt, self._parts[excerpt].scope_sentences[scope])

    def match(self, term: Term) -> str | None:
        """The evidence key that stands for the claim term, if any."""
        if term.key in self.keys:
            return term.key
        if term.kind == "name" and term.key in self.acronyms:
            return term.key
        if term.parts and all(part in self.keys for part in term.parts):
            return term.parts[-1]  # "DistributedRuntime" where the evidence says "distributed runtime"
        if term.kind == "word" and len(term.key) >= 5:
            # the first word in the excerpts' order that is close enough: a word another excerpt
            # had first was already tried, so repeats need not be skipped
            for part in self._parts:
                for candidate in part.by_prefix.get(term.key[:5], ()):
                    if fuzzy_equal(term.key, candidate):
                        return candidate
        return None

    def aligned(self, matched: set[str], limit: int) -> set[Place]:
        """The `limit` sentences that together hold the most matched claim keys, chosen greedily."""
        chosen: set[Place] = set()
        left = set(matched)
        while left and len(chosen) < limit:
            place, gain = max(
                ((p, len(keys & left)) for p, keys in self.sentences.items() if p not in chosen),
                key=lambda item: item[1],
                default=(None, 0),
            )
            if place is None or gain == 0:
                break
            chosen.add(place)
            left -= self.sentences[place]
        return chosen


def number_role(terms: Sequence[Term], number: Term) -> frozenset[str]:
    low, high = number.position - _ROLE_WINDOW, number.position + _ROLE_WINDOW
    return frozenset(
        t.key for t in terms[max(0, low) : high + 1] if t.sentence == number.sentence and t.kind != "number"
    )


@dataclass
class Assessment:
    total: int = 0
    covered: int = 0
    weight: float = 0.0
    covered_weight: float = 0.0
    missing: list[str] = field(default_factory=list)
    missing_names: int = 0
    missing_numbers: int = 0
    number_mismatches: list[str] = field(default_factory=list)
    negation_mismatches: list[str] = field(default_factory=list)
    denied_in_claim: int = 0
    """How many of the negation mismatches are the claim's (it denies what the evidence states)."""
    antonym_mismatches: list[str] = field(default_factory=list)
    absent: list[Term] = field(default_factory=list)
    """The claim terms the evidence lacks (the `missing` surfaces, as terms)."""
    matched: dict[str, str] = field(default_factory=dict)
    """Claim key -> the evidence key that stands for it."""
    conflicting: list[Term] = field(default_factory=list)
    """Claim numbers the evidence gives otherwise (the `number_mismatches`, as terms)."""


def distinct_terms(claim: TextTerms, evidence: Evidence) -> list[Term]:
    """One term per key; a sentence-initial capitalized word counts as a name unless someone
    writes it in lowercase, since "Microsoft acquired ..." starts with a name and "Revenue
    grew ..." does not."""
    seen: dict[str, Term] = {}
    common_words = evidence.lowercase | claim.lowercase_keys
    for term in claim.terms:
        if term.key in seen:
            continue
        if term.initial_capital and term.key not in common_words:
            term = Term(term.key, term.surface, "name", term.sentence, term.position, term.negation, False, term.parts)
        seen[term.key] = term
    return list(seen.values())


def _run_covered(claim: TextTerms, evidence: Evidence) -> set[int]:
    """Positions of claim names whose acronym the evidence uses ("United Nations" vs "UN")."""
    return {position for initials, positions in claim.runs if initials in evidence.keys for position in positions}


_STATE_CUES = frozenset("without lack lacks lacked lacking absence absent devoid".split())


def _negation_mismatches(
    claim: TextTerms, evidence: Evidence, matched: dict[str, str], aligned: set[Place]
) -> tuple[list[str], int]:
    """Negations on one side only. The claim side looks at the word a cue governs (the first
    content word after it); the evidence side needs a negated clause, in a sentence aligned with
    the claim, that holds at least two of the claim's words."""
    found: list[str] = []
    heads: dict[int, Term] = {}
    for term in claim.terms:
        if term.negation is not None and term.kind != "number":
            heads.setdefault(term.negation, term)
    for scope, head in heads.items():
        evidence_key = matched.get(head.key)
        cue = claim.negations[scope]
        # "a life without charity", "his lack of empathy" describe a state, which the evidence words
        # in many ways ("devoid of", "lacking", "the want of", "a squeezing, covetous old sinner");
        # "not", "never" and "no" deny a fact the evidence would deny
        if cue.lower() in _STATE_CUES:
            continue
        if evidence_key and not any(n is not None for _, n in evidence.negations(evidence_key)):
            found.append(f"claim says '{cue} {head.surface}', evidence does not negate it")
    denied_in_claim = len(found)
    negated_in_claim = {t.key for t in claim.terms if t.negation is not None}
    shared = set(matched.values())
    flagged: set[tuple[int, int]] = set()
    for term in claim.terms:
        evidence_key = matched.get(term.key)
        if evidence_key is None or term.key in negated_in_claim:
            continue
        occurrences = evidence.negations(evidence_key)
        if any(n is None for _, n in occurrences):
            continue
        for key in ((excerpt, scope) for excerpt, scope in occurrences if scope is not None):
            if key in flagged or evidence.scope_place(*key) not in aligned:
                continue
            if len(evidence.scope_keys(*key) & shared) >= 2:
                flagged.add(key)
                found.append(f"evidence negates '{term.surface}', claim does not")
                break
    return found, denied_in_claim


def _antonym_mismatches(missing: Sequence[Term], evidence: Evidence, aligned: set[Place]) -> list[str]:
    """Claim words the evidence lacks while the aligned evidence sentences use their opposite."""
    near = set().union(*(evidence.sentences[p] for p in aligned)) if aligned else set()
    found = []
    for term in missing:
        opposite = sorted(opposites(term.key) & near)
        if term.kind == "word" and opposite:
            found.append(f"claim '{term.surface}' vs evidence '{opposite[0]}'")
    return found


def number_conflict(claim: TextTerms, number: Term, evidence: Evidence) -> str | None:
    """The evidence number in the same role as a claim number the evidence lacks, if any."""
    role = number_role(claim.terms, number)
    best: tuple[int, str] | None = None
    for key, surface, context in evidence.numbers:
        overlap = len(role & context)
        if key != number.key and overlap and (best is None or overlap > best[0]):
            best = (overlap, surface)
    return None if best is None else f"claim {number.surface} vs evidence {best[1]}"


def assess(claim: TextTerms, evidence: Evidence, config: LexicalConfig) -> Assessment:
    result = Assessment()
    via_acronym = _run_covered(claim, evidence)
    matched: dict[str, str] = {}
    absent: list[Term] = []
    for term in distinct_terms(claim, evidence):
        weight = {"name": config.name_weight, "number": config.number_weight}.get(term.kind, 1.0)
        result.total += 1
        result.weight += weight
        hit = evidence.match(term)
        if hit is None and term.position in via_acronym:
            hit = term.key
        if hit is not None:
            result.covered += 1
            result.covered_weight += weight
            if term.kind != "number" and evidence.has_term(hit):
                matched[term.key] = hit
            continue
        absent.append(term)
        result.absent.append(term)
        result.missing.append(term.surface)
        if term.kind == "name":
            result.missing_names += 1
        elif term.kind == "number":
            conflict = number_conflict(claim, term, evidence)
            if conflict:
                result.number_mismatches.append(conflict)
                result.conflicting.append(term)
            else:
                result.missing_numbers += 1
    result.matched = matched
    aligned = evidence.aligned(set(matched.values()), config.aligned_sentences)
    result.negation_mismatches, result.denied_in_claim = _negation_mismatches(claim, evidence, matched, aligned)
    result.antonym_mismatches = _antonym_mismatches(absent, evidence, aligned)
    return result


def _score(assessment: Assessment, config: LexicalConfig) -> float:
    coverage = assessment.covered_weight / assessment.weight
    penalty = config.coverage_weight * (1.0 - coverage) + (
        config.missing_name_penalty * assessment.missing_names
        + config.missing_number_penalty * assessment.missing_numbers
        + config.number_mismatch_penalty * len(assessment.number_mismatches)
        + config.negation_mismatch_penalty * len(assessment.negation_mismatches)
        + config.antonym_mismatch_penalty * len(assessment.antonym_mismatches)
    )
    return round(min(1.0, max(0.0, 1.0 - penalty)), 4)


def _reasoning(assessment: Assessment, score: float) -> str:
    parts = [f"covers {assessment.covered}/{assessment.total} content terms"]
    if assessment.missing:
        shown = ", ".join(f"'{m}'" for m in assessment.missing[:_SHOWN])
        more = len(assessment.missing) - _SHOWN
        parts.append(f"missing: {shown}" + (f" and {more} more" if more > 0 else ""))
    if assessment.number_mismatches:
        parts.append("number mismatch: " + "; ".join(assessment.number_mismatches))
    if assessment.negation_mismatches:
        parts.append("negation mismatch: " + "; ".join(assessment.negation_mismatches))
    if assessment.antonym_mismatches:
        parts.append("opposite words: " + "; ".join(assessment.antonym_mismatches))
    parts.append(f"score {score:.2f}")
    return "; ".join(parts)


def judge_claim(claim_text: str, evidence_texts: Sequence[str], config: LexicalConfig) -> VerdictResult:
    """Score how well the pooled evidence texts cover the claim and turn it into a verdict."""
    texts = [text for text in evidence_texts if text.strip()]
    if not texts:
        return VerdictResult(verdict=Verdict.NOT_FULLY_SUPPORTED, reasoning="no evidence to check against", score=0.0)
    claim = analyze(claim_text)
    if not claim.terms:
        return VerdictResult(
            verdict=Verdict.INCONCLUSIVE,
            reasoning="the claim has no content words, numbers or names to check",
            score=0.5,
        )
    evidence = Evidence()
    for text in texts:
        evidence.add(text)
    assessment = assess(claim, evidence, config)
    score = _score(assessment, config)
    if score >= config.supported_threshold:
        verdict = Verdict.FULLY_SUPPORTED
    elif score < config.unsupported_threshold:
        verdict = Verdict.NOT_FULLY_SUPPORTED
    else:
        verdict = Verdict.INCONCLUSIVE
    return VerdictResult(verdict=verdict, reasoning=_reasoning(assessment, score), score=score)
