"""Running audits: the public Python API (`audit`, `audit_index`, `verify` and their coroutine
forms) over what the CLI shares with it: the options, the targets (what a path holds and where its
reports go), claim preparation, the checkpoint, the report's lock and the dry run."""

from veritrail_graphrag.audit.api import aaudit, aaudit_index, audit, audit_index, averify, run_target, verify
from veritrail_graphrag.audit.options import AuditOptions, VerifierOptions

__all__ = [
    "AuditOptions",
    "VerifierOptions",
    "aaudit",
    "aaudit_index",
    "audit",
    "audit_index",
    "averify",
    "run_target",
    "verify",
]
