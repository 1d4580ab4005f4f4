"""The pooled evidence of a verdict, built from each text's cached index, is the pooling of every
term of every text, term by term (the definition below), and a text's index is computed once."""

from __future__ import annotations

from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from veritrail_graphrag.verifiers.lexical import LexicalConfig
from veritrail_graphrag.verifiers.lexical.judge import Evidence, assess, indexed, number_role
from veritrail_graphrag.verifiers.lexical.text import Term, analyze, fuzzy_equal

WORDS = (
    "Scrooge Marley Tiny Tim United Nations UN DistributedRuntime distributed runtime the a of and not never no "
    "organisation organization organizations conference conferences counting-house counting house generous "
    "generosity mean kind unkind visited visits 12 1843 three 40% is was"
).split()

sentences = st.lists(st.sampled_from(WORDS), min_size=1, max_size=9).map(lambda words: " ".join(words) + ".")
texts = st.lists(sentences, min_size=1, max_size=4).map(" ".join)


class TermByTerm:
    """The pooled evidence as defined: every term of every text added in turn."""

    def __init__(self, evidence_texts: list[str]) -> None:
        self.keys: set[str] = set()
        self.by_prefix: dict[str, list[str]] = defaultdict(list)
        self.negations: dict[str, list[tuple[int, int | None]]] = defaultdict(list)
        self.scopes: dict[tuple[int, int], set[str]] = defaultdict(set)
        self.scope_places: dict[tuple[int, int], tuple[int, int]] = {}
        self.sentences: dict[tuple[int, int], set[str]] = defaultdict(set)
        self.numbers: list[tuple[str, str, frozenset[str]]] = []
        self.lowercase: set[str] = set()
        self.acronyms: set[str] = set()
        for excerpt, text in enumerate(evidence_texts):
            terms = analyze(text)
            for term in terms.terms:
                if term.kind == "word" and len(term.key) >= 5 and term.key not in self.by_prefix[term.key[:5]]:
                    self.by_prefix[term.key[:5]].append(term.key)
                self.keys.add(term.key)
                self.keys.update(term.parts)
                self.sentences[(excerpt, term.sentence)].update((term.key, *term.parts))
                self.negations[term.key].append((excerpt, term.negation))
                if term.negation is not None:
                    self.scopes[(excerpt, term.negation)].add(term.key)
                    self.scope_places[(excerpt, term.negation)] = (excerpt, term.sentence)
            self.numbers.extend(
                (t.key, t.surface, number_role(terms.terms, t)) for t in terms.terms if t.kind == "number"
            )
            self.lowercase |= terms.lowercase_keys
            self.acronyms |= terms.acronyms

    def match(self, term: Term) -> str | None:
        if term.key in self.keys or (term.kind == "name" and term.key in self.acronyms):
            return term.key
        if term.parts and all(part in self.keys for part in term.parts):
            return term.parts[-1]
        if term.kind == "word" and len(term.key) >= 5:
            return next((c for c in self.by_prefix.get(term.key[:5], ()) if fuzzy_equal(term.key, c)), None)
        return None


def _pooled(evidence_texts: list[str]) -> Evidence:
    evidence = Evidence()
    for text in evidence_texts:
        evidence.add(text)
    return evidence


@settings(max_examples=150, deadline=None)
@given(st.lists(texts, min_size=1, max_size=4), texts)
def test_pooled_from_indexes_is_pooled_term_by_term(evidence_texts: list[str], claim_text: str) -> None:
    pooled, wanted = _pooled(evidence_texts), TermByTerm(evidence_texts)
    assert pooled.keys == wanted.keys
    assert pooled.numbers == wanted.numbers
    assert list(pooled.sentences) == list(wanted.sentences)  # the same order: it breaks ties
    assert {place: set(keys) for place, keys in pooled.sentences.items()} == dict(wanted.sentences)
    for key in wanted.keys | {"absent"}:
        assert pooled.negations(key) == wanted.negations.get(key, [])
        assert pooled.has_term(key) == (key in wanted.negations)
    for (excerpt, scope), keys in wanted.scopes.items():
        assert pooled.scope_keys(excerpt, scope) == keys
        assert pooled.scope_place(excerpt, scope) == wanted.scope_places[(excerpt, scope)]
    assert (pooled.lowercase, pooled.acronyms) == (wanted.lowercase, wanted.acronyms)
    claim = analyze(claim_text)
    for term in claim.terms:
        assert pooled.match(term) == wanted.match(term)
    assessment = assess(claim, pooled, LexicalConfig())
    assert set(assessment.matched.values()) <= wanted.keys


def test_the_first_close_word_in_the_excerpts_order_stands_for_a_claim_word() -> None:
    """'governed' is close to 'governor' and to 'governance'; the excerpt read first gives its word."""
    term = analyze("The council governed.").terms[1]
    first, second = "The governor spoke.", "The governance held."
    assert _pooled([first, second]).match(term) == "governor"
    assert _pooled([second, first]).match(term) == "governanc"


def test_a_text_shown_to_many_verdicts_is_indexed_once() -> None:
    chunk = "Scrooge was not generous. Marley visited him in 1843."
    indexed.cache_clear()
    for _ in range(3):
        _pooled([chunk, "Tiny Tim was kind."])
    info = indexed.cache_info()
    assert (info.misses, info.hits) == (2, 4)
