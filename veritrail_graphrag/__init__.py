"""Trace every claim of a multi-step LLM pipeline's output back to its source (VeriTrail)."""

import importlib
from typing import Any

from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.engine import VeriTrail
from veritrail_graphrag.errors import AdapterError, ClaimsError, DagError, VerifierError, VeriTrailError
from veritrail_graphrag.models import Claim, TrailConfig, Verdict
from veritrail_graphrag.trail import ClaimResult, Iteration, StopReason

__all__ = [
    "DAG",
    "AdapterError",
    "CitedCheckReport",
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
    "adetect_hallucination",
    "detect_hallucination",
]

__version__ = "0.1.0"

_LAZY = {
    "detect_hallucination": "veritrail_graphrag.cited.check",
    "adetect_hallucination": "veritrail_graphrag.cited.check",
    "CitedCheckReport": "veritrail_graphrag.cited.report",
}


def __getattr__(name: str) -> Any:
    """The cited-answer check loads the openai SDK and BM25: only when it is asked for."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
