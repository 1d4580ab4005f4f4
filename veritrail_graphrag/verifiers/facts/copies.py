"""Reversals a claim puts into a sentence of its evidence that it copies.

A pipeline step often restates a sentence of its input almost word for word: a map answer copies a
community report, a final answer copies a map answer, a summary lifts a phrase of its source.
Aligned with such a sentence, the claim's
words fall into anchors (words both share, in order) and the short places between them. Most
differences in those places are synonyms ("crucial" -> "vital": all 25 read of the hundred such
edits in an audit of the fixture index's 122 reports), which words alone cannot tell from a changed
fact, so they are no alarm. Five are reversals:

- an opposite between the same two anchors ("Caroline's husband ... a young, careworn man" ->
  "an old, careworn man", "patient" -> "impatient");
- a word of direction turned around between them, in a sentence the claim copies ("offer a drink
  to the postboy" -> "from the postboy", "the room above" -> "the room below");
- a denial dropped: the copied sentence denies what the claim, word for word, asserts ("not quite
  deserted" -> "quite deserted"), and no evidence sentence as close to the claim asserts it; a
  claim that joins two sentences into one copies both ("The school is not quite deserted. A
  solitary child is left there" -> "quite deserted, with a solitary child left there");
- two names on either side of a word, the other way round ("the Ward to indict Marley's ghost"
  -> "Marley's ghost to indict the Ward");
- a name put where the copied sentence says "he" of someone it named before ("Marley's ghost is
  burdened by the chain he forged" -> "the chain Scrooge forged").

The antonym check of the whole evidence (`opposite_word`) stays a weak signal, and so does a
denial somewhere in the evidence: a source holds many sentences, and an opposite or a "not"
somewhere in it says little ("raised the potential" against "not raising his eyes"). In the
sentence the claim copies, the alignment says which word was turned around.

Source text is compared as well as intermediate outputs: on the dev splits this caught SummEdits
edits ("a maximum purchase" where the email says minimum, "hidden fees" where it says "no hidden
fees") and flagged no true claim of FABLES or of the fixture index's reports.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from functools import lru_cache
from itertools import pairwise
from typing import NamedTuple

from veritrail_graphrag import interruption
from veritrail_graphrag.verifiers.facts.relations import (
    POSSESSIVE,
    Span,
    Written,
    evidence_read,
    negated_by_prefix,
    prefixed_forms,
    quoted,
    sentences_of,
    written,
)
from veritrail_graphrag.verifiers.lexical.antonyms import opposites, person_opposites
from veritrail_graphrag.verifiers.lexical.judge import Assessment
from veritrail_graphrag.verifiers.lexical.text import STOPWORDS, Term, TextTerms, stem

MAX_EDIT = 3
"""Terms on either side of an edit: more than this is a rewrite, not a copy with a word changed."""


def _both_ways(pairs: str) -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for pair in pairs.split():
        a, b = pair.split(":")
        table.setdefault(a, set()).add(b)
        table.setdefault(b, set()).add(a)
    return {word: frozenset(others) for word, others in table.items()}


_DIRECTIONS = _both_ways("above:below over:under to:from into:from upstairs:downstairs")
"""Function words of direction: stopwords to every other check, and turned around in a copy they
reverse who gives and who takes, or where something is. Not "in"/"out", "up"/"down", "on"/"off":
idioms ("based in" / "operates out of") turn them without reversing anything."""
_WORD = re.compile(r"[^\W\d_]+")
_SWAP_WINDOW = 3
"""Terms on each side of a word where the names it relates stand."""
_PASSIVE = frozenset("by is was are were be been being".split())
_ARTICLES = frozenset("a an the s".split())
_EXCEPTION = re.compile(r"\b(?:other than|except|apart from|save for|besides)\b", re.IGNORECASE)
_UNTIL = re.compile(r"^[^,;:.!?]*\buntil\b", re.IGNORECASE)
"""'until' in the denial's own clause: 'was not rebuilt until 1920' dates the rebuilding."""
_DENYING_VERBS = frozenset(stem(w) for w in "avoid refuse fail deny decline reject escape prevent resist".split())
"""Verbs that deny their object: "avoided relegation" says what "was not relegated" says."""
_SENTENCE_BREAK = re.compile(r"[.!?:]|\n\s*\n")
_SUPPOSING = re.compile(r"\b(?:if|unless|whether)\b", re.IGNORECASE)
_CLAUSE_OPENERS = frozenset("after before because since until although though once".split())
"""Words that open a clause and are terms (not stopwords): "after he took over" may be anyone."""
_PRONOUNS = frozenset(("he", "she"))
"""Pronouns that stand for one named person as a clause's subject: "it" stands for things, which a
claim rightly names; "they" for groups; "him" and "her" for someone other than the subject, or own
something ("her husband")."""


@dataclass(frozen=True)
class Reversal:
    """The claim's words (`text`, at `span` in the claim) where the copied sentence has `instead`."""

    text: str
    span: Span | None
    instead: str
    compared: str = ""
    """The evidence sentence the claim copies, as written (two, when it joins two)."""


class _Read(NamedTuple):
    """One sentence of an evidence text as the alignment reads it, kept with the text: the same
    texts are aligned with many claims, and these say without aligning whether a claim could
    copy the sentence at all. A tuple of numbers and a dict of counts, which the garbage
    collector stops tracking: a cached text keeps a few objects it walks, not one per sentence
    and key (on 40 of the fixture index's reports, about a hundred thousand)."""

    start: int
    end: int
    """The sentence's terms are the text's `start:end`: a sentence, wrapped lines mended, is a
    run of terms in the text's order."""
    counts: dict[str, int]
    """How many of its terms have each key (its keys): the most that can pair with a claim's."""
    denies: bool
    """Whether a denial reaches any of its terms."""


@dataclass(frozen=True)
class _Sentences:
    """An evidence text's sentences (`reads`, in order) and, per key, the sentences holding it
    (`where`): a claim shares two terms with few sentences of a long source, and these are found
    from the claim's keys without looking at the others."""

    terms: tuple[Term, ...]
    """The text's terms, as `evidence_read` has them."""
    reads: tuple[_Read, ...]
    where: dict[str, int | tuple[int, ...]]
    """Per key, the index of the sentence holding it, or of each when several do: a number
    rather than a tuple of one, which the garbage collector would track (most keys of a text are
    in one of its sentences)."""

    def sentence(self, index: int) -> tuple[Term, ...]:
        read = self.reads[index]
        return self.terms[read.start : read.end]

    def shared(self, keys: frozenset[str]) -> dict[int, int]:
        """Per sentence holding any of `keys`, by index, how many of them it holds."""
        counts: dict[int, int] = {}
        for key in keys:
            at = self.where.get(key, ())
            for index in (at,) if isinstance(at, int) else at:
                counts[index] = counts.get(index, 0) + 1
        return counts


@lru_cache(maxsize=1024)
def _sentences(text: str) -> _Sentences:
    """A text's terms by sentence, a line break inside a sentence mended: source text is often
    wrapped at a fixed width (Project Gutenberg's), and a wrapped line is a fragment that a claim
    can seem to copy while its sentence says more ("If you paid a fee ... and you do not agree
    to be bound by the terms")."""
    side = evidence_read(text)
    terms, starts, ends = side.terms.terms, side.spans.starts, side.spans.ends
    bounds: list[list[int]] = []
    for sentence in sentences_of(side.terms):
        first, last = sentence[0].position, sentence[-1].position
        previous = terms[bounds[-1][1] - 1] if bounds else None
        if previous is None or previous.position not in ends or first not in starts:
            bounds.append([first, last + 1])
            continue
        gap = text[ends[previous.position] : starts[first]]
        if _SENTENCE_BREAK.search(gap):
            bounds.append([first, last + 1])
        else:
            bounds[-1][1] = last + 1
    reads = tuple(
        _Read(start, end, counts, any(t.negation is not None for t in terms[start:end]))
        for start, end in bounds
        for counts in (dict(Counter(t.key for t in terms[start:end])),)
    )
    where: dict[str, list[int]] = {}
    for index, read in enumerate(reads):
        for key in read.counts:
            where.setdefault(key, []).append(index)
    return _Sentences(terms, reads, {key: at[0] if len(at) == 1 else tuple(at) for key, at in where.items()})


@lru_cache(maxsize=1024)
def _text_partners(text: str) -> dict[str, set[str]]:
    """An evidence text's `_run_partners`, once per text; the claim's are kept apart (`reversals`)."""
    return _run_partners(evidence_read(text).terms)


def _most_pairs(keys: Sequence[str], plain: Sequence[bool], read_keys: Collection[str]) -> tuple[int, int]:
    """At most how many claim terms, and how many plain words among them, an alignment with a
    sentence holding `read_keys` can pair: each pair is a claim term whose key the sentence has."""
    ours = [i for i, key in enumerate(keys) if key in read_keys]
    return len(ours), sum(plain[i] for i in ours)


@dataclass(frozen=True)
class _Opposing:
    """What stands opposite the claim's words that its evidence lacks, whichever sentence holds
    it: their listed opposites' keys and their forms with a negating prefix put on or taken off,
    as written (`_opposed`). A sentence holding none of them opposes nothing, and one the claim
    cannot copy (`_may_copy`) is then not aligned at all: most sentences of a long source."""

    keys: frozenset[str]
    surfaces: frozenset[str]

    def any_in(self, reads: _Sentences, index: int) -> bool:
        if not self.surfaces:
            return False
        read = reads.reads[index]
        return any(key in read.counts for key in self.keys) or any(
            term.surface.lower() in self.surfaces for term in reads.sentence(index)
        )


def _opposing(terms: Sequence[Term], absent: set[int]) -> _Opposing:
    keys: set[str] = set()
    surfaces: set[str] = set()
    for term in terms:
        if term.position in absent:
            keys |= opposites(term.key)
            surfaces.update(prefixed_forms(term.surface))
    return _Opposing(frozenset(keys), frozenset(surfaces))


def _opposed(term: Term, copied: Sequence[Term]) -> bool:
    return any(other.key in opposites(term.key) or negated_by_prefix(term.surface, other.surface) for other in copied)


def _turned(claim_gap: str, copied_gap: str) -> bool:
    """Whether the claim has a word of direction between two anchors where the copy has its
    opposite, and otherwise at most one other word changed: a copy turned around, not the same
    two anchors in another sentence ("operates out of" / "a publisher based in")."""
    words, theirs = _words(claim_gap), _words(copied_gap)
    ours_only, theirs_only = words - theirs, theirs - words
    turned = any(_DIRECTIONS.get(word, frozenset()) & theirs_only for word in ours_only)
    return turned and len(ours_only) <= 2 and len(theirs_only) <= 2


def reversals(claim_text: str, claim: TextTerms, texts: Sequence[str], assessment: Assessment) -> list[Reversal]:
    """The reversals of the module docstring, in every sentence of the evidence `texts`.

    A sentence is copied when it shares terms with the claim in the claim's order, two of them
    words (a name alone is no wording: "Tiny Tim" is in every sentence about him), and either more
    than half of the claim's terms or, with three or more, half of its own. Opposites
    count between any two anchors (the anchors are the frame); direction words, pronouns and
    dropped denials only in a copied sentence, and a dropped denial only when no evidence sentence
    as close to the claim asserts the word. Two neighbouring sentences are copied together when
    each shares a term with the claim, neither holds more than half of its terms, and together
    they hold half of them in its order, two plain words among them. Only a dropped denial is
    looked for there, and only of a denial whose every word the claim has ("did not report a
    profit" is not "reported a loss"), on words aligned within a phrase (`_phrased`)."""
    if not claim.terms:
        return []
    ours = written(claim_text)
    keys = [assessment.matched.get(term.key, f"\0{term.key}") for term in claim.terms]
    found: dict[Span | str, Reversal] = {}

    def add(reversal: Reversal, theirs: Written, sentence: Sequence[Term]) -> None:
        compared = quoted(theirs, sentence[0], sentence[-1])
        found.setdefault(reversal.span or reversal.text, replace(reversal, compared=compared))

    asserted: dict[str, int] | None = None
    absent = {term.position for term in assessment.absent}
    opposing = _opposing(claim.terms, absent)
    key_set = frozenset(keys)
    plain = [term.kind == "word" and not term.initial_capital for term in claim.terms]
    claim_partners = _run_partners(claim)
    for output in texts:
        interruption.check()
        theirs = evidence_read(output)
        negations = theirs.terms.negations
        partners = (_text_partners(output), claim_partners)
        reads = _sentences(output)
        held = reads.shared(key_set)
        for index in sorted(i for i, n in held.items() if n >= 2):  # most sentences of a long source share less
            read = reads.reads[index]
            sentence = reads.sentence(index)
            for reversal in _swapped_names(ours, theirs, claim.terms, keys, sentence):
                add(reversal, theirs, sentence)
            if not _may_copy(keys, plain, read) and not opposing.any_in(reads, index):
                continue  # no copy, and no opposite of a word the evidence lacks: nothing to find
            pairs = _aligned(keys, sentence)
            if len(pairs) < 2:
                continue
            worded = sum(plain[c] for c, _ in pairs) >= 2
            copied = worded and (2 * len(pairs) > len(keys) or (len(pairs) >= 3 and 2 * len(pairs) >= len(sentence)))
            bounds = [(-1, -1), *pairs, (len(keys), len(sentence))] if copied else pairs
            for (ca, sa), (cb, sb) in pairwise(bounds):
                gap, copy_gap = claim.terms[ca + 1 : cb], sentence[sa + 1 : sb]
                if len(gap) > MAX_EDIT or len(copy_gap) > MAX_EDIT:
                    continue
                opposed = [t for t in gap if t.position in absent and _opposed(t, copy_gap)]
                if opposed:
                    text, span = ours.phrase(opposed[0], opposed[-1])
                    add(Reversal(text, span, " ".join(t.surface for t in copy_gap)), theirs, sentence)
                elif copied and 0 <= ca and cb < len(keys):
                    left, right = claim.terms[ca], claim.terms[cb]
                    copied_between = theirs.between(sentence[sa], sentence[sb])
                    if _turned(ours.between(left, right), copied_between):
                        text, span = ours.phrase(left, right)
                        instead = theirs.phrase(sentence[sa], sentence[sb])[0]
                        add(Reversal(text, span, instead), theirs, sentence)
                    elif gap and (pronoun := _pronoun_for(theirs, gap, copied_between, sentence, sa, partners)):
                        text, span = ours.phrase(gap[0], gap[-1])
                        add(Reversal(text, span, pronoun), theirs, sentence)
            if copied and any(sentence[s].negation is not None for _, s in pairs):
                asserted = _asserted(texts, key_set) if asserted is None else asserted
                close = held[index]
                aligned = [
                    (claim.terms[c], sentence[s])
                    for c, s in _still_denied(claim.terms, sentence, pairs)
                    if asserted.get(keys[c], 0) < close
                ]
                for reversal in _dropped_denials(ours, theirs, negations, aligned, sentence):
                    add(reversal, theirs, sentence)
        for index in sorted(i for i in held if i + 1 in held):  # each of the two shares a term
            first, second = reads.reads[index], reads.reads[index + 1]
            shared = [held[index], held[index + 1]]
            if 2 * max(shared) > len(keys):
                continue  # one sentence is the copy (above), or one adds nothing to it
            most, most_words = _most_pairs(keys, plain, first.counts.keys() | second.counts.keys())
            if not (first.denies or second.denies) or most_words < 2 or 2 * most < len(keys):
                continue  # no denial to have dropped, or too little in common to align (below)
            fused = reads.terms[first.start : second.end]
            pairs = _aligned(keys, fused)
            words = sum(plain[c] for c, _ in pairs)
            if words < 2 or 2 * len(pairs) < len(keys) or all(fused[s].negation is None for _, s in pairs):
                continue
            asserted = _asserted(texts, key_set) if asserted is None else asserted
            phrased, at = _phrased(pairs), {s for _, s in pairs}
            partly = {
                t.negation for i, t in enumerate(fused) if t.negation is not None and i not in at and t.kind != "number"
            }
            aligned = [
                (claim.terms[c], fused[s])
                for c, s in _still_denied(claim.terms, fused, pairs)
                if c in phrased and fused[s].negation not in partly and asserted.get(keys[c], 0) < max(shared)
            ]
            for reversal in _dropped_denials(ours, theirs, negations, aligned, fused):
                add(reversal, theirs, fused)
    return list(found.values())


def _phrased(pairs: Sequence[tuple[int, int]]) -> set[int]:
    """Claim terms aligned within a phrase both texts share: a claim neighbour is aligned too, at
    most two terms away in the sentence ("school ... deserted" in "The school is not quite
    deserted"). Two sentences hold more words than one, and a word aligned alone there is often
    the same word in another sense ("raised the potential" / "not raising his eyes")."""
    where = dict(pairs)
    return {c for c, s in pairs if any(c + step in where and 0 < abs(where[c + step] - s) <= 2 for step in (-1, 1))}


@lru_cache(maxsize=1024)
def _matcher(sentence_keys: tuple[str, ...]) -> SequenceMatcher[str]:
    """A matcher holding the sentence's side, whose index of positions by key `SequenceMatcher`
    builds once for the second sequence: an evidence sentence is aligned with many claims (1,024
    matchers, each a dict of lists the garbage collector walks, find 92% of the hits of 4,096)."""
    return SequenceMatcher(None, (), sentence_keys, autojunk=False)


def _may_copy(keys: Sequence[str], plain: Sequence[bool], read: _Read) -> bool:
    """Whether an alignment of the claim with the sentence could count as a copy (`reversals`),
    by the most pairs it could hold: most sentences of a long source share a few of a claim's
    words and are never aligned."""
    most, most_words = _most_pairs(keys, plain, read.counts)
    most = min(most, sum(read.counts[key] for key in read.counts.keys() & keys))
    return most_words >= 2 and (2 * most > len(keys) or (most >= 3 and 2 * most >= read.end - read.start))


def _aligned(keys: Sequence[str], sentence: Sequence[Term]) -> list[tuple[int, int]]:
    """(claim term, sentence term) pairs that share a key, in both texts' order."""
    matcher = _matcher(tuple(term.key for term in sentence))
    matcher.set_seq1(keys)
    return [(b.a + k, b.b + k) for b in matcher.get_matching_blocks() for k in range(b.size)]


def _still_denied(
    claim: Sequence[Term], sentence: Sequence[Term], pairs: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The aligned pairs whose denial the claim may have dropped: not when the claim denies another
    word of the same denial ("issued no statement" for "did not issue a statement") or denies it
    with a verb ("avoided relegation"), nor when the claim says it of someone the sentence does not
    deny it of ("United lifted the title" where "City did not lift the title")."""
    kept = {
        sentence[s].negation for c, s in pairs if sentence[s].negation is not None and claim[c].negation is not None
    }
    return [
        (c, s)
        for c, s in pairs
        if sentence[s].negation not in kept
        and not _denied_by_verb(claim, c)
        and not _another_subject(claim, c, sentence, s)
    ]


def _another_subject(claim: Sequence[Term], c: int, sentence: Sequence[Term], s: int) -> bool:
    """Whether the claim and the sentence name different people before the aligned words."""
    ours = {t.key for t in claim[:c] if t.sentence == claim[c].sentence and (t.kind == "name" or t.initial_capital)}
    theirs = {t.key for t in sentence[:s] if t.kind == "name" or t.initial_capital}
    return bool(ours) and bool(theirs) and not ours & theirs


def _denied_by_verb(terms: Sequence[Term], at: int) -> bool:
    """Whether a verb that denies its object stands just before the claim term at `at` ("avoided
    relegation", "refused to give up her seat"): the claim words the denial another way."""
    return any(
        0 <= i < at and terms[i].sentence == terms[at].sentence and terms[i].key in _DENYING_VERBS
        for i in (at - 1, at - 2)
    )


def _run_partners(text: TextTerms) -> dict[str, set[str]]:
    """For each key, the keys it shares a run of capitalized words with in `text` ("Ebenezer" and
    "Scrooge"): one person's names."""
    partners: dict[str, set[str]] = {}
    for _, positions in text.runs:
        keys = {text.terms[p].key for p in positions}
        for key in keys:
            partners.setdefault(key, set()).update(keys - {key})
    return partners


def _pronoun_for(
    theirs: Written,
    gap: Sequence[Term],
    copied_between: str,
    sentence: Sequence[Term],
    at: int,
    partners: Sequence[dict[str, set[str]]],
) -> str | None:
    """The pronoun of the copied sentence, and whom it stands for, where the claim puts a name in
    its place ("Marley's ghost is burdened by the chain he forged" -> "the chain Scrooge forged"):
    the claim credits someone else with what the sentence says of the person it opens on, the
    only one it names before the pronoun (up to `at`). Only a pronoun that stands alone between
    two words of the copy, in a clause on the noun before it ("the chain he forged"): after "and",
    "after" or "while" it may be anyone ("Marie Curie hired an assistant, and he ...", "General
    Motors grew after he took over"). Not when the sentence opens otherwise ("At Microsoft, he
    ..."), names another person or a kin before the pronoun ("Fred invites his uncle ..."), nor
    when the claim's name is the sentence's or another name of that person ("Ebenezer")."""
    if not all(t.kind == "name" or t.initial_capital for t in gap):
        return None
    pronoun = copied_between.strip()
    if pronoun.lower() not in _PRONOUNS or sentence[at].surface.lower() in _CLAUSE_OPENERS:
        return None  # "..., and he", "after he": a new clause, whose "he" may be anyone
    before, first = sentence[: at + 1], sentence[0]
    named = {t.key for t in before if t.kind == "name" or t.surface.endswith(POSSESSIVE)}
    others = set().union(*(table.get(first.key, ()) for table in partners))
    person = {first.key} | others
    if _WORD.search(theirs.opening(first, first)) or not (first.key in named or others):
        return None  # a capital that only opens the sentence names no one ("Tonight he ...")
    if named - person or any(person_opposites(t.key) for t in before):
        return None
    if {t.key for t in gap} & ({t.key for t in sentence} | person):
        return None
    who = first.surface.removesuffix(POSSESSIVE[0]).removesuffix(POSSESSIVE[1])
    return f"{pronoun} ({who})"


def _names_near(terms: Sequence[Term], keys: Sequence[str], at: int, step: int) -> dict[str, int]:
    """The names within `_SWAP_WINDOW` terms of `at` on one side (`step` -1 or 1), by key; a
    capitalized word opening the sentence counts ("Scrooge visits ...")."""
    near = range(at + step, at + step * (_SWAP_WINDOW + 1), step)
    return {keys[i]: i for i in near if 0 <= i < len(terms) and (terms[i].kind == "name" or terms[i].initial_capital)}


def _swapped_names(
    ours: Written, theirs: Written, claim_terms: Sequence[Term], keys: Sequence[str], sentence: list[Term]
) -> list[Reversal]:
    """Two names on either side of a word, put the other way round in the same frame by a sentence
    that holds more than half of the claim's terms ("the Ward to indict Marley's ghost" / "Marley's
    ghost to indict the Ward"): who does what to whom, reversed. Unless either side is in the
    passive voice ("Scrooge is visited by Marley", "the Ghost's torch is shaped like Plenty's
    horn"), which turns the order and not the meaning."""
    copied = [t.key for t in sentence]
    if 2 * len(set(keys) & set(copied)) <= len(set(keys)):
        return []
    found = []
    for i, word in enumerate(claim_terms):
        if word.kind != "word" or keys[i] not in copied:
            continue
        j = copied.index(keys[i])
        before, after = _names_near(claim_terms, keys, i, -1), _names_near(claim_terms, keys, i, 1)
        their_before, their_after = _names_near(sentence, copied, j, -1), _names_near(sentence, copied, j, 1)
        back = [k for k in before if k in their_after and k not in their_before]
        front = [k for k in after if k in their_before and k not in their_after]
        if not back or not front:
            continue
        first, last = claim_terms[before[back[0]]], claim_terms[after[front[0]]]
        their_first, their_last = sentence[their_before[front[0]]], sentence[their_after[back[0]]]
        left, right = ours.between(first, word), ours.between(word, last)
        their_left, their_right = theirs.between(their_first, sentence[j]), theirs.between(sentence[j], their_last)
        same_frame = _frame(left) == _frame(their_left) and _frame(right) == _frame(their_right)
        passive = (_words(left + right) | _words(their_left + their_right)) & _PASSIVE
        if same_frame and not passive:
            text, span = ours.phrase(first, last)
            found.append(Reversal(text, span, theirs.phrase(their_first, their_last)[0]))
    return found


def _frame(gap: str) -> frozenset[str]:
    """The function words between a name and the word it relates ("to" in "the Ward to indict"),
    articles aside: the same on both sides when only the names changed places, not when the same
    names and word meet in another construction ("the spirit of Christmas" / "Christmas spirit")."""
    return frozenset(_words(gap) & STOPWORDS) - _ARTICLES


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def _asserted(texts: Sequence[str], keys: frozenset[str]) -> dict[str, int]:
    """For each evidence key, the most claim terms an evidence sentence shares while asserting it
    (a term no "not" reaches): how close to the claim a sentence saying it plainly is."""
    best: dict[str, int] = {}
    for text in texts:
        reads = _sentences(text)
        for index, shared in reads.shared(keys).items():
            for term in reads.sentence(index):
                if term.negation is None and term.key in keys and shared > best.get(term.key, -1):
                    best[term.key] = shared
    return best


def _dropped_denials(
    ours: Written, theirs: Written, negations: dict[int, str], aligned: list[tuple[Term, Term]], sentence: list[Term]
) -> list[Reversal]:
    """Claim terms no "not" reaches, aligned with the word a denial of the copied sentence opens on
    (not a word further in its reach: "no sword and is rusted" denies the sword, not the rust). A
    denial that keeps an exception ("never spent Christmas anywhere other than Belgravia") or a
    time in its own clause ("was not rebuilt until 1920") asserts the exception, and one in an
    "if" clause ("if you do not agree to the terms") supposes."""
    if _EXCEPTION.search(theirs.phrase(sentence[0], sentence[-1])[0]):
        return []
    scopes: dict[int, list[tuple[Term, Term]]] = {}
    for mine, copied in aligned:
        if copied.negation is not None and mine.negation is None:
            scopes.setdefault(copied.negation, []).append((mine, copied))
    firsts = {t.negation: t.position for t in reversed(sentence) if t.negation is not None}
    found = []
    for scope, pairs in scopes.items():
        denied = pairs[0][1]
        if denied.position != firsts[scope] or _SUPPOSING.search(theirs.opening(sentence[0], denied)):
            continue
        if _UNTIL.search(theirs.phrase(denied, sentence[-1])[0]):
            continue
        text, span = ours.phrase(pairs[0][0], pairs[-1][0])
        found.append(Reversal(text, span, f"{negations[scope]} {theirs.phrase(denied, pairs[-1][1])[0]}"))
    return found
