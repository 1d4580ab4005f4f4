"""VeriTrail's backward traversal of a DAG for one claim at a time (the paper's Algorithm 1).

`traversal` drives it; the other modules are its pure parts: sub-claim decomposition, packing
sentences into prompts, grouping evidence, the verdict input and its budget, error-stage
localization, and the trail a claim's verification returns. The engine knows the DAG and the
`Verifier` protocol, nothing of GraphRAG, HTTP or report files.
"""

from veritrail_graphrag.engine.trail import BatchRecord, ClaimResult, Iteration, StopReason
from veritrail_graphrag.engine.traversal import VeriTrail

__all__ = ["BatchRecord", "ClaimResult", "Iteration", "StopReason", "VeriTrail"]
