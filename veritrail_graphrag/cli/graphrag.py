"""`veritrail graphrag ...`: GraphRAG's own command line, with every search it makes recorded and
every index it builds audited.

Prefix a `graphrag` command with `veritrail`: the arguments go to GraphRAG unchanged, GraphRAG
prints what it always prints, and
- each search it ran (`graphrag query`, any method) is saved as a query run beside the index,
  ready for `veritrail audit ROOT`;
- `graphrag index` and `graphrag update` end with the `veritrail_audit` workflow (see
  `veritrail_graphrag.pipeline`), set by the project's veritrail.toml and `--veritrail-*` flags,
  and its result is printed once GraphRAG is done.
Nothing about how GraphRAG is called, configured or answers changes.
"""

from __future__ import annotations

import contextlib
import os
import textwrap
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from veritrail_graphrag.cli.console import print_audit, print_notes, stdout
from veritrail_graphrag.cli.exit_codes import guarded
from veritrail_graphrag.cli.gates import check_stages, gate
from veritrail_graphrag.errors import AdapterError, UsageError

if TYPE_CHECKING:
    from veritrail_graphrag.adapters.graphrag_capture.failures import ModelFailures
    from veritrail_graphrag.pipeline import PipelineAudit

GRAPHRAG_COMMAND_SETTINGS: dict[str, Any] = {
    "context_settings": {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []},
    "add_help_option": False,
}


BUILDS = ("index", "update")


def _subcommand(args: list[str]) -> str | None:
    return next((a for a in args if not a.startswith("-")), None)


def _root(args: list[str]) -> Path:
    """The project root GraphRAG will use: its `--root`/`-r` (default: the current folder)."""
    for i, arg in enumerate(args):
        if arg in ("--root", "-r") and i + 1 < len(args):
            return Path(args[i + 1])
        if arg.startswith("--root="):
            return Path(arg.removeprefix("--root="))
    return Path.cwd()


def _print_pipeline_audit(audit: PipelineAudit) -> None:
    folder = audit.target.out_dir
    print_notes(audit.target.notes)
    if audit.report is not None:
        print_audit(audit.report, audit.target.dag.stage, folder / "report.json", folder / "report.md")
    if audit.comparison is not None:
        from veritrail_graphrag.compare.render import tables

        for table in tables(audit.comparison, stdout.width):
            stdout.print(table)
        stdout.print(f"Comparison written to {audit.compare_folder}", highlight=False, soft_wrap=True, markup=False)


def _save_searches(heard: list[Any]) -> None:
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


def _check_searches(heard: list[Any], failures: ModelFailures) -> None:
    """A search whose model calls failed ends the command (exit 4) before anything is saved: GraphRAG
    printed an apology or a traceback, not an answer to audit."""
    from veritrail_graphrag.adapters.graphrag_capture.run_query import query_log

    if heard:
        last = heard[-1]
        failures.check(
            f"GraphRAG's {last.method} search", "no query run was saved", query_log(last.root, last.recorder.config)
        )


def _value_name(annotation: Any) -> str:
    """How `--veritrail-*` help names the value a setting takes, from its type."""
    types = set(typing.get_args(annotation)) or {annotation}
    if any(typing.get_origin(t) is list for t in types):
        return "N,N,..."
    if int in types:
        return "N|all" if any(typing.get_origin(t) is typing.Literal for t in types) else "N"
    return "R" if float in types else "TEXT"


def _our_help(building: bool, width: int = 80) -> str:
    """What `veritrail` adds to GraphRAG's help: for index and update, every `--veritrail-*` flag
    (the settings of the veritrail_audit workflow, so the list cannot drift from them)."""
    from veritrail_graphrag.pipeline.settings import FLAG_PREFIX, SETTINGS_FILE, PipelineSettings

    if not building:
        said = (
            "veritrail: each search (graphrag query) is saved as a query run for `veritrail audit ROOT`; "
            "graphrag index and update end with an audit of the index (`veritrail graphrag index --help` "
            "lists its --veritrail-* flags)."
        )
        return "\n" + "\n".join(textwrap.wrap(said, width))
    lines = ["", f"veritrail's audit of the index (flags win over [audit] in {SETTINGS_FILE}):"]
    for name, field in PipelineSettings.model_fields.items():
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        value = extra.get("metavar") or _value_name(field.annotation)
        if field.annotation is bool:
            value = "=false" if field.default else ""
        lines.append(f"  {FLAG_PREFIX}{name.replace('_', '-')}{'' if value in ('', '=false') else ' '}{value}")
        lines += textwrap.wrap(field.description or "", width - 2, initial_indent=" " * 6, subsequent_indent=" " * 6)
    return "\n".join(lines)


def _graphrag_failed(args: list[str], code: int | str, failures: ModelFailures) -> AdapterError:
    """GraphRAG ended with an error code of its own (1 for a failed index run), which would read as
    our failed CI gate: it becomes exit 4 when its model calls failed, else 2."""
    command = f"graphrag {_subcommand(args) or ''}".strip()
    logs = _root(args) / "logs"
    failures.check(command, "GraphRAG stopped, and nothing was audited", logs)
    return AdapterError(f"{command} failed (GraphRAG's exit code {code}; its message is above, its log in {logs})")


@guarded
def graphrag_command(ctx: typer.Context) -> None:
    """Run `graphrag ARGS...` (e.g. `veritrail graphrag query "..." --root . --method local`): each
    search is saved as a query run for `veritrail audit`; `index` and `update` end with an audit of
    the index (veritrail.toml, or `--veritrail-verifier llm`-style flags, set it)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from veritrail_graphrag.adapters.graphrag_capture import GraphRAGMissingError, recording
    from veritrail_graphrag.adapters.graphrag_capture.failures import watch_model_calls
    from veritrail_graphrag.pipeline import load_settings, register_audit_workflow
    from veritrail_graphrag.pipeline.settings import split_flags

    args, ours = split_flags(list(ctx.args))
    audits: list[PipelineAudit] = []
    errors: list[Exception] = []
    try:
        from graphrag.cli.main import app as graphrag_app
    except ModuleNotFoundError as exc:
        raise GraphRAGMissingError(exc.name) from exc
    building = _subcommand(args) in BUILDS
    if ours and not building:
        raise UsageError(f"{', '.join('--veritrail-' + k.replace('_', '-') for k in ours)}: for graphrag index/update")
    settings = load_settings(_root(args), ours) if building else None  # refused before GraphRAG spends anything
    if settings is not None:
        register_audit_workflow(settings, on_done=audits.append, on_error=errors.append)
    code: int | str | None = 0
    with contextlib.chdir(Path.cwd()), recording() as heard, watch_model_calls() as failures:
        try:
            graphrag_app(args, prog_name="graphrag", standalone_mode=False)
        except SystemExit as exc:  # `graphrag index` and `update` end with sys.exit, which click lets through
            code = exc.code
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise  # GraphRAG's usage errors and exits, printed and ended as GraphRAG's own CLI would
        except Exception as exc:  # GraphRAG's own failure (config, index, model): reported as such
            _check_searches(heard, failures)
            raise AdapterError(f"graphrag failed: {type(exc).__name__}: {exc}") from None
    if "--help" in args:  # GraphRAG printed its help: what veritrail adds follows
        stdout.print(_our_help(building), highlight=False, markup=False, soft_wrap=True)
        return
    _check_searches(heard, failures)
    if errors:
        print_notes(["the index tables GraphRAG wrote are intact; run the same command again to resume the audit"])
        raise errors[0]
    if code not in (0, None):
        raise _graphrag_failed(args, code, failures)
    _save_searches(heard)
    for audit in audits:
        _print_pipeline_audit(audit)
        if audit.report is not None and settings is not None:
            check_stages(audit.target.dag, settings)
            gate(audit.report, settings, audit.seconds)
