"""The DAG of every text a pipeline produced: nodes with stages, edges from inputs to outputs."""

from veritrail_graphrag.dag.graph import DAG, FORMAT_NAME, FORMAT_VERSION, DagFile, Node

__all__ = ["DAG", "FORMAT_NAME", "FORMAT_VERSION", "DagFile", "Node"]
