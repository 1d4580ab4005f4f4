"""Packing sentences into Evidence Selection prompts of bounded size."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence

from veritrail_graphrag.models import Sentence


def _boundary_after(sentences: Sequence[Sentence], limit: int) -> bool:
    """Content decides: true for about `len(sentences) / (2 * limit)` of nodes, the same in every run.

    One boundary per two prompts' worth of sentences: measured on 20 community reports of the
    sample (742 claims, `benchmarks/batch_boundaries.py`), 19% more Evidence Selection prompts than
    greedy packing (7,145 against 6,017); one per prompt's worth would cost 49% more."""
    digest = hashlib.blake2b("\n".join(s.text for s in sentences).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % (2 * limit) < len(sentences)


def pack_nodes(
    nodes: Sequence[Sequence[Sentence]], limit: int, max_chars: int | None = None
) -> list[list[Sentence]]:
    """Pack nodes into prompts of at most `limit` sentences and `max_chars` characters of sentence
    text, keeping each node whole when it fits (shorten overlong sentences first: `shorten`).

    A node is only split when it alone is longer than `limit`; keeping nodes whole lets the model
    read each sentence in its own context. Nodes that fit in one prompt together go in one prompt.
    Otherwise batches close where the content says so (after a node whose text hashes below its
    share, about once per two prompts' worth of sentences) or when the next node does not fit. So a node's batch depends only on its neighbours back to the last such
    boundary, not on every node before it: when an unrelated node changes between two index
    versions, the other prompts stay the same and their answers come from the cache.
    """
    cap = max_chars if max_chars is not None else sys.maxsize

    def chars(sentences: Sequence[Sentence]) -> int:
        return sum(len(s.text) for s in sentences)

    if sum(map(len, nodes)) <= limit and sum(map(chars, nodes)) <= cap:
        return [[s for sentences in nodes for s in sentences]] if any(nodes) else []
    batches: list[list[Sentence]] = []
    current: list[Sentence] = []
    used = 0
    for sentences in nodes:
        fits_alone = len(sentences) <= limit and chars(sentences) <= cap
        if current and fits_alone and (len(current) + len(sentences) > limit or used + chars(sentences) > cap):
            batches.append(current)
            current, used = [], 0
        for sentence in sentences:
            if current and (len(current) == limit or used + len(sentence.text) > cap):
                batches.append(current)
                current, used = [], 0
            current.append(sentence)
            used += len(sentence.text)
        if current and sentences and _boundary_after(sentences, limit):
            batches.append(current)
            current, used = [], 0
    if current:
        batches.append(current)
    return batches


def shorten(nodes: Sequence[Sequence[Sentence]], max_chars: int | None) -> tuple[list[list[Sentence]], set[str]]:
    """(the nodes with every sentence cut to `max_chars`, the ids of the sentences cut).

    A sentence longer than a whole prompt can carry (a corrupt or hostile text, or a table with no
    full stop) is shown by its beginning, marked; the rest of its node is unaffected."""
    if max_chars is None:
        return [list(sentences) for sentences in nodes], set()
    cut: set[str] = set()
    shortened: list[list[Sentence]] = []
    for sentences in nodes:
        kept: list[Sentence] = []
        for sentence in sentences:
            if len(sentence.text) > max_chars:
                cut.add(sentence.id)
                sentence = sentence.model_copy(update={"text": cut_text(sentence.text, max_chars)})
            kept.append(sentence)
        shortened.append(kept)
    return shortened, cut


CUT_MARK = " [...]"


def cut_text(text: str, max_chars: int) -> str:
    """`text` in at most `max_chars` characters, marked as cut when it was."""
    if len(text) <= max_chars:
        return text
    return text[: max(0, max_chars - len(CUT_MARK))] + CUT_MARK


def ranges(batch: Sequence[Sentence]) -> list[str]:
    """`node#3-9` per run of consecutive sentences: a prompt's content, compactly, for the report."""
    runs: list[list[Sentence]] = []
    for sentence in batch:
        last = runs[-1][-1] if runs else None
        if last is not None and last.node_id == sentence.node_id and last.index + 1 == sentence.index:
            runs[-1].append(sentence)
        else:
            runs.append([sentence])
    return [f"{run[0].node_id}#{run[0].index}-{run[-1].index}" for run in runs]
