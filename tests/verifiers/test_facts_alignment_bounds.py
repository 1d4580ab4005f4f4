"""Issue 41: `reversals` skips aligning a claim with a sentence when a bound says no copy can be
found there and the sentence holds no opposite of a word the evidence lacks, and finds the
sentences worth a look from an index of each text's sentences by key. None of these may rule out a
sentence that would have counted: these properties compare the bound with `difflib`'s alignment
itself on random key sequences, the opposites' gate with `_opposed`, and the index with each
sentence's keys."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from veritrail_graphrag.verifiers.facts.copies import (
    _aligned,
    _may_copy,
    _most_pairs,
    _opposed,
    _opposing,
    _Read,
    _sentences,
)
from veritrail_graphrag.verifiers.facts.relations import negated_by_prefix, prefixed_forms
from veritrail_graphrag.verifiers.lexical.text import Term, analyze

KEYS = st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=12)
WORDS = ["mill", "river", "Scrooge", "grain", "not", "bank", "miller", "rivers", "the"]
TEXTS = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8), min_size=1, max_size=8).map(
    lambda sentences: " ".join(" ".join(words) + "." for words in sentences)
)


def _terms(keys: list[str]) -> list[Term]:
    return [Term(key, key, "word", 0, at, None, False) for at, key in enumerate(keys)]


def _read(keys: list[str]) -> _Read:
    return _Read(0, len(keys), dict(Counter(keys)), False)


@settings(max_examples=300, deadline=None)
@given(claim=KEYS, sentence=KEYS, data=st.data())
def test_a_sentence_the_claim_copies_is_never_skipped(claim: list[str], sentence: list[str], data) -> None:
    plain = data.draw(st.lists(st.booleans(), min_size=len(claim), max_size=len(claim)))
    pairs = _aligned(claim, _terms(sentence))
    worded = sum(plain[c] for c, _ in pairs) >= 2
    copied = worded and (2 * len(pairs) > len(claim) or (len(pairs) >= 3 and 2 * len(pairs) >= len(sentence)))
    if copied:
        assert _may_copy(claim, plain, _read(sentence))


@settings(max_examples=300, deadline=None)
@given(claim=KEYS, sentence=KEYS, data=st.data())
def test_the_most_pairs_bound_the_alignment(claim: list[str], sentence: list[str], data) -> None:
    plain = data.draw(st.lists(st.booleans(), min_size=len(claim), max_size=len(claim)))
    pairs = _aligned(claim, _terms(sentence))
    most, most_words = _most_pairs(claim, plain, frozenset(sentence))
    assert len(pairs) <= most
    assert sum(plain[c] for c, _ in pairs) <= most_words


def test_a_claim_sharing_two_words_out_of_order_with_a_long_sentence_is_skipped() -> None:
    """The bound does prune: two shared keys of a ten-key claim can never be half of it."""
    claim = list("abcdefghij")
    assert not _may_copy(claim, [True] * 10, _read(list("jaxyzxyzxyz")))


@settings(max_examples=200, deadline=None)
@given(text=TEXTS, keys=st.frozensets(st.sampled_from([*WORDS, "mil", "scroog", "\0grain"]), max_size=6))
def test_the_sentences_sharing_keys_are_found_by_the_index(text: str, keys: frozenset[str]) -> None:
    """Each sentence holding any of the keys, and how many: what `reversals` looks at and counts."""
    read = _sentences(text)
    keys |= {read.sentence(0)[0].key} if read.reads else set()  # one the text has
    held = [{term.key for term in read.sentence(i)} for i in range(len(read.reads))]
    expected = {i: len(keys & sentence) for i, sentence in enumerate(held) if keys & sentence}
    assert read.shared(keys) == expected


@settings(max_examples=200, deadline=None)
@given(text=TEXTS)
def test_the_sentences_cover_the_text_in_order(text: str) -> None:
    """Each sentence is a run of the text's terms, the runs follow one another and cover every
    term, and each sentence's counts are its terms' keys."""
    read = _sentences(text)
    if not read.reads:
        assert not read.terms
        return
    assert read.reads[0].start == 0 and read.reads[-1].end == len(read.terms)
    assert all(a.end == b.start for a, b in zip(read.reads, read.reads[1:], strict=False))
    for index, sentence in enumerate(read.reads):
        assert sentence.counts == Counter(term.key for term in read.sentence(index))


FORMS = ["patient", "impatient", "legal", "illegal", "honest", "dishonest", "in", "un", "inn", "nonstop", "stop",
         "non-stop", "regular", "irregular", "possible", "impossible", "unhappy", "happy", "Happy", "UNHAPPY"]


@given(word=st.sampled_from(FORMS), other=st.sampled_from(FORMS))
def test_the_prefixed_forms_are_the_words_a_prefix_denies(word: str, other: str) -> None:
    assert (other.lower() in prefixed_forms(word)) == negated_by_prefix(word, other)


OPPOSING = ["young", "old", "patient", "impatient", "husband", "man", "above", "below", "happy", "unhappy", "mill"]


@settings(max_examples=300, deadline=None)
@given(
    claim=st.lists(st.sampled_from(OPPOSING), min_size=1, max_size=8),
    sentence=st.lists(st.sampled_from(OPPOSING), min_size=1, max_size=10),
    data=st.data(),
)
def test_a_sentence_holding_an_opposite_of_an_absent_word_is_never_skipped(
    claim: list[str], sentence: list[str], data
) -> None:
    """Whatever part of the sentence the alignment puts between two anchors, `_opposed` can find
    an opposite there only when the gate says the sentence holds one."""
    ours = analyze(" ".join(claim)).terms
    absent = set(data.draw(st.sets(st.sampled_from([term.position for term in ours])))) if ours else set()
    text = " ".join(sentence) + "."
    read = _sentences(text)
    gate = _opposing(ours, absent)
    for index in range(len(read.reads)):
        found = any(_opposed(term, read.sentence(index)) for term in ours if term.position in absent)
        if found:
            assert gate.any_in(read, index)
