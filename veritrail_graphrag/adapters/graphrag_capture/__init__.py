"""Capture GraphRAG global-search runs (stages 5 and 6) while GraphRAG answers.

Needs the optional extra (`pip install 'veritrail-graphrag[graphrag]'`). Importing this package
does not: `QueryRecorder` and `capture_global_search` import GraphRAG when first used and raise
`GraphRAGMissingError`, with the install command, when it is missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from veritrail_graphrag.adapters.graphrag.layout import queries_dir, run_dir
from veritrail_graphrag.adapters.graphrag_capture.extra import GraphRAGMissingError

if TYPE_CHECKING:
    from veritrail_graphrag.adapters.graphrag_capture.recorder import QueryRecorder
    from veritrail_graphrag.adapters.graphrag_capture.run_query import capture_global_search

__all__ = ["GraphRAGMissingError", "QueryRecorder", "capture_global_search", "queries_dir", "run_dir"]


def __getattr__(name: str) -> Any:
    """Import the GraphRAG-bound names on first use, so the package imports without GraphRAG."""
    if name == "QueryRecorder":
        from veritrail_graphrag.adapters.graphrag_capture.recorder import QueryRecorder

        return QueryRecorder
    if name == "capture_global_search":
        from veritrail_graphrag.adapters.graphrag_capture.run_query import capture_global_search

        return capture_global_search
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
