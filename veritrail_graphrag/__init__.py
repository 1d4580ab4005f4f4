"""Trace every claim of a multi-step LLM pipeline's output back to its source (VeriTrail).

Importing the package loads nothing heavy: each public name is imported when first used, so the
`veritrail` command starts (and answers Ctrl-C) before pandas, pyarrow or networkx are loaded.
`veritrail_graphrag.audit` is the package of the Python API, and calling it runs `audit()`:
`import veritrail_graphrag as v; v.audit("ragtest")`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from veritrail_graphrag.audit.api import aaudit, aaudit_index, audit, audit_index, averify, verify
    from veritrail_graphrag.cited.check import adetect_hallucination, detect_hallucination
    from veritrail_graphrag.cited.report import CitedCheckReport
    from veritrail_graphrag.dag import DAG, Node
    from veritrail_graphrag.engine import ClaimResult, Iteration, StopReason, VeriTrail
    from veritrail_graphrag.errors import AdapterError, ClaimsError, DagError, VerifierError, VeriTrailError
    from veritrail_graphrag.models import Claim, TrailConfig, Verdict
    from veritrail_graphrag.report import AuditReport

_LAZY = {
    **dict.fromkeys(("aaudit", "aaudit_index", "audit_index", "averify", "verify"), "veritrail_graphrag.audit.api"),
    **dict.fromkeys(("detect_hallucination", "adetect_hallucination"), "veritrail_graphrag.cited.check"),
    "CitedCheckReport": "veritrail_graphrag.cited.report",
    **dict.fromkeys(("DAG", "Node"), "veritrail_graphrag.dag"),
    **dict.fromkeys(("ClaimResult", "Iteration", "StopReason", "VeriTrail"), "veritrail_graphrag.engine"),
    **dict.fromkeys(
        ("AdapterError", "ClaimsError", "DagError", "VerifierError", "VeriTrailError"), "veritrail_graphrag.errors"
    ),
    **dict.fromkeys(("Claim", "TrailConfig", "Verdict"), "veritrail_graphrag.models"),
    "AuditReport": "veritrail_graphrag.report",
    "audit": "veritrail_graphrag",  # the subpackage itself, which is callable
}

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


def __dir__() -> list[str]:
    """The public names too, though not yet imported: what autocomplete offers."""
    return sorted({*globals(), *__all__})


def __getattr__(name: str) -> Any:
    """A public name, imported on first use."""
    if name == "audit":
        return importlib.import_module(f"{__name__}.audit")
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
