"""Running audits: the public Python API (`audit`, `audit_index`, `verify` and their coroutine
forms) over what the CLI shares with it: the options, the targets (what a path holds and where its
reports go), claim preparation, the checkpoint, the report's lock and the dry run.

The package is callable: `veritrail_graphrag.audit(path, ...)` is `audit(path, ...)`, so that
`import veritrail_graphrag as v; v.audit("ragtest")` reads as it should while every module of the
package stays importable by its full name.
"""

import sys
from types import ModuleType
from typing import Any

from veritrail_graphrag.audit.api import aaudit, aaudit_index, audit, audit_index, averify, run_target, verify
from veritrail_graphrag.audit.options import AuditOptions, SourceOptions, VerifierOptions
from veritrail_graphrag.report import AuditReport

__all__ = [
    "AuditOptions",
    "SourceOptions",
    "VerifierOptions",
    "aaudit",
    "aaudit_index",
    "audit",
    "audit_index",
    "averify",
    "run_target",
    "verify",
]


class _CallablePackage(ModuleType):
    def __call__(self, path: Any, **options: Any) -> AuditReport:
        return audit(path, **options)


sys.modules[__name__].__class__ = _CallablePackage
