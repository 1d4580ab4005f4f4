"""The optional `graphrag` extra: the one error raised when it is not installed.

Reading an index or auditing a saved query run needs only the core package; running a query
needs GraphRAG itself, which is large (~1.2 GB with its dependencies) and so optional.
"""

from __future__ import annotations

from veritrail_graphrag.errors import VeriTrailError

INSTALL_HINT = "pip install 'veritrail-graphrag[graphrag]'"


class GraphRAGMissingError(VeriTrailError, ImportError):
    """GraphRAG (or one of its dependencies) is not installed.

    An `ImportError` too, so code that probes for optional packages keeps working, and a
    `VeriTrailError`, so the CLI prints the one-line hint instead of a traceback.
    """

    def __init__(self, missing: str | None) -> None:
        what = f"module {missing!r} is not installed" if missing else "it is not installed"
        super().__init__(
            f"running GraphRAG (veritrail query, veritrail graphrag) needs the graphrag extra ({what}): {INSTALL_HINT}"
        )
        self.missing = missing
