"""The audit commands, `verify`, `audit`, `audit-index` and `query`: each picks what to audit,
then one path (`audit.run_target`, the Python API's) runs it, and `run_command` prints it and ends
with the exit code it calls for. Tables go to stdout; progress, notes and errors go to stderr.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated

import typer

from veritrail_graphrag import event_loop
from veritrail_graphrag.adapters.graphrag import METHODS, search_method
from veritrail_graphrag.adapters.graphrag.layout import DEFAULT_REPORTS
from veritrail_graphrag.audit.api import run_target
from veritrail_graphrag.audit.claims import given_claims, load_claims
from veritrail_graphrag.audit.dry_run import plan
from veritrail_graphrag.audit.options import SourceOptions
from veritrail_graphrag.audit.targets import (
    AuditTarget,
    audit_target,
    dag_target,
    elsewhere,
    graphrag_index_target,
    graphrag_query_target,
)
from veritrail_graphrag.cli.console import print_audit, print_dry_run, print_notes, progress, stderr, stdout
from veritrail_graphrag.cli.exit_codes import guarded
from veritrail_graphrag.cli.gates import check_stages, gate
from veritrail_graphrag.cli.options import AuditCommandFlags, AuditFlags, with_options
from veritrail_graphrag.errors import AdapterError, AuditInterrupted, OutputError, UsageError
from veritrail_graphrag.files import writable_folder
from veritrail_graphrag.models import Claim

OutDir = Annotated[
    Path | None,
    typer.Option(
        "--out",
        metavar="DIR",
        help="Folder for the reports (default: next to the run's artifacts); e.g. for a read-only run.",
    ),
]


def _dry_run(target: AuditTarget, flags: AuditFlags, extract: bool, max_sentences_per_prompt: int) -> None:
    prepared, config = flags.setup(target.project_root, max_sentences_per_prompt)
    calls = prepared.model_calls
    if calls is None:
        stdout.print(f"--dry-run estimates model calls; the {flags.verifier} verifier makes none.", highlight=False)
        return
    estimate = plan(
        target.dag, target.terminals, config, calls.model, extract=extract, samples=calls.samples, prices=calls.prices,
        profile=calls.prompts,
    )  # fmt: skip
    print_dry_run(estimate, calls.model)


def check_outputs(target: AuditTarget, flags: AuditFlags, report_path: Path | None, out: Path | None) -> None:
    """Every place the audit writes is tried before it runs: a failure after hours of paid calls
    would lose nothing (the checkpoint is kept) but the time. `out` is the `--out` given, if any."""
    folder = report_path.parent if report_path is not None else target.out_dir
    if report_path is not None and report_path.is_dir():
        raise OutputError(f"{report_path} is a folder; give the report's file path")
    why = writable_folder(folder)
    if why is not None and out is not None:
        raise OutputError(f"--out {out}: {why}")
    if why is not None:
        hint = "write the reports elsewhere with --out DIR (nothing is then written here)"
        raise OutputError(f"{why}; {hint}", file=folder)
    junit = flags.junit_xml
    why = "a folder" if junit is not None and junit.is_dir() else writable_folder(junit.parent) if junit else None
    if junit is not None and why is not None:
        raise OutputError(f"--junit-xml {junit}: {why}")


def run_command(
    target: AuditTarget,
    claims: list[Claim] | None,
    flags: AuditFlags,
    report_path: Path | None = None,
    max_sentences_per_prompt: int = 40,
    out: Path | None = None,
) -> None:
    """Run (or estimate) the audit of `target`, print it, and end with the exit code it calls for."""
    print_notes(target.notes)
    check_stages(target.dag, flags)
    if flags.dry_run:
        _dry_run(target, flags, extract=claims is None, max_sentences_per_prompt=max_sentences_per_prompt)
        return
    check_outputs(target, flags, report_path, out)
    started = time.monotonic()
    with progress() as shown:
        try:
            report = event_loop.run(
                run_target(
                    target,
                    flags.options(),
                    claims=claims,
                    report_path=report_path,
                    on_progress=shown.update,
                    max_sentences_per_prompt=max_sentences_per_prompt,
                )
            )
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the claims finished are in the checkpoint
            raise AuditInterrupted(*shown.counts) from None
    markdown_path = None if report_path is not None else target.out_dir / "report.md"
    written = report_path or target.out_dir / "report.json"
    try:
        print_audit(report, target.dag.stage, written, markdown_path)
        gate(report, flags, time.monotonic() - started)
    except KeyboardInterrupt:
        raise AuditInterrupted.after_report(written) from None


@guarded
@with_options(AuditFlags)
def verify(
    dag_path: Annotated[Path, typer.Argument(metavar="DAG.json", help="A DAG in veritrail's JSON format.")],
    claims_path: Annotated[
        Path | None,
        typer.Option("--claims", help="JSON list of {id, text} claims (default: the terminal's claims)."),
    ] = None,
    claim: Annotated[list[str] | None, typer.Option("--claim", help="A claim to verify (repeatable).")] = None,
    terminal: Annotated[str | None, typer.Option(help="Node to verify (default: the DAG's unique sink).")] = None,
    out: Annotated[Path | None, typer.Option(help="Report path (default: <DAG>.report.json beside the DAG).")] = None,
    max_sentences_per_prompt: Annotated[int, typer.Option(min=1)] = 40,
    *,
    flags: AuditFlags,
) -> None:
    """Verify claims against a DAG file and write a JSON report (atomically)."""
    if claims_path is not None and claim:
        raise UsageError("give either --claims or --claim, not both")
    if "--md-limit" in flags.given():
        raise UsageError("--md-limit applies to report.md, which verify does not write (audit does)")
    target, default_out = dag_target(dag_path, terminal)
    claims = load_claims(claims_path) if claims_path is not None else given_claims(claim) if claim else None
    report_path = out or default_out
    run_command(target, claims, flags, report_path, max_sentences_per_prompt=max_sentences_per_prompt, out=out)


@guarded
@with_options(AuditCommandFlags)
def audit(
    path: Annotated[
        Path, typer.Argument(help="GraphRAG project or output/, DAG JSON, summary log or BooookScore file.")
    ],
    claims_path: Annotated[Path | None, typer.Option("--claims", help="JSON list of {id, text} claims.")] = None,
    out: OutDir = None,
    *,
    flags: AuditCommandFlags,
) -> None:
    """Audit a pipeline run's final output; write report.json and report.md next to its artifacts."""
    target = elsewhere(audit_target(path, flags.source()), out)
    claims = load_claims(claims_path) if claims_path is not None else None
    run_command(target, claims, flags, out=out)


@guarded
@with_options(AuditFlags)
def audit_index(
    root: Annotated[Path, typer.Argument(help="GraphRAG project root or output folder.")],
    reports: Annotated[
        int | None, typer.Option(min=1, help="Audit the N highest-ranked community reports (default 10).")
    ] = None,
    community: Annotated[list[int] | None, typer.Option(help="Audit this community's report (repeatable).")] = None,
    all_reports: Annotated[bool, typer.Option("--all", help="Audit every community report.")] = False,
    out: OutDir = None,
    *,
    flags: AuditFlags,
) -> None:
    """Audit the index itself: community reports traced through descriptions to the text units.
    Each selection has its own folder under the project's veritrail/ (index-audit for the default)."""
    if community and (all_reports or reports is not None):
        raise UsageError("give --community, or --reports/--all, not both")
    if all_reports and reports is not None:
        raise UsageError("give --reports N or --all, not both")
    chosen = list(dict.fromkeys(community)) if community else None
    selection = None if all_reports else (reports or DEFAULT_REPORTS)
    target = elsewhere(graphrag_index_target(root, reports=selection, communities=chosen), out)
    run_command(target, None, flags, out=out)


@guarded
@with_options(AuditFlags)
def query(
    root: Annotated[Path, typer.Argument(help="GraphRAG project root (with settings.yaml and an index).")],
    query_text: Annotated[str, typer.Option("--query", help="The question to ask.")],
    method: Annotated[str, typer.Option(help=f"As `graphrag query --method`: {'|'.join(METHODS)}.")] = "global",
    community_level: Annotated[int, typer.Option(help="As `graphrag query --community-level`.")] = 2,
    response_type: Annotated[str, typer.Option(help="As `graphrag query --response-type`.")] = "Multiple Paragraphs",
    run_audit_after: Annotated[bool, typer.Option("--audit/--no-audit", help="Audit the run once saved.")] = True,
    out: OutDir = None,
    *,
    flags: AuditFlags,
) -> None:
    """Run a GraphRAG search with a recorder, save what each step was shown beside the index, audit
    it (with --dry-run: estimate the audit instead)."""
    search = search_method(method)
    if not run_audit_after and (flags.given() or out is not None):
        given = [*flags.given(), *(["--out"] if out is not None else [])]
        raise UsageError.of_flags(given, "to the audit, which --no-audit skips")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from veritrail_graphrag.adapters.graphrag_capture import capture_search, run_dir

    stderr.print(f"Running GraphRAG's {search} search...", highlight=False)
    try:
        run = event_loop.run(
            capture_search(
                root,
                query_text,
                method=search,
                community_level=community_level,
                response_type=response_type,
                on_token=lambda token: stdout.out(token, end="", highlight=False),
            )
        )
    finally:
        stdout.print()  # the streamed answer's line ends before what follows, an error included
    stdout.print(f"Query run saved to {run_dir(root, run.run_id)}", highlight=False, soft_wrap=True, markup=False)
    if not run_audit_after:
        return
    try:
        target = elsewhere(graphrag_query_target(root, SourceOptions(query_run=run.run_id)), out)
    except AdapterError as exc:
        print_notes([f"nothing to audit: {exc}"])
        return
    run_command(target, None, flags, out=out)
