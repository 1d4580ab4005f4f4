"""The evidence of one iteration: selected sentences grouped by node, their summaries, and the
sentences the selection named as context. Pure logic."""

from __future__ import annotations

from collections.abc import Callable

from veritrail_graphrag.models import Agreement, Sentence


class Evidence:
    """Grouped by node in reading order, because the verdict input and the next candidates are
    per node, and the trail lists nodes in the order they were read."""

    def __init__(self) -> None:
        self.sentences: dict[str, list[Sentence]] = {}
        self.summaries: dict[str, list[str]] = {}
        self.context: list[Sentence] = []
        self.agreement: Agreement | None = None
        """Set when the selection was sampled: `short` then gathers, over its batches, the
        sentences some samples selected, too few to count."""

    def __bool__(self) -> bool:
        return bool(self.sentences)

    def add(self, sentence: Sentence, summary: str) -> None:
        self.sentences.setdefault(sentence.node_id, []).append(sentence)
        summaries = self.summaries.setdefault(sentence.node_id, [])
        if summary.strip() and summary not in summaries:
            summaries.append(summary)

    @property
    def nodes(self) -> list[str]:
        return list(self.sentences)

    def flat(self) -> list[Sentence]:
        return [s for group in self.sentences.values() for s in group]

    def non_roots(self, is_root: Callable[[str], bool]) -> list[list[Sentence]]:
        """What re-selection may narrow: roots are shown in full and have their own budget."""
        return [group for node_id, group in self.sentences.items() if not is_root(node_id)]

    def reselected(self, narrowed: Evidence, is_root: Callable[[str], bool]) -> Evidence:
        """This evidence with its non-root part (sentences, summaries and context) replaced by a
        re-selection of it; roots keep what the first reading gave them."""
        merged = Evidence()
        for node_id in self.sentences:
            source = self if is_root(node_id) else narrowed
            if node_id in source.sentences:
                merged.sentences[node_id] = source.sentences[node_id]
                merged.summaries[node_id] = source.summaries.get(node_id, [])
        merged.context = [s for s in self.context if is_root(s.node_id)] + narrowed.context
        return merged
