"""The `veritrail` command: each subcommand picks what to audit, then one path runs and prints it.

Shared options are declared in `cli_options.py`, exit codes in `exit_codes.py`, the terminal
output in `report_console.py`. Tables go to stdout; progress, notes and errors go to stderr.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from veritrail_graphrag import __version__, event_loop
from veritrail_graphrag.adapters.graphrag import METHODS, search_method
from veritrail_graphrag.audit import run_audit
from veritrail_graphrag.cited.cli import check_cited_command
from veritrail_graphrag.claims import extract_claims, given_claims, load_claims
from veritrail_graphrag.cli_options import AuditFlags, with_options
from veritrail_graphrag.compare.cli import compare_command
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine import VeriTrail
from veritrail_graphrag.errors import AdapterError, AuditInterrupted, UsageError
from veritrail_graphrag.evaluation.cli import eval_command
from veritrail_graphrag.exit_codes import ExitCode, guarded
from veritrail_graphrag.graphrag_cli import GRAPHRAG_COMMAND_SETTINGS, graphrag_command
from veritrail_graphrag.models import Claim, TrailConfig, Verdict
from veritrail_graphrag.output_lock import OutputLock
from veritrail_graphrag.report import AuditReport, ClaimFailure
from veritrail_graphrag.report_console import print_audit, print_dry_run, print_notes, progress, stdout
from veritrail_graphrag.targets import AuditTarget, file_target, graphrag_index_target, graphrag_query_target
from veritrail_graphrag.trail import ClaimResult
from veritrail_graphrag.verifiers.capabilities import close
from veritrail_graphrag.verifiers.registry import ModelCalls, PreparedVerifier

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Trace the claims of a multi-step LLM pipeline's output back to its source (VeriTrail).",
)


def _dry_run(target: AuditTarget, calls: ModelCalls, config: TrailConfig, extract: bool) -> None:
    from veritrail_graphrag.dry_run import plan

    estimate = plan(
        target.dag, target.terminals, config, calls.model, extract=extract, samples=calls.samples, prices=calls.prices
    )
    print_dry_run(estimate, calls.model)


@dataclass
class _Tally:
    """Claims in the checkpoint so far, out of how many: what an interrupted audit tells."""

    saved: int = 0
    total: int = 0


async def _run(
    target: AuditTarget,
    claims: list[Claim] | None,
    flags: AuditFlags,
    prepared: PreparedVerifier,
    config: TrailConfig,
    report_path: Path,
    markdown_path: Path | None,
    lock: OutputLock,
    tally: _Tally,
) -> AuditReport:
    verifier = prepared.build()
    extraction_failures: list[ClaimFailure] = []
    try:
        if claims is None:
            claims, terminal, extraction_failures = await extract_claims(
                verifier, target.dag, target.terminals, target.question
            )
        elif len(target.terminals) == 1:
            terminal = target.terminals[0]
        else:
            raise UsageError("--claims needs a single terminal")
        if not claims and not extraction_failures:
            raise UsageError(f"no claims: {', '.join(target.terminals)} has no sentence with verifiable content")
        tally.total = len(claims)
        with progress(len(claims)) as bar:
            task = bar.add_task("claims", total=len(claims))

            def saved(_: ClaimResult) -> None:
                tally.saved += 1
                bar.advance(task)

            return await run_audit(
                VeriTrail(verifier, config),
                target.dag,
                claims,
                terminal,
                source=target.source,
                verifier_name=flags.verifier,
                report_path=report_path,
                markdown_path=markdown_path,
                resume=flags.resume,
                on_result=saved,
                citations=target.citations,
                extraction_failures=extraction_failures,
                lock=lock,
                full_trail=flags.full_trail,
                md_limit=flags.md_limit,
            )
    finally:
        await close(verifier)


def _audit(
    target: AuditTarget,
    claims: list[Claim] | None,
    flags: AuditFlags,
    report_path: Path,
    markdown_path: Path | None = None,
    max_sentences_per_prompt: int = 40,
) -> None:
    """Run (or estimate) the audit of `target`, print it, and end with the exit code it calls for."""
    prepared, config = flags.setup(target.project_root, max_sentences_per_prompt)
    print_notes(target.notes)
    if flags.dry_run:
        if prepared.model_calls is None:
            stdout.print(f"--dry-run estimates model calls; the {flags.verifier} verifier makes none.", highlight=False)
        else:
            _dry_run(target, prepared.model_calls, config, extract=claims is None)
        return
    tally = _Tally()
    with OutputLock(report_path) as lock:  # before claims are extracted: a second audit stops at once
        try:
            report = event_loop.run(_run(target, claims, flags, prepared, config, report_path, markdown_path, lock, tally))
        except KeyboardInterrupt:
            raise AuditInterrupted(tally.saved, tally.total) from None
    print_audit(report, target.dag.stage, report_path, markdown_path)
    if report.failed:
        raise typer.Exit(code=ExitCode.NOT_VERIFIED)
    if flags.fail_on_unsupported and any(r.verdict is not Verdict.FULLY_SUPPORTED for r in report.results):
        raise typer.Exit(code=ExitCode.UNSUPPORTED)


def _refuse(flags: dict[str, object], rest: str, verbs: tuple[str, str] = ("applies", "apply")) -> None:
    given = [flag for flag, value in flags.items() if value is not None]
    if given:
        raise UsageError.of_flags(given, rest, verbs)


@app.command()
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
    dag = DAG.from_json(dag_path)
    start = dag.resolve_terminal(terminal)
    claims = load_claims(claims_path) if claims_path is not None else given_claims(claim) if claim else None
    target = AuditTarget(dag, [start], dag_path.parent, str(dag_path), dag.metadata.get("question"))
    report_path = out or dag_path.with_name(dag_path.stem + ".report.json")
    _audit(target, claims, flags, report_path, max_sentences_per_prompt=max_sentences_per_prompt)


@app.command()
@guarded
@with_options(AuditFlags)
def audit(
    path: Annotated[
        Path, typer.Argument(help="GraphRAG project or output/, DAG JSON, summary log or BooookScore file.")
    ],
    query_run: Annotated[
        str | None, typer.Option(help="GraphRAG: the saved query run to audit (default: latest).")
    ] = None,
    answer: Annotated[Path | None, typer.Option(help="GraphRAG: a final answer saved from `graphrag query`.")] = None,
    map_answers: Annotated[Path | None, typer.Option(help="GraphRAG: folder of map-answer files for --answer.")] = None,
    question: Annotated[str | None, typer.Option(help="The question the answer responds to.")] = None,
    method: Annotated[
        str | None, typer.Option(help=f"GraphRAG: the search that wrote --answer: {'|'.join(METHODS)} (global).")
    ] = None,
    book: Annotated[str | None, typer.Option(help="BooookScore: the book to audit.")] = None,
    chunks: Annotated[
        Path | None, typer.Option(help="BooookScore: the chunk file (.json, or a trusted .pkl) so chunks are roots.")
    ] = None,
    max_context_len: Annotated[int | None, typer.Option(help="BooookScore: the run's max_context_len.")] = None,
    chunk_size: Annotated[int | None, typer.Option(help="BooookScore: the run's chunk_size.")] = None,
    claims_path: Annotated[Path | None, typer.Option("--claims", help="JSON list of {id, text} claims.")] = None,
    *,
    flags: AuditFlags,
) -> None:
    """Audit a pipeline run's final output; write report.json and report.md next to its artifacts."""
    graphrag_flags = {"--query-run": query_run, "--answer": answer, "--map-answers": map_answers, "--method": method}
    booookscore_flags = {"--book": book, "--chunks": chunks, "--max-context-len": max_context_len,
                         "--chunk-size": chunk_size}  # fmt: skip
    if path.is_dir():
        _refuse(booookscore_flags, "to BooookScore files, not to a GraphRAG project")
        if answer is None:
            _refuse(
                {"--map-answers": map_answers, "--question": question, "--method": method},
                "with --answer",
                ("goes", "go"),
            )
        target = graphrag_query_target(
            path, query_run=query_run, answer=answer, map_answers=map_answers, question=question, method=method
        )
    else:
        _refuse(graphrag_flags | {"--question": question}, "to GraphRAG projects, not to a file")
        target = file_target(
            path, book=book, chunks_path=chunks, max_context_len=max_context_len, chunk_size=chunk_size
        )
    claims = load_claims(claims_path) if claims_path is not None else None
    _audit(target, claims, flags, target.out_dir / "report.json", target.out_dir / "report.md")


@app.command("audit-index")
@guarded
@with_options(AuditFlags)
def audit_index(
    root: Annotated[Path, typer.Argument(help="GraphRAG project root or output folder.")],
    reports: Annotated[
        int | None, typer.Option(min=1, help="Audit the N highest-ranked community reports (default 10).")
    ] = None,
    community: Annotated[list[int] | None, typer.Option(help="Audit this community's report (repeatable).")] = None,
    all_reports: Annotated[bool, typer.Option("--all", help="Audit every community report.")] = False,
    *,
    flags: AuditFlags,
) -> None:
    """Audit the index itself: community reports traced through descriptions to the text units."""
    if community and (all_reports or reports is not None):
        raise UsageError("give --community, or --reports/--all, not both")
    chosen = list(dict.fromkeys(community)) if community else None
    target = graphrag_index_target(root, reports=None if all_reports else (reports or 10), communities=chosen)
    _audit(target, None, flags, target.out_dir / "report.json", target.out_dir / "report.md")


@app.command()
@guarded
@with_options(AuditFlags)
def query(
    root: Annotated[Path, typer.Argument(help="GraphRAG project root (with settings.yaml and an index).")],
    query_text: Annotated[str, typer.Option("--query", help="The question to ask.")],
    method: Annotated[str, typer.Option(help=f"As `graphrag query --method`: {'|'.join(METHODS)}.")] = "global",
    community_level: Annotated[int, typer.Option(help="As `graphrag query --community-level`.")] = 2,
    response_type: Annotated[str, typer.Option(help="As `graphrag query --response-type`.")] = "Multiple Paragraphs",
    run_audit_after: Annotated[bool, typer.Option("--audit/--no-audit", help="Audit the run once saved.")] = True,
    *,
    flags: AuditFlags,
) -> None:
    """Run a GraphRAG search with a recorder, save what each step was shown beside the index, audit
    it (with --dry-run: estimate the audit instead)."""
    search = search_method(method)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from veritrail_graphrag.adapters.graphrag_capture import capture_search, run_dir

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
    stdout.print()
    stdout.print(f"Query run saved to {run_dir(root, run.run_id)}", highlight=False, soft_wrap=True, markup=False)
    if not run_audit_after:
        return
    try:
        target = graphrag_query_target(root, query_run=run.run_id)
    except AdapterError as exc:
        print_notes([f"nothing to audit: {exc}"])
        return
    _audit(target, None, flags, target.out_dir / "report.json", target.out_dir / "report.md")


app.command("eval")(eval_command)
app.command("check-cited")(check_cited_command)
app.command("compare")(compare_command)
app.command("graphrag", **GRAPHRAG_COMMAND_SETTINGS)(graphrag_command)


@app.command()
def version() -> None:
    """Print the version."""
    stdout.print(__version__)
