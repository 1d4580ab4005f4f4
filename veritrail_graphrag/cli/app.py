"""The `veritrail` command: one typer app, each command group in its own module of this package."""

from __future__ import annotations

from typing import Annotated

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
# Each command's line in `veritrail --help`, whole at 80 columns (click cuts a longer first
# sentence with "...", or at its first full stop: "(e.g." once).
app.command(short_help="Verify claims against a DAG file (veritrail's JSON).")(verify)
app.command(short_help="Audit a run's final output: GraphRAG query or answer, summary.")(audit)
app.command("audit-index", short_help="Audit a GraphRAG index: its community reports.")(audit_index)
app.command(short_help="Run a GraphRAG search, save what it was shown, audit it.")(query)
app.command("eval", short_help="Measure a verifier on a labelled benchmark.")(eval_command)
app.command("check-cited", short_help="Check each claim of an answer against what it cites.")(check_cited_command)
app.command("compare", short_help="Compare finished audits, e.g. of two index versions.")(compare_command)
app.command(
    "graphrag", short_help="GraphRAG's own CLI: searches saved, index and update audited.", **GRAPHRAG_COMMAND_SETTINGS
)(graphrag_command)


@app.command(short_help="Print the version.")
def version() -> None:
    """Print the version."""
    stdout.print(__version__)


def _print_version(given: bool) -> None:
    if given:
        stdout.print(__version__)
        raise typer.Exit


@app.callback()
def main(
    show_version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Trace the claims of a multi-step LLM pipeline's output back to its source (VeriTrail)."""
