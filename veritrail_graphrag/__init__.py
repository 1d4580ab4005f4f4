"""Trace every claim of a multi-step LLM pipeline's output back to its source (VeriTrail)."""

from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.engine import VeriTrail
from veritrail_graphrag.errors import AdapterError, ClaimsError, DagError, VerifierError, VeriTrailError
from veritrail_graphrag.models import Claim, TrailConfig, Verdict
from veritrail_graphrag.trail import ClaimResult, Iteration, StopReason

__all__ = [
    "DAG",
    "AdapterError",
    "Claim",
    "ClaimResult",
    "ClaimsError",
    "DagError",
    "Iteration",
    "Node",
    "StopReason",
    "TrailConfig",
    "Verdict",
    "VeriTrail",
    "VeriTrailError",
    "VerifierError",
]

__version__ = "0.1.0"
