"""Local search: one context window of records (reports, entities, relationships, claims, text
units) around the entities closest to the question, and one answer. Recorded: that window."""

from __future__ import annotations

from collections.abc import AsyncIterator
from types import ModuleType
from typing import TYPE_CHECKING, Any

from veritrail_graphrag.adapters.graphrag_capture.searches.base import Recorded, Search, one_search, records_of

if TYPE_CHECKING:
    from veritrail_graphrag.adapters.graphrag_capture.recorder import QueryRecorder


def context_window(recorder: QueryRecorder) -> Recorded:
    """The one context window of the search (local and basic search alike)."""
    one_search(len(recorder.contexts))
    return Recorded({"context": records_of(recorder.contexts[0])})


def _stream(api: ModuleType, common: dict[str, Any], options: dict[str, Any]) -> AsyncIterator[str]:
    options = {k: v for k, v in options.items() if k != "dynamic_community_selection"}
    return api.local_search_streaming(**common, **options)


SEARCH = Search(
    name="local",
    tables=("entities", "communities", "community_reports", "text_units", "relationships"),
    optional_tables=("covariates",),
    stream=_stream,
    heard=lambda recorder: bool(recorder.contexts),
    record=context_window,
)
