"""`veritrail graphrag ...`: GraphRAG's own command line, with every search it makes recorded.

Prefix a `graphrag` command with `veritrail`: the arguments go to GraphRAG unchanged, GraphRAG
prints what it always prints, and each search it ran (`graphrag query`, any method) is saved as a
query run beside the index, ready for `veritrail audit ROOT`. Nothing about how GraphRAG is
called, configured or answers changes.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import typer

from veritrail_graphrag.cli.console import print_notes, stdout
from veritrail_graphrag.cli.exit_codes import guarded
from veritrail_graphrag.errors import AdapterError

GRAPHRAG_COMMAND_SETTINGS: dict[str, Any] = {
    "context_settings": {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []},
    "add_help_option": False,
}


@guarded
def graphrag_command(ctx: typer.Context) -> None:
    """Run `graphrag ARGS...` (e.g. `veritrail graphrag query "..." --root . --method local`) and save
    each search it makes as a query run for `veritrail audit`."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from veritrail_graphrag.adapters.graphrag_capture import GraphRAGMissingError, recording

    try:
        from graphrag.cli.main import app as graphrag_app
    except ModuleNotFoundError as exc:
        raise GraphRAGMissingError(exc.name) from exc
    with contextlib.chdir(Path.cwd()), recording() as heard:
        try:
            graphrag_app(list(ctx.args), prog_name="graphrag", standalone_mode=False)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise  # GraphRAG's usage errors and exits, printed and ended as GraphRAG's own CLI would
        except Exception as exc:  # GraphRAG's own failure (config, index, model): reported as such
            raise AdapterError(f"graphrag failed: {type(exc).__name__}: {exc}") from None
    failures = []
    for entry in heard:
        try:
            folder = entry.save()
        except AdapterError as exc:
            failures.append(f"a {entry.method} search could not be recorded: {exc}")
            continue
        stdout.print(f"Query run saved to {folder}", highlight=False, soft_wrap=True, markup=False)
        command = f"veritrail audit {entry.root} --query-run {folder.name}"
        stdout.print(f"Audit it with: {command}", highlight=False, soft_wrap=True, markup=False)
    if failures:
        print_notes(failures)
        raise AdapterError(f"{len(failures)} of {len(heard)} search(es) could not be recorded")
