"""`veritrail check-cited`: the cited-answer check from the command line.

What is checked against what, and where the report goes, is `cited.inputs`. The table goes to
stdout, notes and errors to stderr; the JSON report (the shape `detect_hallucination` returns)
is written atomically, except by a run that verified nothing, which keeps a previous report.

Exit codes (`cli/exit_codes.py`): 0 checked, 1 a claim is flagged and `--fail-on-unsupported` is on,
2 bad input or settings, 3 some claims timed out or failed (re-running asks only what the cache
lacks), 4 the model endpoint cannot be used (refused, unknown model, unreachable), 5 the report
cannot be written, 70 a bug, 130 interrupted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.console import Console

from veritrail_graphrag import event_loop
from veritrail_graphrag.cited.budget import Units
from veritrail_graphrag.cited.check import CheckSettings, CitedCheck, ContextMode, llm_config, make_client
from veritrail_graphrag.cited.claims import ClaimSplit
from veritrail_graphrag.cited.inputs import CheckInput, graphrag_input, spans_input
from veritrail_graphrag.cited.probe import ProbabilitySource, ProbeSettings
from veritrail_graphrag.cited.report import CitedCheckReport, budget_table
from veritrail_graphrag.cli.console import print_notes
from veritrail_graphrag.cli.exit_codes import ExitCode, guarded
from veritrail_graphrag.errors import LLMConfigError, UsageError

stdout = Console()
stderr = Console(stderr=True)


Verifier = Literal["llm", "lexical"]


async def _run(
    given: CheckInput, settings: CheckSettings, verifier: Verifier, model: str | None,
    overrides: dict[str, str | None],
) -> CitedCheckReport:  # fmt: skip
    if verifier == "lexical":
        return await CitedCheck(settings).run(given.answer, given.spans, given.markers)
    try:
        client = make_client(llm_config(model, given.settings_root, overrides))
        try:
            return await CitedCheck(settings, client).run(given.answer, given.spans, given.markers)
        finally:
            await client.aclose()
    except LLMConfigError as exc:
        raise LLMConfigError(f"{exc}; to check the citations without a model: --verifier lexical") from None


def _print(report: CitedCheckReport, out: Path) -> None:
    stdout.print(budget_table(report))
    s = report.summary
    counts = ", ".join(f"{n} {status}" for status, n in s.statuses.items())
    stdout.print(f"{s.flagged_claims} of {len(report.details)} claims flagged ({counts}).", highlight=False)
    if s.claims_not_checked:
        stdout.print(
            f"{s.claims_not_checked} claim(s) beyond --max-claims were not checked: the report is flagged.",
            highlight=False,
        )
    if s.non_evidence_removed:
        stdout.print(
            f"Removed before any call, as questions, instructions or headings: sentences of "
            f"{len(s.non_evidence_removed)} span(s) (summary.non_evidence_removed).",
            highlight=False,
        )
    usage = s.usage
    if usage is None:
        stdout.print(f"P(YES): {s.probability}.", highlight=False)
    elif usage.calls + usage.cached_calls == 0:
        stdout.print("No model call: no claim needed one.", highlight=False)
    else:
        cost = "unknown" if usage.cost_usd is None else f"${usage.cost_usd:.4f}"
        cached = (
            f", {usage.cached_input_tokens:,} from the endpoint's prompt cache" if usage.cached_input_tokens else ""
        )
        stdout.print(
            f"Model calls: {usage.calls} ({usage.cached_calls} from cache), {usage.input_tokens:,} prompt tokens"
            f"{cached}, {usage.output_tokens:,} answer tokens, cost {cost}. P(YES): {s.probability}.",
            highlight=False,
        )
    stdout.print(f"Report: {out}", highlight=False, soft_wrap=True, markup=False)


def _no_call_succeeded(report: CitedCheckReport) -> bool:
    """Claims timed out or failed, and no claim got an answer from the model."""
    return bool(report.summary.unverified_idxs) and all(d.post_yes is None for d in report.details)


@guarded
def check_cited_command(
    root: Annotated[
        Path | None,
        typer.Argument(
            metavar="ROOT", help="GraphRAG project: the records the answer cites are the spans (default: latest run)."
        ),
    ] = None,
    answer: Annotated[
        Path | None, typer.Option("--answer", help="The answer, with citations like [S0] or [Data: ...].")
    ] = None,
    spans_path: Annotated[
        Path | None, typer.Option("--spans", help="Evidence spans: JSON list of {sid, text}, or JSON lines.")
    ] = None,
    query_run: Annotated[
        str | None, typer.Option(help="With ROOT: the saved query run to check (default: the latest).")
    ] = None,
    claims_path: Annotated[
        Path | None, typer.Option("--claims", help="Instead of --answer: a JSON list of claims, each with citations.")
    ] = None,
    claim_split: Annotated[ClaimSplit, typer.Option(help="Claims are the answer's sentences or lines.")] = "sentences",
    citation_regex: Annotated[
        str | None, typer.Option(help="How a citation is written: a regex with a group named id.")
    ] = None,
    verifier_model: Annotated[
        str | None, typer.Option("--verifier-model", "--model", help="Model (default: settings, else gpt-4o-mini).")
    ] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible base URL or Azure endpoint.")] = None,
    provider: Annotated[str | None, typer.Option(help="openai (any compatible server) or azure.")] = None,
    api_version: Annotated[str | None, typer.Option(help="Azure OpenAI API version.")] = None,
    default_target: Annotated[
        float, typer.Option("--default-target", "--target", min=0.5, max=0.999, help="P(YES) a claim must reach.")
    ] = 0.95,
    max_claims: Annotated[int, typer.Option(min=1, help="Check at most this many claims; more flag the report.")] = 25,
    require_citations: Annotated[bool, typer.Option(help="Flag claims that cite nothing.")] = False,
    context_mode: Annotated[ContextMode, typer.Option(help="Show the cited spans, or all spans.")] = "cited",
    timeout_s: Annotated[
        float, typer.Option("--timeout-s", "--timeout", min=0.1, help="Seconds for the whole check.")
    ] = 60.0,
    verifier: Annotated[Verifier, typer.Option(help="llm (bits) or lexical (citations only, no model).")] = "llm",
    probability: Annotated[ProbabilitySource, typer.Option(help="How P(YES) is read.")] = "auto",
    samples: Annotated[int, typer.Option(min=1, help="Most samples per question without logprobs.")] = 80,
    top_logprobs: Annotated[int, typer.Option(min=1, max=20, help="Alternatives read per answer token.")] = 10,
    flag_prior_leak: Annotated[bool, typer.Option(help="Flag claims the model believes without evidence.")] = False,
    min_log_odds_gain: Annotated[
        float, typer.Option(help="What a supported claim's evidence must add to the odds of YES (in --units).")
    ] = 0.0,
    units: Annotated[Units, typer.Option(help="Of the budget: bits or nats.")] = "bits",
    include_prompts: Annotated[bool, typer.Option(help="Put each claim's two prompts in the report.")] = False,
    out: Annotated[Path | None, typer.Option(help="Report path (default: beside the answer or the run).")] = None,
    fail_on_unsupported: Annotated[bool, typer.Option(help="Exit with code 1 when any claim is flagged.")] = False,
) -> None:
    """Check each claim of a cited answer: bits of evidence needed vs. observed in its cited spans."""
    overrides = {"base_url": base_url, "provider": provider, "api_version": api_version}
    if (spans_path is None) == (root is None):
        raise UsageError("give either --spans FILE (with --answer or --claims) or a GraphRAG project ROOT")
    if answer is not None and claims_path is not None:
        raise UsageError("give --answer or --claims, not both")
    llm_flags = {"--verifier-model": verifier_model} | {f"--{k.replace('_', '-')}": v for k, v in overrides.items()}
    given_flags = [flag for flag, value in llm_flags.items() if value is not None]
    if verifier == "lexical" and given_flags:
        raise UsageError.of_flags(given_flags, "to --verifier llm only")
    if root is not None:
        if citation_regex is not None:
            raise UsageError("--citation-regex applies to --spans: GraphRAG answers cite [Data: ...]")
        given = graphrag_input(root, answer, claims_path, query_run, out)
    else:
        assert spans_path is not None
        if query_run is not None:
            raise UsageError("--query-run applies to a GraphRAG project ROOT")
        if answer is None and claims_path is None:
            raise UsageError("--spans needs the answer: --answer FILE or --claims FILE")
        given = spans_input(spans_path, answer, claims_path, out)
    print_notes(given.notes)
    settings = CheckSettings(
        target=default_target,
        max_claims=max_claims,
        require_citations=require_citations,
        context_mode=context_mode,
        timeout_s=timeout_s,
        flag_prior_leak=flag_prior_leak,
        min_log_odds_gain=min_log_odds_gain,
        units=units,
        claim_split=claim_split,
        citation_regex=citation_regex,
        include_prompts=include_prompts,
        probe=ProbeSettings(probability=probability, samples=samples, top_logprobs=top_logprobs),
    )
    report = event_loop.run(_run(given, settings, verifier, verifier_model, overrides))
    unverified = report.summary.unverified_idxs
    if _no_call_succeeded(report) and given.report_path.exists():
        stderr.print(
            f"{len(unverified)} claim(s) timed out or failed and no model answer came back: "
            f"{given.report_path} is kept as it was. Re-run to retry them.",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(code=ExitCode.NOT_VERIFIED)
    report.save(given.report_path)
    _print(report, given.report_path)
    if unverified:
        stderr.print(
            f"{len(unverified)} claim(s) timed out or failed; re-run to retry them "
            "(answers already received come from the cache).",
            highlight=False,
        )
        raise typer.Exit(code=ExitCode.NOT_VERIFIED)
    if fail_on_unsupported and report.flagged:
        raise typer.Exit(code=ExitCode.UNSUPPORTED)
