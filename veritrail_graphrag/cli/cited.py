"""`veritrail check-cited`: the cited-answer check from the command line.

The spans come from a file (`--spans`) or, for a GraphRAG answer, from the index records its
`[Data: ...]` markers cite (`--graphrag ROOT`). The table goes to stdout, notes and errors to
stderr; the JSON report (the shape `detect_hallucination` returns) is written atomically.

Exit codes (`cli/exit_codes.py`): 0 checked, 1 a claim is flagged and `--fail-on-unsupported` is on,
2 bad input or settings, 3 some claims timed out or failed (re-running asks only what the cache
lacks), 4 the model endpoint cannot be used, 5 the report cannot be written, 70 a bug, 130
interrupted.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from veritrail_graphrag import event_loop
from veritrail_graphrag.citations import GroupReader
from veritrail_graphrag.cited.check import CheckSettings, CitedCheck, llm_config, make_client
from veritrail_graphrag.cited.claims import Markers
from veritrail_graphrag.cited.probe import ProbeSettings
from veritrail_graphrag.cited.report import CitedCheckReport, budget_table
from veritrail_graphrag.cited.spans import Span, load_spans, make_spans
from veritrail_graphrag.cli.exit_codes import ExitCode, guarded
from veritrail_graphrag.errors import SpansError, UsageError, VeriTrailError
from veritrail_graphrag.files import read_text

stdout = Console()
stderr = Console(stderr=True)


class ContextChoice(StrEnum):
    CITED = "cited"
    ALL = "all"


class VerifierChoice(StrEnum):
    LLM = "llm"
    LEXICAL = "lexical"


class ProbabilityChoice(StrEnum):
    AUTO = "auto"
    LOGPROBS = "logprobs"
    SAMPLING = "sampling"


class _GraphRAGAnswer:
    """What `--graphrag ROOT` gives the check: the cited records as spans, the `[Data: ...]` reader,
    the folder beside the index for reports about this answer, and the project (its settings)."""

    def __init__(self, root: Path, answer: str, stem: str) -> None:
        from veritrail_graphrag.adapters.graphrag import locate, read_index
        from veritrail_graphrag.adapters.graphrag.citations import cited_records, read_data_group
        from veritrail_graphrag.adapters.graphrag.layout import answer_dir

        records = cited_records(read_index(root), answer)
        if not records:
            raise SpansError(f"{root}: the answer cites no record of this index ([Data: Reports (...)], ...)")
        self.spans = make_spans(records, str(root))
        self.read: GroupReader = read_data_group
        self.folder = answer_dir(root, stem, answer)
        self.project_root = locate(root).project_root or root


async def _run(
    answer: str, spans: list[Span], read: GroupReader | None, settings: CheckSettings, verifier: VerifierChoice,
    model: str | None, overrides: dict[str, str | None], root: Path | None,
) -> CitedCheckReport:  # fmt: skip
    markers = Markers(read=read) if read is not None else None
    if verifier is VerifierChoice.LEXICAL:
        return await CitedCheck(settings).run(answer, spans, markers)
    client = make_client(llm_config(model, root, overrides))
    try:
        return await CitedCheck(settings, client).run(answer, spans, markers)
    finally:
        await client.aclose()


def _print(report: CitedCheckReport, out: Path) -> None:
    stdout.print(budget_table(report))
    s = report.summary
    counts = ", ".join(f"{n} {status}" for status, n in s.statuses.items())
    stdout.print(f"{s.flagged_claims} of {len(report.details)} claims flagged ({counts}).", highlight=False)
    if s.claims_not_checked:
        stdout.print(f"{s.claims_not_checked} claim(s) beyond --max-claims were not checked.", highlight=False)
    if s.usage is not None:
        cost = "unknown" if s.usage.cost_usd is None else f"${s.usage.cost_usd:.4f}"
        stdout.print(
            f"Model calls: {s.usage.calls} ({s.usage.cached_calls} from cache), "
            f"{s.usage.total_tokens:,} tokens, cost {cost}. P(YES): {s.probability}.",
            highlight=False,
        )
    else:
        stdout.print(f"P(YES): {s.probability}.", highlight=False)
    stdout.print(f"Report: {out}", highlight=False, soft_wrap=True, markup=False)


@guarded
def check_cited_command(
    answer: Annotated[Path, typer.Option("--answer", help="The answer, with citations like [S0] or [Data: ...].")],
    spans_path: Annotated[
        Path | None, typer.Option("--spans", help="Evidence spans: JSON list of {sid, text}, or JSON lines.")
    ] = None,
    graphrag: Annotated[
        Path | None, typer.Option("--graphrag", help="GraphRAG project: the records the answer cites are the spans.")
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
    max_claims: Annotated[int, typer.Option(min=1, help="Check at most this many claims (sentences).")] = 25,
    require_citations: Annotated[bool, typer.Option(help="Flag claims that cite nothing.")] = False,
    context_mode: Annotated[ContextChoice, typer.Option(help="Show the cited spans, or all spans.")] = (
        ContextChoice.CITED
    ),
    timeout_s: Annotated[
        float, typer.Option("--timeout-s", "--timeout", min=0.1, help="Seconds for the whole check.")
    ] = 60.0,
    verifier: Annotated[VerifierChoice, typer.Option(help="llm (bits) or lexical (citations only, no model).")] = (
        VerifierChoice.LLM
    ),
    probability: Annotated[ProbabilityChoice, typer.Option(help="How P(YES) is read.")] = ProbabilityChoice.AUTO,
    samples: Annotated[int, typer.Option(min=1, help="Most samples per question without logprobs.")] = 80,
    top_logprobs: Annotated[int, typer.Option(min=1, max=20, help="Alternatives read per answer token.")] = 10,
    flag_prior_leak: Annotated[bool, typer.Option(help="Flag claims the model believes without evidence.")] = False,
    out: Annotated[Path | None, typer.Option(help="Report path (default: beside the answer or the index).")] = None,
    fail_on_unsupported: Annotated[bool, typer.Option(help="Exit with code 1 when any claim is flagged.")] = False,
) -> None:
    """Check each claim of a cited answer: bits of evidence needed vs. observed in its cited spans."""
    overrides = {"base_url": base_url, "provider": provider, "api_version": api_version}
    if (spans_path is None) == (graphrag is None):
        raise UsageError("give either --spans FILE or --graphrag ROOT")
    llm_flags = {"--verifier-model": verifier_model} | {f"--{k.replace('_', '-')}": v for k, v in overrides.items()}
    given = [flag for flag, value in llm_flags.items() if value is not None]
    if verifier is VerifierChoice.LEXICAL and given:
        raise UsageError.of_flags(given, "to --verifier llm only")
    text = read_text(answer, VeriTrailError)
    read: GroupReader | None = None
    settings_root: Path | None = None
    if graphrag is not None:
        cited = _GraphRAGAnswer(graphrag, text, answer.stem)
        spans, read, settings_root = cited.spans, cited.read, cited.project_root
        report_path = out or cited.folder / "check-cited.json"
    else:
        assert spans_path is not None
        spans = load_spans(spans_path)
        report_path = out or answer.with_name(f"{answer.stem}.check-cited.json")
    settings = CheckSettings(
        target=default_target,
        max_claims=max_claims,
        require_citations=require_citations,
        context_mode=context_mode.value,
        timeout_s=timeout_s,
        flag_prior_leak=flag_prior_leak,
        probe=ProbeSettings(probability=probability.value, samples=samples, top_logprobs=top_logprobs),
    )
    report = event_loop.run(_run(text, spans, read, settings, verifier, verifier_model, overrides, settings_root))
    report.save(report_path)
    _print(report, report_path)
    if report.summary.unverified_idxs:
        stderr.print(
            f"{len(report.summary.unverified_idxs)} claim(s) timed out or failed; re-run to retry them "
            "(answers already received come from the cache).",
            highlight=False,
        )
        raise typer.Exit(code=ExitCode.NOT_VERIFIED)
    if fail_on_unsupported and report.flagged:
        raise typer.Exit(code=ExitCode.UNSUPPORTED)
