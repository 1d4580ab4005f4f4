"""The `veritrail` command line, a thin shell over the Python API (`veritrail_graphrag.audit`):
the app (`app`), one module per command group (`audits`, `evaluation`, `cited`, `compare`,
`graphrag`), the shared options, the exit-code table and the terminal output (`console`). No other
package imports this one."""

from veritrail_graphrag.cli.app import app

__all__ = ["app"]
