"""Basic search: the text units most similar to the question in one context window, one answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from veritrail_graphrag.adapters.graphrag_capture.searches.base import Search, streaming
from veritrail_graphrag.adapters.graphrag_capture.searches.local_search import context_window

if TYPE_CHECKING:
    from veritrail_graphrag.adapters.graphrag_capture.recorder import QueryRecorder


def _heard(recorder: QueryRecorder) -> bool:
    """A context window of text units only (local search's windows hold entities, reports, ...)."""
    if not recorder.contexts:
        return False
    last = recorder.contexts[-1]
    return (set(last) if isinstance(last, dict) else set()) <= {"sources"}


SEARCH = Search(
    name="basic",
    tables=("text_units",),
    stream=streaming("basic_search_streaming", ("dynamic_community_selection", "community_level")),
    heard=_heard,
    record=context_window,
)
