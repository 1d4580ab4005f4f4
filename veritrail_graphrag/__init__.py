"""Trace every claim of a multi-step LLM pipeline's output back to its source (VeriTrail)."""

import importlib
from typing import Any

__version__ = "0.1.0"

# Last: `veritrail_graphrag.audit` is then the function, as `v.audit(path)` reads; the package's
# modules are imported by their full names (`from veritrail_graphrag.audit.api import ...`).
from veritrail_graphrag.audit import aaudit, aaudit_index, audit, audit_index, averify, verify
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.engine import ClaimResult, Iteration, StopReason, VeriTrail
from veritrail_graphrag.errors import AdapterError, ClaimsError, DagError, VerifierError, VeriTrailError
from veritrail_graphrag.models import Claim, TrailConfig, Verdict
from veritrail_graphrag.report import AuditReport

__all__ = [
    "DAG",
    "AdapterError",
    "AuditReport",
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
    "aaudit",
    "aaudit_index",
    "adetect_hallucination",
    "audit",
    "audit_index",
    "averify",
    "detect_hallucination",
    "verify",
]

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
