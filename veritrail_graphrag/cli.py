"""The `veritrail` command. Tables go to stdout; progress, notes and errors go to stderr."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from veritrail_graphrag import __version__
from veritrail_graphrag.audit import extract_claims, run_audit
from veritrail_graphrag.cited.cli import check_cited_command
from veritrail_graphrag.claims import load_claims
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine import VeriTrail, resolve_terminal
from veritrail_graphrag.errors import AdapterError, VeriTrailError
from veritrail_graphrag.evaluation.cli import eval_command
from veritrail_graphrag.models import Claim, TrailConfig, Verdict
from veritrail_graphrag.report import AuditReport, ClaimFailure, claims_table
from veritrail_graphrag.targets import (
    AuditTarget,
    file_target,
    graphrag_index_target,
    graphrag_query_target,
)
from veritrail_graphrag.verifiers.registry import VERIFIERS, VerifierOptions, make_verifier

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Trace the claims of a multi-step LLM pipeline's output back to its source (VeriTrail).",
)
stdout = Console()
stderr = Console(stderr=True)

VerifierName = Annotated[str, typer.Option(help=f"One of: {', '.join(VERIFIERS)} (lexical needs no model).")]
Q = Annotated[int, typer.Option("--q", min=1, help="Consecutive Not Fully Supported verdicts that end a claim.")]
Model = Annotated[str | None, typer.Option(help="LLM: model or Azure deployment (default: settings).")]
BaseUrl = Annotated[str | None, typer.Option(help="LLM: OpenAI-compatible base URL or Azure endpoint.")]
Provider = Annotated[str | None, typer.Option(help="LLM: openai (any compatible server) or azure.")]
ApiVersion = Annotated[str | None, typer.Option(help="LLM: Azure OpenAI API version.")]
LocalModel = Annotated[
    str | None,
    typer.Option(
        metavar="PATH.gguf|smollm2",
        help="LLM: serve this GGUF with llama-cpp-python for the run (extra 'local'); smollm2 = the bundled tiny model.",
    ),
]
Samples = Annotated[int, typer.Option(min=1, help="LLM: samples per Evidence Selection and verdict call.")]
MinAgreement = Annotated[int, typer.Option(min=1, help="LLM: samples that must agree (confidence scores).")]
Concurrency = Annotated[
    int | None, typer.Option(min=1, help="Verifier calls in flight at once (default: LLM settings, else 16).")
]
Resume = Annotated[bool, typer.Option(help="Reuse claims finished by an interrupted run with the same inputs.")]
DryRun = Annotated[bool, typer.Option(help="Estimate calls, tokens and cost from the DAG; call nothing.")]


def _fail(message: str) -> typer.Exit:
    stderr.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
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


def _usage(verifier: object) -> dict[str, Any] | None:
    ledger = getattr(verifier, "usage", None)
    if ledger is None:
        return None
    return {
        "total": ledger.total().model_dump(),
        "per_claim": {k: u.model_dump() for k, u in ledger.by_key().items()},
        "by_kind": {str(k): u.model_dump() for k, u in ledger.by_kind().items()},
    }


def _print_dry_run(target: AuditTarget, options: VerifierOptions, config: TrailConfig, extract: bool) -> None:
    from veritrail_graphrag.dry_run import plan
    from veritrail_graphrag.llm.config import resolve_llm_config

    llm = resolve_llm_config(options.root, options.llm_overrides())
    estimate = plan(
        target.dag, target.terminals, config, llm.model, extract=extract, samples=options.samples, prices=llm.prices
    )
    table = Table(title=f"dry run: {estimate.claims} claims (≈ one per sentence), model {llm.model}")
    for column in ("bound", "calls", "input tokens", "output tokens", "cost (USD)"):
        table.add_column(column, justify="right")
    for name, bound in (("lower: one iteration", estimate.lower), ("upper: every upstream node", estimate.upper)):
        calls = sum(k.calls for k in bound.kinds)
        cost = "unknown price" if bound.cost_usd is None else f"{bound.cost_usd:,.2f}"
        table.add_row(name, f"{calls:,}", f"{bound.input_tokens:,}", f"{bound.output_tokens:,}", cost)
    stdout.print(table)
    stdout.print(
        f"{estimate.nodes_upstream:,} of {estimate.nodes_in_dag:,} nodes are upstream of the terminal(s); "
        "the paper's GraphRAG audits read 0.3-1% of the DAG per claim, so expect figures near the lower bound.",
        highlight=False,
    )


async def _run(
    target: AuditTarget,
    claims: list[Claim] | None,
    verifier_name: str,
    options: VerifierOptions,
    config: TrailConfig,
    report_path: Path,
    markdown_path: Path | None,
    resume: bool,
) -> AuditReport:
    verifier = make_verifier(verifier_name, options)
    extraction_failures: list[ClaimFailure] = []
    try:
        if claims is None:
            found, terminal, extraction_failures = await extract_claims(
                verifier, target.dag, target.terminals, target.question
            )
            claims = found
        elif len(target.terminals) == 1:
            terminal = target.terminals[0]
        else:
            raise _fail("--claims needs a single terminal")
        if not claims and not extraction_failures:
            raise _fail(f"no claims: {', '.join(target.terminals)} has no sentence with verifiable content")
        with _progress(len(claims)) as progress:
            task = progress.add_task("claims", total=len(claims))
            return await run_audit(
                VeriTrail(verifier, config),
                target.dag,
                claims,
                terminal,
                source=target.source,
                verifier_name=verifier_name,
                report_path=report_path,
                markdown_path=markdown_path,
                resume=resume,
                on_result=lambda _: progress.advance(task),
                usage=lambda: _usage(verifier),
                citations=target.citations,
                extraction_failures=extraction_failures,
            )
    finally:
        close = getattr(verifier, "aclose", None)
        if close is not None:
            await close()


def _audit(
    target: AuditTarget,
    claims: list[Claim] | None,
    verifier_name: str,
    options: VerifierOptions,
    config: TrailConfig,
    report_path: Path,
    markdown_path: Path | None,
    resume: bool,
    dry_run: bool,
) -> AuditReport | None:
    for note in target.notes:
        stderr.print(f"note: {escape(note)}", highlight=False, soft_wrap=True)
    if dry_run and verifier_name != "llm":
        stdout.print(f"--dry-run estimates model calls; the {verifier_name} verifier makes none.", highlight=False)
        return None
    if dry_run:
        _print_dry_run(target, options, config, extract=claims is None and verifier_name == "llm")
        return None
    report = asyncio.run(_run(target, claims, verifier_name, options, config, report_path, markdown_path, resume))
    stdout.print(claims_table(report, target.dag.stage))
    counts = ", ".join(f"{n} {v}" for v, n in report.summary.verdicts.items() if n)
    stages = ", ".join(f"stage {k}: {n}" for k, n in report.summary.error_stages.items())
    stdout.print(f"{counts}." + (f" Error stages: {stages}." if stages else ""), highlight=False)
    if report.usage is not None:
        total = report.usage["total"]
        cost = "unknown" if total["cost_usd"] is None else f"${total['cost_usd']:.4f}"
        stdout.print(
            f"Model calls: {total['calls']} ({total['cached_calls']} from cache), "
            f"{total['input_tokens'] + total['output_tokens']:,} tokens, cost {cost}.",
            highlight=False,
        )
    if report.summary.citations is not None:
        c = report.summary.citations
        stdout.print(
            f"Citations: {c.uncited} of {c.claims} claims cite nothing; of {c.citing_known_nodes} citing, "
            f"{c.in_trail} have an evidence trail through a cited node and {c.miscited} cite a node "
            "that yielded no evidence.",
            highlight=False,
        )
    if report.resumed_claims:
        stdout.print(f"{report.resumed_claims} claim(s) were taken from the interrupted run's checkpoint.")
    for failure in report.failed:
        stderr.print(
            f"[red]not verified:[/red] {escape(failure.claim.id)}: {escape(failure.error)}",
            highlight=False,
            soft_wrap=True,
        )
    written = f"{report_path}" + (f" and {markdown_path}" if markdown_path else "")
    stdout.print(f"Report: {written}", highlight=False, soft_wrap=True, markup=False)
    if report.failed:
        stderr.print(
            f"{len(report.failed)} claim(s) could not be verified; re-run the same command to retry only those.",
            highlight=False,
        )
        raise typer.Exit(code=3)
    return report


def _refuse(flags: dict[str, object], why: str) -> None:
    given = [flag for flag, value in flags.items() if value is not None]
    if given:
        raise _fail(f"{', '.join(given)} {why}")


def _setup(
    verifier: str,
    root: Path | None,
    *,
    q: int,
    concurrency: int | None,
    max_sentences_per_prompt: int = 40,
    model: str | None = None,
    base_url: str | None = None,
    provider: str | None = None,
    api_version: str | None = None,
    local_model: str | None = None,
    samples: int = 1,
    min_agreement: int = 1,
) -> tuple[VerifierOptions, TrailConfig]:
    """Verifier options and traversal settings from the flags; LLM flags with the lexical verifier
    are refused rather than ignored, and concurrency defaults to the LLM settings' own."""
    llm_flags = {"--model": model, "--base-url": base_url, "--provider": provider, "--api-version": api_version}
    llm_flags["--local-model"] = local_model
    llm_flags |= {
        "--samples": samples if samples != 1 else None,
        "--min-agreement": min_agreement if min_agreement != 1 else None,
    }
    given = [flag for flag, value in llm_flags.items() if value is not None]
    if verifier != "llm" and given:
        raise _fail(f"{', '.join(given)} apply to --verifier llm only")
    options = VerifierOptions(
        root=root, model=model, base_url=base_url, provider=provider, api_version=api_version,
        local_model=local_model, concurrency=concurrency, samples=samples, min_agreement=min_agreement,
    )  # fmt: skip
    if concurrency is None and verifier == "llm":
        from veritrail_graphrag.llm.config import resolve_llm_config

        concurrency = resolve_llm_config(root, options.llm_overrides()).concurrency
    config = TrailConfig(q=q, max_sentences_per_prompt=max_sentences_per_prompt, concurrency=concurrency or 16)
    return options, config


@app.command()
def verify(
    dag_path: Annotated[Path, typer.Argument(metavar="DAG.json", help="A DAG in veritrail's JSON format.")],
    claims_path: Annotated[
        Path | None,
        typer.Option("--claims", help="JSON list of {id, text} claims (default: the terminal's claims)."),
    ] = None,
    claim: Annotated[list[str] | None, typer.Option("--claim", help="A claim to verify (repeatable).")] = None,
    terminal: Annotated[str | None, typer.Option(help="Node to verify (default: the DAG's unique sink).")] = None,
    q: Q = 1,
    verifier: VerifierName = "lexical",
    out: Annotated[Path | None, typer.Option(help="Report path (default: <DAG>.report.json beside the DAG).")] = None,
    max_sentences_per_prompt: Annotated[int, typer.Option(min=1)] = 40,
    concurrency: Concurrency = None,
    model: Model = None,
    base_url: BaseUrl = None,
    provider: Provider = None,
    api_version: ApiVersion = None,
    local_model: LocalModel = None,
    samples: Samples = 1,
    min_agreement: MinAgreement = 1,
    resume: Resume = True,
    dry_run: DryRun = False,
    fail_on_unsupported: Annotated[
        bool, typer.Option(help="Exit with code 1 when any claim is not Fully Supported (for CI gates).")
    ] = False,
) -> None:
    """Verify claims against a DAG file and write a JSON report (atomically)."""
    try:
        if claims_path is not None and claim:
            raise _fail("give either --claims or --claim, not both")
        dag = DAG.from_json(dag_path)
        start = resolve_terminal(dag, terminal)
        claims: list[Claim] | None = None
        if claims_path is not None:
            claims = load_claims(claims_path)
        elif claim:
            claims = [Claim(id=f"claim-{i + 1}", text=text) for i, text in enumerate(claim)]
        target = AuditTarget(dag, [start], dag_path.parent, str(dag_path), dag.metadata.get("question"))
        options, config = _setup(
            verifier, None, q=q, concurrency=concurrency, max_sentences_per_prompt=max_sentences_per_prompt,
            model=model, base_url=base_url, provider=provider, api_version=api_version, local_model=local_model,
            samples=samples, min_agreement=min_agreement,
        )  # fmt: skip
        report_path = out or dag_path.with_name(dag_path.stem + ".report.json")
        report = _audit(target, claims, verifier, options, config, report_path, None, resume, dry_run)
    except (VeriTrailError, ValueError) as exc:
        raise _fail(str(exc)) from None
    if fail_on_unsupported and report and any(r.verdict is not Verdict.FULLY_SUPPORTED for r in report.results):
        raise typer.Exit(code=1)


@app.command()
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
    book: Annotated[str | None, typer.Option(help="BooookScore: the book to audit.")] = None,
    chunks: Annotated[
        Path | None, typer.Option(help="BooookScore: the chunk file (.json, or a trusted .pkl) so chunks are roots.")
    ] = None,
    max_context_len: Annotated[int | None, typer.Option(help="BooookScore: the run's max_context_len.")] = None,
    chunk_size: Annotated[int | None, typer.Option(help="BooookScore: the run's chunk_size.")] = None,
    claims_path: Annotated[Path | None, typer.Option("--claims", help="JSON list of {id, text} claims.")] = None,
    verifier: VerifierName = "lexical",
    q: Q = 1,
    concurrency: Concurrency = None,
    model: Model = None,
    base_url: BaseUrl = None,
    provider: Provider = None,
    api_version: ApiVersion = None,
    local_model: LocalModel = None,
    samples: Samples = 1,
    min_agreement: MinAgreement = 1,
    resume: Resume = True,
    dry_run: DryRun = False,
) -> None:
    """Audit a pipeline run's final output; write report.json and report.md next to its artifacts."""
    try:
        graphrag_flags = {"--query-run": query_run, "--answer": answer, "--map-answers": map_answers}
        booookscore_flags = {"--book": book, "--chunks": chunks, "--max-context-len": max_context_len,
                             "--chunk-size": chunk_size}  # fmt: skip
        if path.is_dir():
            _refuse(booookscore_flags, "apply to BooookScore files, not to a GraphRAG project")
            if answer is None:
                _refuse({"--map-answers": map_answers, "--question": question}, "go with --answer")
            target = graphrag_query_target(
                path, query_run=query_run, answer=answer, map_answers=map_answers, question=question
            )
        else:
            _refuse(graphrag_flags | {"--question": question}, "apply to GraphRAG projects, not to a file")
            target = file_target(
                path, book=book, chunks_path=chunks, max_context_len=max_context_len, chunk_size=chunk_size
            )
        claims = load_claims(claims_path) if claims_path is not None else None
        options, config = _setup(
            verifier, target.project_root, q=q, concurrency=concurrency, model=model, base_url=base_url,
            provider=provider, api_version=api_version, local_model=local_model, samples=samples, min_agreement=min_agreement,
        )  # fmt: skip
        report_path = target.out_dir / "report.json"
        _audit(target, claims, verifier, options, config, report_path, target.out_dir / "report.md", resume, dry_run)
    except (VeriTrailError, ValueError) as exc:
        raise _fail(str(exc)) from None


@app.command("audit-index")
def audit_index(
    root: Annotated[Path, typer.Argument(help="GraphRAG project root or output folder.")],
    reports: Annotated[
        int | None, typer.Option(min=1, help="Audit the N highest-ranked community reports (default 10).")
    ] = None,
    community: Annotated[list[int] | None, typer.Option(help="Audit this community's report (repeatable).")] = None,
    all_reports: Annotated[bool, typer.Option("--all", help="Audit every community report.")] = False,
    verifier: VerifierName = "lexical",
    q: Q = 1,
    concurrency: Concurrency = None,
    model: Model = None,
    base_url: BaseUrl = None,
    provider: Provider = None,
    api_version: ApiVersion = None,
    local_model: LocalModel = None,
    samples: Samples = 1,
    min_agreement: MinAgreement = 1,
    resume: Resume = True,
    dry_run: DryRun = False,
) -> None:
    """Audit the index itself: community reports traced through descriptions to the text units."""
    try:
        if community and (all_reports or reports is not None):
            raise _fail("give --community, or --reports/--all, not both")
        chosen = list(dict.fromkeys(community)) if community else None
        count = None if all_reports else (reports or 10)
        target = graphrag_index_target(root, reports=count, communities=chosen)
        options, config = _setup(
            verifier, target.project_root, q=q, concurrency=concurrency, model=model, base_url=base_url,
            provider=provider, api_version=api_version, local_model=local_model, samples=samples, min_agreement=min_agreement,
        )  # fmt: skip
        report_path = target.out_dir / "report.json"
        _audit(target, None, verifier, options, config, report_path, target.out_dir / "report.md", resume, dry_run)
    except (VeriTrailError, ValueError) as exc:
        raise _fail(str(exc)) from None


@app.command()
def query(
    root: Annotated[Path, typer.Argument(help="GraphRAG project root (with settings.yaml and an index).")],
    query_text: Annotated[str, typer.Option("--query", help="The question to ask.")],
    method: Annotated[str, typer.Option(help="Search method; only global search has map/reduce steps.")] = "global",
    community_level: Annotated[int, typer.Option(help="As `graphrag query --community-level`.")] = 2,
    response_type: Annotated[str, typer.Option(help="As `graphrag query --response-type`.")] = "Multiple Paragraphs",
    run_audit_after: Annotated[bool, typer.Option("--audit/--no-audit", help="Audit the run once saved.")] = True,
    verifier: VerifierName = "lexical",
    q: Q = 1,
    concurrency: Concurrency = None,
    model: Model = None,
    base_url: BaseUrl = None,
    provider: Provider = None,
    api_version: ApiVersion = None,
    local_model: LocalModel = None,
) -> None:
    """Run GraphRAG's global search with a recorder, save the whole run beside the index, audit it."""
    if method != "global":
        raise _fail(
            f"--method {method}: only global search is captured (its map answers and reduce step are "
            "stages 5 and 6); save a local search answer to a file and use `veritrail audit ROOT --answer FILE`"
        )
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        from veritrail_graphrag.adapters.graphrag_capture import capture_global_search, run_dir

        run = asyncio.run(
            capture_global_search(
                root,
                query_text,
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
            stderr.print(f"note: nothing to audit: {escape(str(exc))}", highlight=False, soft_wrap=True)
            return
        options, config = _setup(
            verifier, target.project_root, q=q, concurrency=concurrency, model=model, base_url=base_url,
            provider=provider, api_version=api_version, local_model=local_model,
        )  # fmt: skip
        report_path = target.out_dir / "report.json"
        _audit(target, None, verifier, options, config, report_path, target.out_dir / "report.md", True, False)
    except (VeriTrailError, ValueError) as exc:
        raise _fail(str(exc)) from None


app.command("eval")(eval_command)
app.command("check-cited")(check_cited_command)


@app.command()
def version() -> None:
    """Print the version."""
    stdout.print(__version__)
