"""`veritrail compare`: finished audits side by side, written as compare.json, compare.md and a chart."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from veritrail_graphrag.cli.exit_codes import ExitCode, guarded
from veritrail_graphrag.compare.audits import Audit, CompareError, load_audit, pool

stdout = Console()
stderr = Console(stderr=True)


def _audits(paths: list[Path], labels: list[str], groups: list[str]) -> list[Audit]:
    if labels and len(labels) != len(paths):
        raise CompareError(f"--labels names {len(labels)} audits but {len(paths)} were given")
    audits = [load_audit(path, labels[i] if labels else None) for i, path in enumerate(paths)]
    for group in groups:
        name, _, members = group.partition("=")
        if not name.strip() or not members.strip():
            raise CompareError(f"--group {group!r}: write NAME=AUDIT,AUDIT,...")
        audits.append(pool(name.strip(), [load_audit(Path(m.strip())) for m in members.split(",") if m.strip()]))
    if len(audits) < 2:
        raise CompareError("compare needs at least two audits (or groups)")
    seen: set[str] = set()
    for audit in audits:
        if audit.label in seen:
            raise CompareError(f"two audits are labelled {audit.label!r}: tell them apart with --labels")
        seen.add(audit.label)
    return audits


@guarded
def compare_command(
    audits: Annotated[
        list[Path] | None,
        typer.Argument(metavar="AUDIT...", help="Reports, or folders holding one (query runs, index audits...)."),
    ] = None,
    labels: Annotated[str | None, typer.Option(help="Names for the audits, comma-separated, in order.")] = None,
    group: Annotated[
        list[str] | None,
        typer.Option(help="NAME=AUDIT,AUDIT,...: pool several runs of one version (weighted by claim count)."),
    ] = None,
    out: Annotated[Path, typer.Option(help="Folder for compare.json, compare.md and compare.png.")] = Path(
        "veritrail-compare"
    ),
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression",
            help="Exit with code 1 when the second audit's Not Fully Supported rate is higher than the first's "
            "with Fisher's exact test p < 0.05 (for CI gates).",
        ),
    ] = False,
) -> None:
    """Compare finished audits: verdicts, error-stage rates with intervals, and what moved between them."""
    from veritrail_graphrag.compare.gate import regression  # scipy and matplotlib: only when comparing
    from veritrail_graphrag.compare.outputs import write_comparison
    from veritrail_graphrag.compare.render import tables, untraced_note

    loaded = _audits(list(audits or []), [x.strip() for x in labels.split(",")] if labels else [], group or [])
    if fail_on_regression and len(loaded) != 2:
        raise CompareError(f"--fail-on-regression compares two audits, the old then the new; {len(loaded)} were given")
    comparison, written = write_comparison(loaded, out)
    for warning in comparison.warnings:
        stderr.print(f"[bold red]Warning:[/bold red] {escape(warning)}", highlight=False, soft_wrap=True)
    for table in tables(comparison, stdout.width):
        stdout.print(table)
    if untraced_note(comparison):
        stdout.print(untraced_note(comparison), highlight=False)
    stdout.print(f"Written: {', '.join(map(str, written))}", highlight=False, soft_wrap=True, markup=False)
    if fail_on_regression:
        old, new = comparison.audits
        found = regression(comparison.pairs[0], old, new)
        if found is not None:
            stderr.print(f"[red]Gate:[/red] {escape(found)}", highlight=False, soft_wrap=True)
            raise typer.Exit(code=ExitCode.UNSUPPORTED)
