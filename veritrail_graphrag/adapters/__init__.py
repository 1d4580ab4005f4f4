"""Adapters: read a pipeline's artifacts into a DAG. They know the pipeline, not verification."""

from veritrail_graphrag.adapters.graphrag import MapAnswer, MapBatch, QueryRun, add_query_run, read_index

__all__ = ["MapAnswer", "MapBatch", "QueryRun", "add_query_run", "read_index"]
