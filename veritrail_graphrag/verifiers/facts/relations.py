"""Relations a claim states that its evidence states otherwise, found without a parser: one word
standing where the evidence has another between the same neighbours, another age or kin said of
the same person, a predicate the evidence says of someone else, two named things the evidence
never brings together.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from veritrail_graphrag.markers import blank_record_ids
from veritrail_graphrag.verifiers.lexical.antonyms import is_person_word, person_opposites
from veritrail_graphrag.verifiers.lexical.judge import Assessment, Evidence
from veritrail_graphrag.verifiers.lexical.text import Spans, Term, TextTerms, analyze, stem, term_spans

_NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non", "non-")
_BESIDE = 3
"""How far a word stands from the name it is said of, in terms ("Tiny Tim is the youngest": 1;
"Tim is depicted as the eldest": 2, stopwords aside)."""
_SAID_AS = frozenset(
    stem(word)
    for word in "depicted portrayed described characterized shown presented known considered regarded seen".split()
)
"""Words that may stand between a name and what it is said to be ("Tiny Tim is depicted as ...")."""
POSSESSIVE = ("'s", "\u2019s")
_APART = re.compile(r"\b(?:whose|and|or|but|his|her|their|its|than|while|with)\b", re.IGNORECASE)
"""Words between a name and a word that make the word another's ("Pierre Curie, whose wife ...",
"Prince Harry and his older brother")."""


Place = tuple[int, int]
"""(evidence text, sentence): where in the evidence a rule found what it compared the claim with."""
_CLOSING = frozenset(".!?)]\"\u201d\u2019'")
_QUOTED = 240
"""Characters of an evidence sentence quoted in a reason; a longer one is cut with an ellipsis."""


def quote(text: str, sentence: int) -> str:
    """The sentence of the evidence `text` with that index (as the verdict reads the text:
    `evidence_read`), as written, from its first term to its last: what a reviewer reads to see
    why a rule fired."""
    side = evidence_read(text)
    terms = [t for t in side.terms.terms if t.sentence == sentence]
    return quoted(side, terms[0], terms[-1]) if terms else ""


def quoted(side: Written, first: Term, last: Term) -> str:
    """The sentence of `side` that runs from the term `first` to the term `last`, as written from
    where it begins (after the term before `first`, "The" and all) to its closing mark, on one
    line and cut at `_QUOTED` characters."""
    start = side.spans.ends.get(first.position - 1, 0) if first.position else 0
    end = side.spans.ends.get(last.position, len(side.text))
    while start < end and not side.counted[start].isalnum():  # a blanked record id is no word
        start += 1
    while end < len(side.text) and side.text[end] in _CLOSING:
        end += 1
    phrase = " ".join(side.text[start:end].split())
    return phrase if len(phrase) <= _QUOTED else phrase[: _QUOTED - 1].rstrip() + "\u2026"


def sentences_of(text: TextTerms) -> list[list[Term]]:
    """A text's terms, grouped by the sentence they stand in."""
    grouped: dict[int, list[Term]] = defaultdict(list)
    for term in text.terms:
        grouped[term.sentence].append(term)
    return list(grouped.values())


def negated_by_prefix(word: str, other: str) -> bool:
    """ "safe" / "unsafe", "legal" / "illegal", "honest" / "dishonest": one word denies the other."""
    a, b = sorted((word.lower(), other.lower()), key=len)
    return any(b == prefix + a for prefix in _NEGATING_PREFIXES)


def prefixed_forms(word: str) -> set[str]:
    """The words, in lower case, that `negated_by_prefix` pairs with `word`: a negating prefix put
    on it or taken off it."""
    lower = word.lower()
    return {prefix + lower for prefix in _NEGATING_PREFIXES} | {
        lower[len(prefix) :] for prefix in _NEGATING_PREFIXES if lower.startswith(prefix) and len(lower) > len(prefix)
    }


def abbreviates(word: str, other: str) -> bool:
    """ "Soc" / "Social", "Technol" / "Technology": one word is the other cut short, as references
    and tables write names; no changed fact."""
    a, b = sorted((word.lower().rstrip("."), other.lower().rstrip(".")), key=len)
    return len(a) >= 3 and a != b and b.startswith(a)


def _replacement(
    evidence: Sequence[TextTerms], left: str, right: str, term: Term, claim_keys: set[str]
) -> tuple[str, Place] | None:
    """What an evidence sentence has between `left` and `right` in place of `term`, if anything,
    and where."""
    widths = (1, 2) if term.kind == "name" else (1,)
    for index, text in enumerate(evidence):
        for width in widths:
            for at in range(len(text.terms) - width - 1):
                first, last = text.terms[at], text.terms[at + width + 1]
                if first.key != left or last.key != right or first.sentence != last.sentence:
                    continue
                middle = text.terms[at + 1 : at + width + 1]
                if all(t.kind == term.kind and t.key not in claim_keys for t in middle):
                    return " ".join(t.surface for t in middle), (index, first.sentence)
    return None


def swaps(claim: TextTerms, evidence: Sequence[TextTerms], assessment: Assessment) -> list[tuple[Term, str, Place]]:
    """Claim words the evidence lacks where an evidence sentence has the same two neighbours
    around another word of the same kind ("the eldest and most" / "the youngest and most"; a
    name may stand for a name of two words, "Martha performs" / "Tiny Tim performs"): the claim
    changed that word, it did not paraphrase the sentence."""
    absent = {t.position for t in assessment.absent if t.kind in ("word", "name")}
    claim_keys = {t.key for t in claim.terms} | set(assessment.matched.values())
    found = []
    terms = claim.terms
    for before, term, after in zip(terms, terms[1:], terms[2:], strict=False):
        if term.position not in absent or not before.sentence == term.sentence == after.sentence:
            continue
        left, right = assessment.matched.get(before.key), assessment.matched.get(after.key)
        if left is None or right is None:
            continue
        replaced = _replacement(evidence, left, right, term, claim_keys)
        if replaced is not None and not abbreviates(term.surface, replaced[0]):
            found.append((term, *replaced))
    return found


Span = tuple[int, int]


@dataclass(frozen=True)
class Written:
    """A text with its terms and where each is written: what stands between two terms matters
    ("Pierre Curie, whose wife" is not "Pierre Curie, the husband"), and a finding quotes the
    words as written."""

    text: str
    """As written: what a finding quotes."""
    terms: TextTerms
    spans: Spans
    runs: dict[int, frozenset[str]]
    """Per term position, the keys of the run of capitalized words it stands in ("Tiny Tim")."""
    counted: str
    """As the rules read it: for evidence, `text` with the ids of the pipeline's records blanked in
    place (`evidence_read`), so that the two have the same spans; for a claim, `text`."""

    def between(self, left: Term, right: Term) -> str:
        start = self.spans.ends.get(left.position, 0)
        end = self.spans.starts.get(right.position, len(self.counted))
        return self.counted[start:end]

    def opening(self, first: Term, term: Term) -> str:
        """The text of a sentence up to `term`, from where its first term's sentence begins (after
        the term before `first`, which closes the sentence before)."""
        start = self.spans.ends.get(first.position - 1, 0) if first.position else 0
        return self.counted[start : self.spans.starts.get(term.position, start)]

    def phrase(self, first: Term, last: Term) -> tuple[str, Span | None]:
        if first.position not in self.spans or last.position not in self.spans:
            return " ".join(t.surface for t in (first, last)), None
        span = (self.spans[first.position][0], self.spans[last.position][1])
        return self.text[span[0] : span[1]], span

    def after(self, term: Term) -> str:
        end = self.spans.ends.get(term.position, 0)
        return self.counted[end : end + 12]


def _written(text: str, counted: str) -> Written:
    terms = analyze(counted)
    runs = {position: frozenset(terms.terms[p].key for p in run) for _, run in terms.runs for position in run}
    return Written(text, terms, term_spans(counted, terms), runs, counted)


@lru_cache(maxsize=1024)
def written(text: str) -> Written:
    """A text's terms, spans and runs, computed once however many claims are compared with it."""
    return _written(text, text)


@lru_cache(maxsize=1024)
def evidence_read(text: str) -> Written:
    """An evidence text as the rules read it: the terms of the text with the ids of the
    pipeline's records blanked (`blank_record_ids`: "relationship 333" counts nothing), which is
    also how the verdict's evidence is read, over the text as written: the ids are blanked in
    place, so each term's span is where it is written, and a quote shows the evidence's words."""
    return _written(text, blank_record_ids(text))


def _subject(written: Written, sentence: Sequence[Term], at: int) -> frozenset[str]:
    """The keys of the name the term at index `at` is said of, with the other names of its run
    ("Tiny Tim"; "Serena Williams" is not "Venus Williams"): the nearest name before it, within
    `_BESIDE` terms, with nothing between but words of saying ("Tiny Tim is depicted as the
    eldest"), ages ("Fan is the younger sister") and a name that owns the word, all of it ("Fan
    is Ebenezer Scrooge's sister"), and no word that makes the word another's (`_APART`: "Pierre
    Curie, whose wife"). Empty otherwise: a name after the word is the other end of a relation
    ("the son of the Queen"), and one with other words between is said of something else ("Leia,
    daughter of Darth Vader and the twin sister of Luke")."""
    word, owners = sentence[at], set()
    for i in range(at - 1, max(-1, at - 1 - _BESIDE), -1):
        term = sentence[i]
        if term.surface.endswith(POSSESSIVE):
            owners |= written.runs.get(term.position, {term.key})
            continue
        if term.key in owners:
            continue
        if term.kind == "name" or term.initial_capital:
            if _APART.search(written.between(term, word)):
                break
            return written.runs.get(term.position, frozenset({term.key}))
        if not (term.key in _SAID_AS or person_opposites(term.key)):
            break
    return frozenset()


def opposed_beside(
    claim: Written, evidence: Sequence[str], assessment: Assessment, read_keys: frozenset[str]
) -> list[tuple[Term, Term, str, str]]:
    """(claim word, opposite, name, the evidence sentence quoted): a claim word that no node read has, said of a name
    (`_subject`), where an evidence sentence says of the same name what cannot be said of one
    person with it: another place in age or the other gender of a kin
    (`antonyms.person_opposites`: "eldest" / "youngest", "son" / "daughter"). "Tiny Tim is the
    youngest child of Bob" against "Tiny Tim is depicted as the eldest"; not against "Martha
    Cratchit is the eldest daughter of Bob", nor "Fred is the nephew of Scrooge" against "Scrooge
    is the uncle of Fred". A word the nodes read have elsewhere may be the claim's fact, in a
    sentence Evidence Selection left out; a claim that has both words, or denies its own,
    opposes nothing; a verb that stems alike ("fathered") or a plural ("the Bronte sisters") is
    no one's kin, and a comparison ("younger than Oxford") depends on what it compares with. In
    the audit of the fixture index's reports, any listed opposite beside any shared word flagged
    40 report sentences, nearly all true ("guides" / "the scene that followed", "authorized" /
    "unauthorized"); said of the same name, 5, all true ("remembered" / "forgetting", "later" /
    "earlier"); as it stands, none.

    `evidence`: the intermediate outputs' texts, read (`evidence_read`) only once a claim word
    qualifies: few claims have one, and reading every output for every verdict cost the facts
    verifier a twentieth of an index audit."""
    absent = {t.position for t in assessment.absent if t.kind == "word" and t.key not in read_keys}
    if not absent:
        return []
    sentences: list[tuple[Written, list[Term]]] | None = None
    claim_sentences = sentences_of(claim.terms)
    found = []
    for term in claim.terms.terms:
        against = person_opposites(term.key)
        if term.position not in absent or term.negation is not None or not against or against & claim.terms.key_set:
            continue
        if not _personal(claim, term):
            continue
        own = next(s for s in claim_sentences if term in s)
        subject = _subject(claim, own, own.index(term))
        if not subject or not subject <= assessment.matched.keys():
            continue
        names = frozenset(assessment.matched[k] for k in subject)
        if sentences is None:
            sentences = [
                (side, sentence) for side in map(evidence_read, evidence) for sentence in sentences_of(side.terms)
            ]
        hit = next(
            (
                (written, other)
                for written, sentence in sentences
                for at, other in enumerate(sentence)
                if other.key in against
                and other.negation is None
                and _personal(written, other)
                and _subject(written, sentence, at) == names
            ),
            None,
        )
        if hit is not None:
            name = " ".join(dict.fromkeys(t.surface for t in own if t.key in subject))
            found.append((term, hit[1], name, quote(hit[0].text, hit[1].sentence)))
    return found


def _personal(written: Written, term: Term) -> bool:
    """Whether a term is a word of age or kin said of one person: as listed, not a verb that stems
    alike, a plural or a comparison ("younger than")."""
    return is_person_word(term.surface) and not written.after(term).lstrip().lower().startswith("than ")


def _named(term: Term, lowercase: Callable[[str], bool]) -> bool:
    """A name, or a capitalized word opening a sentence ("Mara rowed ...") that no text writes in
    lowercase: "Acts of kindness ..." opens with a common word, as `distinct_terms` reads it."""
    return term.kind == "name" or (term.initial_capital and not lowercase(term.key))


@lru_cache(maxsize=256)
def keys_by_sentence(text: str) -> tuple[tuple[int, frozenset[str]], ...]:
    """Each sentence of a text (its number as `analyze` counts them) with its terms' keys, once
    per text however many claims are compared with it. Few entries: only a denial's quote asks
    (23 texts in the fixture index's audit), and every entry kept is live data that each garbage
    collection walks."""
    return tuple((sentence[0].sentence, frozenset(t.key for t in sentence)) for sentence in sentences_of(analyze(text)))


@lru_cache(maxsize=256)
def _sentences_by_key(text: str) -> tuple[list[list[Term]], dict[str, list[int]]]:
    """A text's sentences, and for each key the sentences that hold it, once per text. The claims
    of one report reuse a text soon or not at all: in the fixture index's audit 256 entries found
    1,569 of the 1,721 hits of 4,096, which kept 2,670 texts' term lists alive to the end."""
    sentences = sentences_of(analyze(text))
    by_key: dict[str, list[int]] = {}
    for at, sentence in enumerate(sentences):
        for held in dict.fromkeys(t.key for t in sentence):
            by_key.setdefault(held, []).append(at)
    return sentences, by_key


def _latin(term: Term) -> bool:
    """Whether a term is written in Latin letters. A name an English report keeps in its sources'
    script ("АТРОПИНА") is written in English evidence by its translation ("Atropine"), which
    no rule here can tell from the name of something else."""
    return all(ch.isascii() or "\u00c0" <= ch <= "\u024f" for ch in term.surface if ch.isalpha())


def credited_elsewhere(
    claim: TextTerms, texts: Sequence[str], assessment: Assessment
) -> list[tuple[Term, Term, str, Place]]:
    """A name of the claim and the word right after it ("Mara Voss argued"), when every evidence
    sentence with that word names someone else and none names the claim's ("Dr. Ellis ...
    argued"), and one of them says more of the claim than that word: the claim credits one named
    thing with what the evidence says of another. A sentence that names no one ("She argued") may
    be about the claim's name, and clears it. A sentence that shares only the word with the claim
    is another fact of a long source ("serves" said of Bob where a report says the Future serves
    as a reference point): in the audit of the fixture index such sentences alone made 15 report
    sentences Not Fully Supported."""
    found_keys = set(assessment.matched.values())
    claim_keys = {t.key for t in claim.terms} | found_keys
    evidence = [analyze(text) for text in texts]

    def lowercase(key: str) -> bool:
        return key in claim.lowercase_keys or any(key in text.lowercase_keys for text in evidence)

    def others(sentence: list[Term]) -> list[str]:
        return [t.surface for t in sentence if _named(t, lowercase) and t.key not in claim_keys]

    found = []
    terms = claim.terms
    at = 0
    while at < len(terms):
        start = end = at
        while (
            end + 1 < len(terms)
            and _named(terms[end + 1], lowercase)
            and terms[end + 1].sentence == terms[start].sentence
        ):
            end += 1
        at = end + 1
        run = terms[start : end + 1]
        if not _named(run[0], lowercase) or at >= len(terms) or not all(map(_latin, run)):
            continue
        word = terms[at]
        if word.kind != "word" or word.sentence != run[0].sentence or word.key not in assessment.matched:
            continue
        names = {assessment.matched[t.key] for t in run if t.key in assessment.matched}
        key = assessment.matched[word.key]
        with_word = [
            (index, sentences[i])
            for index, text in enumerate(texts)
            for sentences, by_key in (_sentences_by_key(text),)
            for i in by_key.get(key, ())
        ]
        if not names or not with_word or any(t.key in names for _, s in with_word for t in s):
            continue
        close = [(index, s) for index, s in with_word if {t.key for t in s} & (found_keys - {key})]
        if close and all(others(s) for _, s in with_word):
            index, sentence = close[0]
            found.append((run[-1], word, others(sentence)[-1], (index, sentence[0].sentence)))
    return found


def names_apart(names: Sequence[str], evidence: Evidence) -> list[tuple[str, str]]:
    """Pairs of the claim's named things that the evidence has but never within a sentence of each
    other: the relation the claim states between them has nothing to rest on."""
    named = list(dict.fromkeys(names))
    if len(named) < 2:
        return []
    places: dict[str, set[tuple[int, int]]] = {name: set() for name in named}
    for place, keys in evidence.sentences.items():
        for name in keys.intersection(named):
            places[name].add(place)
    apart = []
    for a, b in combinations(named, 2):
        near = any((excerpt, sentence + step) in places[b] for excerpt, sentence in places[a] for step in (-1, 0, 1))
        if not near:
            apart.append((a, b))
    return apart
