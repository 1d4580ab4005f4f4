"""GraphRAG: an index (stages 1-4) and a saved search run (the stages above) as a DAG."""

from veritrail_graphrag.adapters.graphrag.index import build_index, read_index
from veritrail_graphrag.adapters.graphrag.layout import Layout, locate
from veritrail_graphrag.adapters.graphrag.query_dag import add_query_run
from veritrail_graphrag.adapters.graphrag.query_run import (
    METHODS,
    DriftAction,
    DriftRun,
    MapAnswer,
    MapBatch,
    Method,
    QueryRun,
    cited_reports,
    search_method,
    settings_fingerprint,
)

__all__ = [
    "METHODS",
    "DriftAction",
    "DriftRun",
    "Layout",
    "MapAnswer",
    "MapBatch",
    "Method",
    "QueryRun",
    "add_query_run",
    "build_index",
    "cited_reports",
    "locate",
    "read_index",
    "search_method",
    "settings_fingerprint",
]
