"""Issue 41: `reversals` skips aligning a claim with a sentence when a bound says no copy can be
found there, and finds the sentences worth a look from an index of each text's sentences by key.
Neither may rule out a sentence that would have counted: these properties compare the bound with
`difflib`'s alignment itself on random key sequences, and the index with each sentence's keys."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from veritrail_graphrag.verifiers.facts.copies import _aligned, _may_copy, _most_pairs, _Read, _sentences
from veritrail_graphrag.verifiers.lexical.text import Term

KEYS = st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=12)
WORDS = ["mill", "river", "Scrooge", "grain", "not", "bank", "miller", "rivers", "the"]
TEXTS = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8), min_size=1, max_size=8).map(
    lambda sentences: " ".join(" ".join(words) + "." for words in sentences)
)


def _terms(keys: list[str]) -> list[Term]:
    return [Term(key, key, "word", 0, at, None, False) for at, key in enumerate(keys)]


def _read(keys: list[str]) -> _Read:
    terms = _terms(keys)
    counts = Counter(keys)
    return _Read(terms, frozenset(counts), dict(counts), False)


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
    keys |= {term.key for sentence in read.reads[:1] for term in sentence.terms[:1]}  # one the text has
    expected = {i: len(keys & sentence.keys) for i, sentence in enumerate(read.reads) if keys & sentence.keys}
    assert read.shared(keys) == expected
