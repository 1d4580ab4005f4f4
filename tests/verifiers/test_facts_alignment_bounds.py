"""Issue 41: `reversals` skips aligning a claim with a sentence when a bound says no copy can be
found there. The bound must never rule out an alignment that would have counted: these
properties compare it with `difflib`'s alignment itself on random key sequences."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from veritrail_graphrag.verifiers.facts.copies import _aligned, _may_copy, _most_pairs, _Read
from veritrail_graphrag.verifiers.lexical.text import Term

KEYS = st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=12)


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
