"""DRIFT search: a primer over the reports closest to a hypothetical answer, follow-up local
searches it proposes (which may propose more), and a reduce over their answers.

Recorded: the primer's reports and GraphRAG's action graph, each follow-up with the context it
was answered from. No callback tells which reports the primer read, so `watch_primers` wraps the
one GraphRAG method that receives them.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import pandas as pd

from veritrail_graphrag.adapters.graphrag import DriftAction, DriftRun
from veritrail_graphrag.adapters.graphrag_capture.searches.base import (
    Recorded,
    Search,
    one_search,
    records_of,
    streaming,
)
from veritrail_graphrag.errors import AdapterError

if TYPE_CHECKING:
    from veritrail_graphrag.adapters.graphrag_capture.recorder import QueryRecorder


def watch_primers() -> None:
    """Let recorders hear which reports DRIFT's primer read (once per process; idempotent).

    GraphRAG 3.3 passes the primer's reports (the `drift_k_followups` most similar to a
    hypothetical answer) to no callback. `DRIFTSearch._process_primer_results` receives them;
    it is wrapped so that every recorder among that search's callbacks is told, and the search
    itself is unchanged. If a GraphRAG version renames the method, nothing is wrapped and a DRIFT
    run records the primer's reports as unknown.
    """
    from graphrag.query.structured_search.drift_search.search import DRIFTSearch

    original = DRIFTSearch.__dict__.get("_process_primer_results")
    if original is None or getattr(original, "veritrail_watch", False):
        return

    @functools.wraps(original)
    def process_primer_results(self: Any, query: str, search_results: Any) -> Any:
        for callback in getattr(self, "callbacks", None) or []:
            if callable(getattr(callback, "on_drift_primer", None)):
                callback.on_drift_primer(search_results.context_data)
        return original(self, query, search_results)

    process_primer_results.veritrail_watch = True  # type: ignore[attr-defined]
    DRIFTSearch._process_primer_results = process_primer_results  # type: ignore[method-assign]


def _score(value: Any) -> float | None:
    """A DRIFT action's score; GraphRAG uses -inf for "none", which JSON cannot hold."""
    try:
        score = float(value)
    except (TypeError, ValueError):
        return None
    return score if score == score and abs(score) != float("inf") else None


def _primer_reports(recorder: QueryRecorder) -> list[int] | None:
    context = recorder.primer_context
    reports = context.get("top_k_reports") if isinstance(context, dict) else None
    if not isinstance(reports, pd.DataFrame) or "short_id" not in reports.columns:
        return None
    return [int(community) for community in reports["short_id"]]


def drift_run(recorder: QueryRecorder) -> DriftRun:
    """The action graph of a DRIFT search, each follow-up with the context it was answered from."""
    one_search(len(recorder.action_graphs))
    graph = recorder.action_graphs[0]
    parents: dict[int, list[int]] = {}
    for edge in graph.get("edges", []):
        parents.setdefault(int(edge["target"]), []).append(int(edge["source"]))
    heard = [records_of(context) for context in recorder.contexts]
    actions: list[DriftAction] = []
    for node in graph["nodes"]:
        context = (node.get("metadata") or {}).get("context_data")
        records = records_of(context) if context is not None else None
        if records is not None and node.get("answer") and records not in heard:
            raise AdapterError(
                f"DRIFT action {node['id']} ({node['query']!r}) was answered from a context no on_context call "
                "reported; the callbacks of this GraphRAG version are not understood"
            )
        actions.append(
            DriftAction(
                id=int(node["id"]),
                query=str(node["query"]),
                answer=node.get("answer"),
                score=_score(node.get("score")),
                parents=sorted(set(parents.get(int(node["id"]), []))),
                context=records,
            )
        )
    answered = sum(1 for a in actions if a.context is not None and a.answered)
    if answered > len(heard):
        raise AdapterError(f"{answered} follow-up searches were answered but on_context fired {len(heard)} times")
    return DriftRun(primer_report_ids=_primer_reports(recorder), actions=actions)


def _record(recorder: QueryRecorder) -> Recorded:
    run = drift_run(recorder)
    note = "the reports the DRIFT primer read were not recorded" if run.primer_report_ids is None else ""
    return Recorded({"drift": run}, note)


SEARCH = Search(
    name="drift",
    tables=("entities", "communities", "community_reports", "text_units", "relationships"),
    stream=streaming("drift_search_streaming", ("dynamic_community_selection",)),
    heard=lambda recorder: bool(recorder.action_graphs),
    record=_record,
    prepare=watch_primers,
)
