"""The CI gates on a finished audit, the same for the audit commands and for the audit that ends
`veritrail graphrag index` / `update`: the JUnit file, the thresholds, and the exit code."""

from __future__ import annotations

from collections import Counter

import typer
from rich.markup import escape

from veritrail_graphrag.audit.options import GateOptions
from veritrail_graphrag.cli.console import stderr, stdout
from veritrail_graphrag.cli.exit_codes import ExitCode
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.errors import UsageError
from veritrail_graphrag.models import Verdict
from veritrail_graphrag.report import AuditReport
from veritrail_graphrag.report.junit import write_junit


def check_stages(dag: DAG, gates: GateOptions) -> None:
    """A threshold on a stage the DAG lacks could never be exceeded: a typo, refused before the audit."""
    stages = dag.stages()
    unknown = sorted(set(gates.stage_rates()) - set(stages))
    if unknown:
        have = ", ".join(map(str, sorted(stages)))
        raise UsageError(f"--max-stage-rate: the DAG has no stage {', '.join(map(str, unknown))} (its stages: {have})")


def gate(report: AuditReport, gates: GateOptions, seconds: float) -> None:
    """Write the JUnit file, say each threshold exceeded, and end with the exit code the audit calls
    for: 3 when claims could not be verified (the verdicts are not all in; a re-run finishes them),
    else 1 when a gate fails. With 3 the gates are still checked and said, so one CI log tells all."""
    if gates.junit_xml is not None:
        write_junit(report, gates.junit_xml, seconds)
        stdout.print(f"JUnit XML: {gates.junit_xml}", highlight=False, soft_wrap=True, markup=False)
    exceeded: list[str] = []
    if gates.max_unsupported_rate is not None or gates.max_stage_rate:
        from veritrail_graphrag.compare.gate import exceeded_thresholds, untraced_note  # scipy: only for a rate

        exceeded = exceeded_thresholds(report.results, gates.max_unsupported_rate, gates.stage_rates())
        note = untraced_note(report.results)
        if note is not None:
            stderr.print(f"note: {escape(note)}", highlight=False, soft_wrap=True)
    if gates.fail_on_unsupported:
        exceeded += _unsupported(report)
    for line in exceeded:
        stderr.print(f"[red]Gate:[/red] {escape(line)}", highlight=False, soft_wrap=True)
    if report.failed:
        raise typer.Exit(code=ExitCode.NOT_VERIFIED)
    if exceeded:
        raise typer.Exit(code=ExitCode.UNSUPPORTED)


def _unsupported(report: AuditReport) -> list[str]:
    """The line `--fail-on-unsupported` fails with, when a claim is not Fully Supported: a CI log
    that ends with exit 1 says why."""
    counts = Counter(r.verdict for r in report.results if r.verdict is not Verdict.FULLY_SUPPORTED)
    if not counts:
        return []
    which = ", ".join(f"{n} {verdict.value}" for verdict, n in sorted(counts.items()))
    total = sum(counts.values())
    return [f"--fail-on-unsupported: {total} of {len(report.results)} claims are not Fully Supported ({which})"]
