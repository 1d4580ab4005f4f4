"""The Verdict Generation input and its budget (the paper's section 3.1.3). Pure logic.

A root that yielded evidence is shown in full, any other node by its Evidence Selection summary.
The two parts have separate budgets, counted in sentences: summaries the paper's 200 (re-selection
can shrink them), roots what one prompt can hold. With a prompt limit in characters (from the
verifier's `max_input_tokens`) summaries may fill half of it, and a root longer than its share of
the rest is shown by its selected sentences with their neighbours. What still does not fit is left
out of the verdict input only: those nodes keep their evidence and the traversal goes on from them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.batching import cut_text
from veritrail_graphrag.engine.evidence import Evidence
from veritrail_graphrag.models import Excerpt, Sentence, TrailConfig
from veritrail_graphrag.sentences import split_sentences

GAP = "[...]"


class VerdictInput:
    """Builds the excerpts of one iteration's evidence and fits them to the budgets."""

    def __init__(self, dag: DAG, config: TrailConfig) -> None:
        self.dag = dag
        self.budget = {False: config.max_verdict_sentences, True: config.max_verdict_root_sentences}
        self.max_chars = config.max_prompt_chars or sys.maxsize

    def excerpts(self, evidence: Evidence) -> list[Excerpt]:
        """Roots give their full text; other nodes their summary, once per group of nodes that
        share it (one prompt's summary), or their selected sentences when there is no summary."""
        order: list[str | tuple[str, ...]] = []
        groups: dict[tuple[str, ...], list[str]] = {}
        for node_id, sentences in evidence.sentences.items():
            if self.dag.is_root(node_id):
                order.append(node_id)
                continue
            key = tuple(evidence.summaries.get(node_id) or [" ".join(s.text for s in sentences)])
            if key not in groups:
                groups[key] = []
                order.append(key)
            groups[key].append(node_id)
        roots = [item for item in order if isinstance(item, str)]
        summaries_chars = sum(len("\n".join(item)) for item in order if not isinstance(item, str))
        root_share = (self.max_chars - min(summaries_chars, self.max_chars // 2)) // max(1, len(roots))
        return [
            self._root(item, evidence.sentences[item], root_share)
            if isinstance(item, str)
            else Excerpt(node_id=groups[item][0], text="\n".join(item), is_root=False, covers=groups[item])
            for item in order
        ]

    def _root(self, node_id: str, selected: Sequence[Sentence], share: int) -> Excerpt:
        """A root in full when it fits its share, else its selected sentences with one neighbour on
        each side (gaps marked), cut at the share if even that is too long."""
        text = self.dag.node(node_id).text
        if len(text) <= share:
            return Excerpt(node_id=node_id, text=text, is_root=True)
        sentences = self.dag.sentences(node_id)
        wanted = sorted({i for s in selected for i in (s.index - 1, s.index, s.index + 1) if 0 <= i < len(sentences)})
        parts: list[str] = []
        for position, index in enumerate(wanted):
            if (position == 0 and index > 0) or (position > 0 and index != wanted[position - 1] + 1):
                parts.append(GAP)
            parts.append(sentences[index].text)
        if wanted and wanted[-1] < len(sentences) - 1:
            parts.append(GAP)
        return Excerpt(node_id=node_id, text=cut_text(" ".join(parts), share), is_root=True, abridged=True)

    def size(self, excerpt: Excerpt) -> int:
        if excerpt.is_root and not excerpt.abridged:
            return len(self.dag.sentences(excerpt.node_id))
        return max(1, sum(sentence != GAP for sentence in split_sentences(excerpt.text)))

    def summaries_too_long(self, excerpts: Sequence[Excerpt]) -> bool:
        """Only the summaries can be shrunk by re-selection, so only they decide whether to re-select."""
        summaries = [e for e in excerpts if not e.is_root]
        return (
            sum(map(self.size, summaries)) > self.budget[False]
            or sum(len(e.text) for e in summaries) > self.max_chars // 2
        )

    def largest_fitting(self, excerpts: Sequence[Excerpt]) -> tuple[list[Excerpt], list[str]]:
        """(the most excerpts that fit both budgets, the nodes left out). Smallest first, and
        always at least one excerpt, so a verdict is never asked on nothing."""
        left = dict(self.budget)
        chars_left = self.max_chars
        kept: set[str] = set()
        for excerpt in sorted(excerpts, key=self.size):
            size = self.size(excerpt)
            if kept and (size > left[excerpt.is_root] or len(excerpt.text) > chars_left):
                continue
            kept.add(excerpt.node_id)
            left[excerpt.is_root] -= size
            chars_left -= len(excerpt.text)
        return (
            [self._within_limit(e) for e in excerpts if e.node_id in kept],
            [n for e in excerpts if e.node_id not in kept for n in e.nodes],
        )

    def _within_limit(self, excerpt: Excerpt) -> Excerpt:
        """The one excerpt always shown is cut when it alone exceeds the prompt limit."""
        if len(excerpt.text) <= self.max_chars:
            return excerpt
        return excerpt.model_copy(update={"text": cut_text(excerpt.text, self.max_chars), "abridged": True})
