"""Capture GraphRAG searches (global, local, DRIFT, basic) while GraphRAG answers.

Needs the optional extra (`pip install 'veritrail-graphrag[graphrag]'`). Importing this package
does not: `QueryRecorder`, `capture_search` and `recording` import GraphRAG when first used and
raise `GraphRAGMissingError`, with the install command, when it is missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from veritrail_graphrag.adapters.graphrag.layout import queries_dir, run_dir
from veritrail_graphrag.adapters.graphrag_capture.extra import GraphRAGMissingError

if TYPE_CHECKING:
    from veritrail_graphrag.adapters.graphrag_capture.hook import recording
    from veritrail_graphrag.adapters.graphrag_capture.recorder import QueryRecorder
    from veritrail_graphrag.adapters.graphrag_capture.run_query import capture_search

__all__ = ["GraphRAGMissingError", "QueryRecorder", "capture_search", "queries_dir", "recording", "run_dir"]

_LAZY = {
    "QueryRecorder": "veritrail_graphrag.adapters.graphrag_capture.recorder",
    "capture_search": "veritrail_graphrag.adapters.graphrag_capture.run_query",
    "recording": "veritrail_graphrag.adapters.graphrag_capture.hook",
}


def __getattr__(name: str) -> Any:
    """Import the GraphRAG-bound names on first use, so the package imports without GraphRAG."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
