"""GraphRAG: an index (stages 1-4) and a saved global-search run (stages 5-6) as a DAG."""

from veritrail_graphrag.adapters.graphrag.index import build_index, read_index
from veritrail_graphrag.adapters.graphrag.layout import Layout, locate
from veritrail_graphrag.adapters.graphrag.query_run import (
    MapAnswer,
    MapBatch,
    QueryRun,
    add_query_run,
    cited_reports,
    settings_fingerprint,
)

__all__ = [
    "Layout",
    "MapAnswer",
    "MapBatch",
    "QueryRun",
    "add_query_run",
    "build_index",
    "cited_reports",
    "locate",
    "read_index",
    "settings_fingerprint",
]
