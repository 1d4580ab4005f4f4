"""Which sentences of a node cannot be evidence for a claim, decided without a model call.

Evidence Selection reads every sentence it is shown, and a source chunk of fifty sentences mostly
speaks of other things than the claim. A sentence is left out when all of these hold:
- it shares no content word (compared by stem, close derivations included), name, acronym or
  number with the claim or any of its sub-claims;
- it is far from each of them in meaning: the cosine similarity of their WordLlama embeddings
  (a static word-embedding model of 16 MB that ships inside its wheel and runs on numpy) is below
  `MIN_SIMILARITY`, which lets paraphrases through ("Her father ground the village's grain at the
  mill." for "Mara Voss was the miller's daughter.");
- it does not open by pointing back ("He", "This") right after a sentence that is kept.
A node of at most `LONG_NODE` sentences (an entity or relationship description) is kept or left
out whole, by the same test on any of its sentences, so that a kept one is read in its context.
Measured on GraphRAG's fixture index, most of an audit's tokens go to such short descriptions and
nearly all name someone the claim names: the long source chunks are where it cuts. A claim with no
content word is never filtered.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from veritrail_graphrag.errors import VerifierConfigError
from veritrail_graphrag.models import Claim, Sentence
from veritrail_graphrag.verifiers.lexical.select import overlap, starts_with_pronoun
from veritrail_graphrag.verifiers.lexical.text import analyze

LONG_NODE = 8
"""Sentences a node must exceed before any of them is left out."""
MIN_SIMILARITY = 0.15
"""Chosen on the FABLES dev books against the text units it keeps (`benchmarks/prefilter_tokens.py`)."""

Vectors = npt.NDArray[np.float32]


@lru_cache(maxsize=1)
def _model() -> Any:
    """The embedding model, loaded once from the weights inside the installed package: never a
    download, so it behaves the same on an offline machine."""
    import wordllama
    from wordllama import WordLlama

    try:
        return WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    except Exception as exc:  # a missing or damaged weights file: the library raises several kinds
        raise VerifierConfigError(
            f"the prefilter's embedding model could not be loaded from {Path(wordllama.__file__).parent} "
            f"({type(exc).__name__}: {exc}); reinstall it with `pip install --force-reinstall wordllama`, "
            "or audit without --prefilter"
        ) from exc


def _normalised(texts: Sequence[str]) -> Vectors:
    vectors = np.asarray(_model().embed(list(texts)), dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


@lru_cache(maxsize=4096)
def _node_vectors(texts: tuple[str, ...]) -> Vectors:
    """Cached per node: a source chunk is filtered again for every claim that reaches it."""
    return _normalised(texts)


@lru_cache(maxsize=65536)
def _terms(text: str) -> frozenset[str]:
    analyzed = analyze(text)
    return analyzed.key_set | analyzed.acronyms


def _claim_texts(claim: Claim) -> list[str]:
    """The claim and its sub-claims: a sub-claim may name what the claim only implies."""
    return list(dict.fromkeys((claim.text, *claim.sub_claims)))


def may_be_evidence(claim: Claim, sentences: Sequence[Sentence]) -> list[bool]:
    """One flag per sentence of one node, in order: False for a sentence to leave out. A short node
    is kept or left out whole."""
    flags = related(claim, sentences)
    if len(sentences) <= LONG_NODE:
        return [any(flags)] * len(sentences)
    return flags


def related(claim: Claim, sentences: Sequence[Sentence]) -> list[bool]:
    """The sentence rules without the node-length gate (a benchmark applies them to short quotes)."""
    texts = _claim_texts(claim)
    terms = tuple(frozenset().union(*(_terms(text) for text in texts)))
    if not terms:
        return [True] * len(sentences)
    flags = [overlap(terms, _terms(sentence.text)) > 0 for sentence in sentences]
    if not all(flags):
        similarity = (_node_vectors(tuple(s.text for s in sentences)) @ _normalised(texts).T).max(axis=1)
        flags = [flag or bool(score >= MIN_SIMILARITY) for flag, score in zip(flags, similarity, strict=True)]
    return [
        flag or (position > 0 and flags[position - 1] and starts_with_pronoun(sentence.text))
        for position, (flag, sentence) in enumerate(zip(flags, sentences, strict=True))
    ]
