"""The `veritrail` command: one typer app, each command group in its own module of this package."""

from __future__ import annotations

import typer

from veritrail_graphrag import __version__
from veritrail_graphrag.cli.audits import audit, audit_index, query, verify
from veritrail_graphrag.cli.cited import check_cited_command
from veritrail_graphrag.cli.compare import compare_command
from veritrail_graphrag.cli.console import stdout
from veritrail_graphrag.cli.evaluation import eval_command
from veritrail_graphrag.cli.graphrag import GRAPHRAG_COMMAND_SETTINGS, graphrag_command

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,  # click's plain help: option names whole, help wrapped beside them at any width
    help="Trace the claims of a multi-step LLM pipeline's output back to its source (VeriTrail).",
)
app.command()(verify)
app.command()(audit)
app.command("audit-index")(audit_index)
app.command()(query)
app.command("eval")(eval_command)
app.command("check-cited")(check_cited_command)
app.command("compare")(compare_command)
app.command("graphrag", **GRAPHRAG_COMMAND_SETTINGS)(graphrag_command)


@app.command()
def version() -> None:
    """Print the version."""
    stdout.print(__version__)
