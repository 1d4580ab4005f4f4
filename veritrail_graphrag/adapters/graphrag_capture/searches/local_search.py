"""Local search: one context window of records (reports, entities, relationships, claims, text
units) around the entities closest to the question, and one answer. Recorded: that window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from veritrail_graphrag.adapters.graphrag_capture.searches.base import (
    Recorded,
    Search,
    one_search,
    records_of,
    streaming,
)

if TYPE_CHECKING:
    from veritrail_graphrag.adapters.graphrag_capture.recorder import QueryRecorder


def context_window(recorder: QueryRecorder) -> Recorded:
    """The one context window of the search (local and basic search alike)."""
    one_search(len(recorder.contexts))
    return Recorded({"context": records_of(recorder.contexts[0])})


SEARCH = Search(
    name="local",
    tables=("entities", "communities", "community_reports", "text_units", "relationships"),
    optional_tables=("covariates",),
    stream=streaming("local_search_streaming", ("dynamic_community_selection",)),
    heard=lambda recorder: bool(recorder.contexts),
    record=context_window,
)
