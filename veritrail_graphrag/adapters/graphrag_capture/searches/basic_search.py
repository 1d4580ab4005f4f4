"""Basic search: the text units most similar to the question in one context window, one answer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from types import ModuleType
from typing import TYPE_CHECKING, Any

from veritrail_graphrag.adapters.graphrag_capture.searches.base import Search
from veritrail_graphrag.adapters.graphrag_capture.searches.local_search import context_window

if TYPE_CHECKING:
    from veritrail_graphrag.adapters.graphrag_capture.recorder import QueryRecorder

_DROPPED = {"dynamic_community_selection", "community_level"}


def _heard(recorder: QueryRecorder) -> bool:
    """A context window of text units only (local search's windows hold entities, reports, ...)."""
    if not recorder.contexts:
        return False
    last = recorder.contexts[-1]
    return (set(last) if isinstance(last, dict) else set()) <= {"sources"}


def _stream(api: ModuleType, common: dict[str, Any], options: dict[str, Any]) -> AsyncIterator[str]:
    return api.basic_search_streaming(**common, **{k: v for k, v in options.items() if k not in _DROPPED})


SEARCH = Search(name="basic", tables=("text_units",), stream=_stream, heard=_heard, record=context_window)
