"""Packing sentences into Evidence Selection prompts of bounded size."""

from __future__ import annotations

from collections.abc import Sequence

from veritrail_graphrag.models import Sentence


def pack_nodes(nodes: Sequence[Sequence[Sentence]], limit: int) -> list[list[Sentence]]:
    """Greedy packing that keeps a node's sentences in one prompt whenever the node fits in one.

    A node is only split when it alone is longer than `limit`; keeping nodes whole lets the model
    read each sentence in its own context.
    """
    batches: list[list[Sentence]] = []
    current: list[Sentence] = []
    for sentences in nodes:
        if len(current) + len(sentences) > limit and current and len(sentences) <= limit:
            batches.append(current)
            current = []
        for sentence in sentences:
            if len(current) == limit:
                batches.append(current)
                current = []
            current.append(sentence)
    if current:
        batches.append(current)
    return batches


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
