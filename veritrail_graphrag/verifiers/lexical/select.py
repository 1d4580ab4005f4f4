"""Lexical Evidence Selection: BM25 over one batch of sentences, then a content-overlap check.

The batch itself is the BM25 corpus, so inverse document frequencies say which claim words are
distinctive *in this node's neighbourhood* ("agent" in a sales transcript is not). BM25 alone
always ranks something first, so a sentence must also share enough content terms with the claim
or one of its sub-claims; a sub-claim is queried separately because a sentence backing only one
part of a compound claim shares too little with the whole.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import bm25s

from veritrail_graphrag import interruption
from veritrail_graphrag.models import Claim, EvidenceSelection, Sentence
from veritrail_graphrag.verifiers.lexical.config import LexicalConfig
from veritrail_graphrag.verifiers.lexical.text import analyze, fuzzy_equal

PRONOUNS = frozenset("he she it they this these that those his her its their him them such we our".split())
"""Opening words that point back to the previous sentence, whose text the verdict then needs."""


@lru_cache(maxsize=65536)
def _by_prefix(keys: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """A sentence's keys of five letters or more by their first five: `fuzzy_equal` holds only
    between such keys, so a query key is compared with these few instead of every key of the
    sentence (a sentence is scored for many claims)."""
    grouped: dict[str, list[str]] = {}
    for key in keys:
        if len(key) >= 5:
            grouped.setdefault(key[:5], []).append(key)
    return {prefix: tuple(group) for prefix, group in grouped.items()}


def overlap(query: Sequence[str], sentence: frozenset[str]) -> int:
    """Distinct query terms found in the sentence, counting close derivations as found."""
    count = 0
    for key in query:
        if key in sentence:
            count += 1
        elif len(key) >= 5 and not key.isdigit():
            count += any(fuzzy_equal(key, k) for k in _by_prefix(sentence).get(key[:5], ()))
    return count


def _query(text: str) -> list[str]:
    return list(dict.fromkeys(analyze(text).keys))


@dataclass(frozen=True)
class _Batch:
    """A batch's BM25 index and its sentences' keys (None: no sentence has a content word)."""

    index: bm25s.BM25
    key_sets: list[frozenset[str]]


@lru_cache(maxsize=1024)
def _indexed(texts: tuple[str, ...]) -> _Batch | None:
    """Built once per batch, however many claims are shown it: the claims of one report start at
    the same nodes and meet the same batches. The index depends on the texts alone (the batch is
    its own corpus), so a cached one scores exactly as a fresh one would."""
    analyzed = []
    for text in texts:
        interruption.check()  # a batch of long sentences takes seconds
        analyzed.append(analyze(text))
    documents = [s.keys for s in analyzed]
    if not any(documents):
        return None
    index = bm25s.BM25()
    index.index(documents, show_progress=False)
    return _Batch(index, [s.key_set for s in analyzed])


def sentence_keys(texts: tuple[str, ...]) -> list[frozenset[str]]:
    """Each sentence's keys as the batch's index holds them: what a verifier reads of a batch
    besides the selection costs no second analysis of its sentences."""
    batch = _indexed(texts)
    return batch.key_sets if batch is not None else [frozenset()] * len(texts)


def _selected_indices(queries: Sequence[list[str]], texts: tuple[str, ...], config: LexicalConfig) -> set[int]:
    batch = _indexed(texts)
    if batch is None:
        return set()
    index, key_sets = batch.index, batch.key_sets
    chosen: set[int] = set()
    for query in queries:
        interruption.check()
        known = [key for key in query if key in index.vocab_dict]
        if not known:
            continue
        scores = index.get_scores(known)
        best = float(scores.max())
        if best <= 0.0:
            continue
        needed = min(len(query), max(config.min_overlap, math.ceil(config.min_overlap_fraction * len(query))))
        for position, score in enumerate(scores):
            if position in chosen or float(score) < config.min_relative_bm25 * best:
                continue
            if overlap(query, key_sets[position]) >= needed:
                chosen.add(position)
    return chosen


def starts_with_pronoun(text: str) -> bool:
    words = text.split(maxsplit=1)
    return bool(words) and words[0].strip(".,;:!?\"'()").lower() in PRONOUNS


def select_sentences(claim: Claim, sentences: Sequence[Sentence], config: LexicalConfig) -> EvidenceSelection:
    """Select the batch's sentences that share enough with the claim or a sub-claim.

    Context ids are only ever the previous sentence of the same node and only when it is in the
    batch, so every returned id was assigned by the engine. The summary carries the context
    sentences too: for a non-root node the summary is all the verdict step sees, and "It acquired
    GitHub" says nothing without the sentence naming "it".
    """
    if not sentences:
        return EvidenceSelection()
    queries = [q for q in (_query(text) for text in (claim.text, *claim.sub_claims)) if q]
    chosen = _selected_indices(queries, tuple(s.text for s in sentences), config)
    by_place = {(s.node_id, s.index): position for position, s in enumerate(sentences)}
    context: set[int] = set()
    for position in chosen:
        sentence = sentences[position]
        if starts_with_pronoun(sentence.text):
            previous = by_place.get((sentence.node_id, sentence.index - 1))
            if previous is not None and previous not in chosen:
                context.add(previous)
    ordered = sorted(chosen | context)
    return EvidenceSelection(
        selected=list(dict.fromkeys(sentences[p].id for p in sorted(chosen))),
        context=list(dict.fromkeys(sentences[p].id for p in sorted(context))),
        summary=" ".join(sentences[p].text.strip() for p in ordered),
    )
