"""The `veritrail` command. Tables go to stdout; progress and errors go to stderr."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from veritrail_graphrag import __version__
from veritrail_graphrag.audit import run_audit
from veritrail_graphrag.claims import load_claims, sentence_claims
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine import VeriTrail
from veritrail_graphrag.errors import VeriTrailError
from veritrail_graphrag.models import Claim, TrailConfig, Verdict
from veritrail_graphrag.report import claims_table
from veritrail_graphrag.targets import (
    AuditTarget,
    file_target,
    graphrag_index_target,
    graphrag_query_target,
    is_graphrag,
    terminal_claims,
)
from veritrail_graphrag.verifiers.registry import VERIFIERS, make_verifier

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Trace the claims of a multi-step LLM pipeline's output back to its source (VeriTrail).",
)
stdout = Console()
stderr = Console(stderr=True)


def _fail(message: str) -> typer.Exit:
    stderr.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code=2)


def _progress(total: int) -> Progress:
    return Progress(
        TextColumn("verifying claims"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr,
        transient=True,
        disable=total < 2,
    )


@app.command()
def verify(
    dag_path: Annotated[Path, typer.Argument(metavar="DAG.json", help="A DAG in veritrail's JSON format.")],
    claims_path: Annotated[
        Path | None,
        typer.Option("--claims", help="JSON list of {id, text} claims (default: the terminal's sentences)."),
    ] = None,
    claim: Annotated[list[str] | None, typer.Option("--claim", help="A claim to verify (repeatable).")] = None,
    terminal: Annotated[str | None, typer.Option(help="Node to verify (default: the DAG's unique sink).")] = None,
    q: Annotated[
        int, typer.Option("--q", min=1, help="Consecutive Not Fully Supported verdicts that end a claim.")
    ] = 1,
    verifier: Annotated[str, typer.Option(help=f"One of: {', '.join(VERIFIERS)}.")] = "lexical",
    out: Annotated[Path | None, typer.Option(help="Report path (default: <DAG>.report.json beside the DAG).")] = None,
    max_sentences_per_prompt: Annotated[int, typer.Option(min=1)] = 40,
    concurrency: Annotated[int, typer.Option(min=1)] = 16,
    resume: Annotated[
        bool, typer.Option(help="Reuse claims finished by an interrupted run with the same inputs.")
    ] = True,
    fail_on_unsupported: Annotated[
        bool, typer.Option(help="Exit with code 1 when any claim is not Fully Supported (for CI gates).")
    ] = False,
) -> None:
    """Verify claims against a DAG and write a JSON report (atomically)."""
    try:
        dag = DAG.from_json(dag_path)
        start = dag.resolve_terminal(terminal)
        if claims_path is not None and claim:
            raise _fail("give either --claims or --claim, not both")
        if claims_path is not None:
            claims = load_claims(claims_path)
        elif claim:
            claims = [Claim(id=f"claim-{i + 1}", text=text) for i, text in enumerate(claim)]
        else:
            claims = sentence_claims(dag, start)
        if not claims:
            raise _fail(f"no claims: the terminal {start!r} has no sentence with verifiable content")
        config = TrailConfig(q=q, max_sentences_per_prompt=max_sentences_per_prompt, concurrency=concurrency)
        engine = VeriTrail(make_verifier(verifier), config)
        target = out or dag_path.with_name(dag_path.stem + ".report.json")
        with _progress(len(claims)) as progress:
            task = progress.add_task("claims", total=len(claims))
            report = asyncio.run(
                run_audit(
                    engine,
                    dag,
                    claims,
                    start,
                    source=str(dag_path),
                    verifier_name=verifier,
                    report_path=target,
                    resume=resume,
                    on_result=lambda _: progress.advance(task),
                )
            )
    except (VeriTrailError, ValueError) as exc:
        raise _fail(str(exc)) from None

    stdout.print(claims_table(report))
    counts = ", ".join(f"{n} {v}" for v, n in report.summary.verdicts.items() if n)
    stdout.print(f"{counts}. Report: {target}", highlight=False)
    if report.resumed_claims:
        stdout.print(f"{report.resumed_claims} claim(s) were taken from the interrupted run's checkpoint.")
    if fail_on_unsupported and any(r.verdict is not Verdict.FULLY_SUPPORTED for r in report.results):
        raise typer.Exit(code=1)


def _audit_target(target: AuditTarget, claims: list[Claim] | None, verifier: str, q: int, resume: bool) -> None:
    """Verify a target's claims, write report.json + report.md into its folder, print the table."""
    if claims is None:
        claims, where = terminal_claims(target.dag, target.terminals)
        terminal: str | dict[str, str] = where
    else:
        if len(target.terminals) != 1:
            raise _fail("--claims needs a single terminal")
        terminal = target.terminals[0]
    if not claims:
        raise _fail(f"no claims: {', '.join(target.terminals)} has no sentence with verifiable content")
    engine = VeriTrail(make_verifier(verifier), TrailConfig(q=q))
    report_path = target.out_dir / "report.json"
    for note in target.notes:
        stderr.print(f"note: {note}", highlight=False, soft_wrap=True)
    with _progress(len(claims)) as progress:
        task = progress.add_task("claims", total=len(claims))
        report = asyncio.run(
            run_audit(
                engine,
                target.dag,
                claims,
                terminal,
                source=target.source,
                verifier_name=verifier,
                report_path=report_path,
                markdown_path=target.out_dir / "report.md",
                resume=resume,
                on_result=lambda _: progress.advance(task),
            )
        )
    stdout.print(claims_table(report))
    counts = ", ".join(f"{n} {v}" for v, n in report.summary.verdicts.items() if n)
    stages = ", ".join(f"stage {k}: {n}" for k, n in report.summary.error_stages.items())
    stdout.print(f"{counts}." + (f" Error stages: {stages}." if stages else ""), highlight=False)
    stdout.print(f"Report: {report_path} and {report_path.with_suffix('.md')}", highlight=False, soft_wrap=True)


@app.command()
def audit(
    path: Annotated[
        Path, typer.Argument(help="GraphRAG project root or output/, DAG JSON, summary log or BooookScore file.")
    ],
    query_run: Annotated[
        str | None, typer.Option(help="GraphRAG: the saved query run to audit (default: latest).")
    ] = None,
    answer: Annotated[Path | None, typer.Option(help="GraphRAG: a final answer saved from `graphrag query`.")] = None,
    map_answers: Annotated[Path | None, typer.Option(help="GraphRAG: folder of map-answer files for --answer.")] = None,
    question: Annotated[str | None, typer.Option(help="The question the answer responds to.")] = None,
    book: Annotated[str | None, typer.Option(help="BooookScore: the book to audit.")] = None,
    claims_path: Annotated[Path | None, typer.Option("--claims", help="JSON list of {id, text} claims.")] = None,
    verifier: Annotated[str, typer.Option(help=f"One of: {', '.join(VERIFIERS)}.")] = "lexical",
    q: Annotated[
        int, typer.Option("--q", min=1, help="Consecutive Not Fully Supported verdicts that end a claim.")
    ] = 1,
    resume: Annotated[bool, typer.Option(help="Reuse claims finished by an interrupted run.")] = True,
) -> None:
    """Audit a pipeline run's final output and write report.json and report.md next to its artifacts."""
    try:
        if is_graphrag(path):
            target = graphrag_query_target(
                path, query_run=query_run, answer=answer, map_answers=map_answers, question=question
            )
        else:
            target = file_target(path, book=book)
        claims = load_claims(claims_path) if claims_path is not None else None
        _audit_target(target, claims, verifier, q, resume)
    except (VeriTrailError, ValueError) as exc:
        raise _fail(str(exc)) from None


@app.command("audit-index")
def audit_index(
    root: Annotated[Path, typer.Argument(help="GraphRAG project root or output folder.")],
    reports: Annotated[int, typer.Option(min=1, help="Audit the N highest-ranked community reports.")] = 10,
    community: Annotated[list[int] | None, typer.Option(help="Audit this community's report (repeatable).")] = None,
    all_reports: Annotated[bool, typer.Option("--all", help="Audit every community report.")] = False,
    verifier: Annotated[str, typer.Option(help=f"One of: {', '.join(VERIFIERS)}.")] = "lexical",
    q: Annotated[int, typer.Option("--q", min=1)] = 1,
    resume: Annotated[bool, typer.Option(help="Reuse claims finished by an interrupted run.")] = True,
) -> None:
    """Audit the index itself: community reports traced through descriptions to the text units."""
    try:
        target = graphrag_index_target(root, reports=None if all_reports else reports, communities=community)
        _audit_target(target, None, verifier, q, resume)
    except (VeriTrailError, ValueError) as exc:
        raise _fail(str(exc)) from None


@app.command()
def version() -> None:
    """Print the version."""
    stdout.print(__version__)
