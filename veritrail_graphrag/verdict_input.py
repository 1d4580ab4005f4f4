"""The Verdict Generation input and its budget (METHOD.md section 3, step 2). Pure logic.

A root that yielded evidence is shown in full, any other node by its Evidence Selection summary.
The two parts have separate budgets, counted in sentences: summaries the paper's 200 (re-selection
can shrink them), roots what one prompt can hold. What still does not fit is left out of the
verdict input only: those nodes keep their evidence and the traversal goes on from them.
"""

from __future__ import annotations

from collections.abc import Sequence

from veritrail_graphrag.dag import DAG
from veritrail_graphrag.evidence import Evidence
from veritrail_graphrag.models import Excerpt, TrailConfig
from veritrail_graphrag.sentences import split_sentences


class VerdictInput:
    """Builds the excerpts of one iteration's evidence and fits them to the budgets."""

    def __init__(self, dag: DAG, config: TrailConfig) -> None:
        self.dag = dag
        self.budget = {False: config.max_verdict_sentences, True: config.max_verdict_root_sentences}

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
        return [
            Excerpt(node_id=item, text=self.dag.node(item).text, is_root=True)
            if isinstance(item, str)
            else Excerpt(node_id=groups[item][0], text="\n".join(item), is_root=False, covers=groups[item])
            for item in order
        ]

    def size(self, excerpt: Excerpt) -> int:
        if excerpt.is_root:
            return len(self.dag.sentences(excerpt.node_id))
        return max(1, len(split_sentences(excerpt.text)))

    def summaries_too_long(self, excerpts: Sequence[Excerpt]) -> bool:
        """Only the summaries can be shrunk by re-selection, so only they decide whether to re-select."""
        return sum(self.size(e) for e in excerpts if not e.is_root) > self.budget[False]

    def largest_fitting(self, excerpts: Sequence[Excerpt]) -> tuple[list[Excerpt], list[str]]:
        """(the most excerpts that fit both budgets, the nodes left out). Smallest first, and
        always at least one excerpt, so a verdict is never asked on nothing."""
        left = dict(self.budget)
        kept: set[str] = set()
        for excerpt in sorted(excerpts, key=self.size):
            size = self.size(excerpt)
            if kept and size > left[excerpt.is_root]:
                continue
            kept.add(excerpt.node_id)
            left[excerpt.is_root] -= size
        return (
            [e for e in excerpts if e.node_id in kept],
            [n for e in excerpts if e.node_id not in kept for n in e.nodes],
        )
