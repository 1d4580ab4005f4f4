"""The audit report: a pydantic model (the JSON file) and its markdown rendering.

Computing lives in the engine; this module only counts and renders. The terminal's rendering is
`report_console.py`.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from veritrail_graphrag.citation_accuracy import CitationSummary, summarize_citations
from veritrail_graphrag.citations import ClaimCitations
from veritrail_graphrag.files import Content, write_together
from veritrail_graphrag.llm.usage import UsageReport
from veritrail_graphrag.models import Claim, TrailConfig, Verdict
from veritrail_graphrag.trail import ClaimResult

REPORT_VERSION = 1


class ClaimFailure(BaseModel):
    """A claim the verifier could not judge (e.g. no readable model answer after retries).

    It has no verdict: nothing is guessed. Re-running the audit retries only such claims."""

    claim: Claim
    terminal: str
    error: str


class Summary(BaseModel):
    claims: int
    failed: int = Field(default=0, description="claims that could not be verified (see `failed`)")
    verdicts: dict[str, int]
    error_stages: dict[str, int] = Field(description="Not Fully Supported claims naming each stage")
    unlocalized: int = Field(description="Not Fully Supported claims for which no stage can be named")
    nodes_in_dag: int
    nodes_read: int = Field(description="distinct nodes read over all claims")
    mean_nodes_read_per_claim: float
    citations: CitationSummary | None = Field(
        default=None, description="citation accuracy, when the output cites its inputs (GraphRAG [Data: ...])"
    )


class AuditReport(BaseModel):
    report_version: int = REPORT_VERSION
    tool: str = "veritrail-graphrag"
    tool_version: str
    created: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    source: str
    terminals: list[str]
    verifier: str
    verifier_settings: dict[str, Any] = Field(default_factory=dict, description="what decides its answers")
    config: TrailConfig
    dag_metadata: dict[str, Any] = Field(default_factory=dict)
    summary: Summary
    resumed_claims: int = Field(default=0, description="claims taken from an interrupted run's checkpoint")
    usage: UsageReport | None = Field(
        default=None, description="model calls, tokens and cost: total, per claim and per call kind"
    )
    results: list[ClaimResult]
    failed: list[ClaimFailure] = Field(default_factory=list)

    def save(self, path: Path, markdown_path: Path | None = None) -> None:
        """The JSON report, and its markdown rendering when `markdown_path` is given: both new or
        both as they were (`write_together`)."""
        files: list[tuple[Path, Content]] = [(path, self.model_dump_json(indent=2).encode())]
        if markdown_path is not None:
            files.append((markdown_path, render_markdown(self).encode()))
        write_together(files)


def summarize(results: list[ClaimResult], nodes_in_dag: int, failed: int = 0) -> Summary:
    """Counts over the results; citation accuracy when the results carry citations."""
    verdicts = Counter(r.verdict.value for r in results)
    stages: Counter[str] = Counter()
    unlocalized = 0
    for result in results:
        if result.verdict is Verdict.NOT_FULLY_SUPPORTED:
            if result.error_stages is None:
                unlocalized += 1
            else:
                stages.update(str(s) for s in result.error_stages)
    read = {n for r in results for it in r.iterations for n in it.checked}
    return Summary(
        claims=len(results) + failed,
        failed=failed,
        verdicts={v.value: verdicts.get(v.value, 0) for v in Verdict},
        error_stages=dict(sorted(stages.items(), key=lambda kv: int(kv[0]))),
        unlocalized=unlocalized,
        nodes_in_dag=nodes_in_dag,
        nodes_read=len(read),
        mean_nodes_read_per_claim=round(sum(r.nodes_read for r in results) / len(results), 2) if results else 0.0,
        citations=summarize_citations(results),
    )


def stages_text(result: ClaimResult) -> str:
    """The error stages as written in reports: empty unless Not Fully Supported."""
    if result.verdict is not Verdict.NOT_FULLY_SUPPORTED:
        return ""
    if result.error_stages is None:
        return "unknown"
    return ", ".join(map(str, result.error_stages))


def render_markdown(report: AuditReport) -> str:
    s = report.summary
    terminals = ", ".join(f"`{t}`" for t in report.terminals[:10])
    if len(report.terminals) > 10:
        terminals += f" and {len(report.terminals) - 10} more"
    lines = [
        f"# VeriTrail audit of `{report.source}`",
        "",
        f"Terminal(s) {terminals}, verifier `{report.verifier}`, q={report.config.q}, {report.created}.",
        "",
        *(f"> Note: {note}\n" for note in report.dag_metadata.get("notes", [])),
        "| verdict | claims |",
        "|---|---|",
        *(f"| {v} | {n} |" for v, n in s.verdicts.items()),
        "",
        f"Nodes read: {s.nodes_read} of {s.nodes_in_dag} ({s.mean_nodes_read_per_claim} per claim on average).",
        "",
    ]
    if s.error_stages or s.unlocalized:
        lines += ["## Where unsupported claims were introduced", "", "| stage | claims |", "|---|---|"]
        lines += [f"| {stage} | {n} |" for stage, n in s.error_stages.items()]
        if s.unlocalized:
            lines.append(f"| no stage can be named | {s.unlocalized} |")
        lines.append("")
    if s.citations is not None:
        lines += citation_lines(s.citations, report.results)
    if report.failed:
        lines += [f"## Claims that could not be verified ({len(report.failed)})", ""]
        lines += [f"- `{f.claim.id}` {f.claim.text}: {f.error}" for f in report.failed]
        lines += ["", "Re-run the same command to retry them; verified claims are not asked again.", ""]
    unsupported = [r for r in report.results if r.verdict is not Verdict.FULLY_SUPPORTED]
    if unsupported:
        lines += ["## Claims that are not fully supported", ""]
    for r in unsupported:
        lines += [
            f"### `{r.claim.id}`: {r.verdict.value}",
            "",
            f"> {r.claim.text}",
            "",
            f"- Error stage(s): {stages_text(r) or 'n/a'}. {r.error_note}".rstrip(),
            f"- Interim verdicts: {', '.join(v.value for v in r.interim_verdicts)}",
            f"- Reasoning: {r.reasoning}",
        ]
        if r.citations is not None:
            lines.append(f"- Citations: {_cited_cell(r.citations)}")
        for it in r.iterations:
            evidence = "; ".join(f"`{e.id}` {e.text}" for e in it.evidence[:5]) or "none"
            lines.append(f"- Iteration {it.index} ({it.verdict.value}), checked {len(it.checked)} node(s): {evidence}")
        lines.append("")
    return "\n".join(lines)


def _percent(rate: float | None) -> str:
    return "" if rate is None else f"{rate:.0%}"


def _cited_cell(c: ClaimCitations) -> str:
    if c.uncited:
        return "none"
    parts = [f"`{n}` evidence" for n in c.supporting]
    parts += [f"`{n}` **no evidence**" for n in c.no_evidence]
    parts += [f"`{n}` not reached" for n in c.not_reached]
    parts += [f"`{label}` not upstream of the output" for label in c.unknown]
    notes = (" (+more)" if c.incomplete else "") + (" (a marker shared by the paragraph)" if c.shared else "")
    return ", ".join(parts) + notes


def citation_lines(c: CitationSummary, results: list[ClaimResult]) -> list[str]:
    """The citation-accuracy section of report.md: rates, then the mis-cited claims."""
    lines = [
        "## Citations",
        "",
        "| claims that | count | rate |",
        "|---|---|---|",
        f"| cite nothing | {c.uncited} of {c.claims} | {_percent(c.uncited_rate)} |",
        f"| have an evidence trail through a cited node | {c.in_trail} of {c.citing_known_nodes} citing |"
        f" {_percent(c.in_trail_rate)} |",
        f"| cite a node that yielded no evidence (mis-cited) | {c.miscited} of {c.citing_known_nodes} citing |"
        f" {_percent(c.miscited_rate)} |",
        f"| end their citation list in +more | {c.incomplete} | |",
        f"| cite records not upstream of the output | {c.with_unknown} | |",
        f"| cite through a marker their paragraph shares | {c.shared} | |",
        "",
    ]
    miscited = [r for r in results if r.citations is not None and r.citations.miscited]
    if miscited:
        lines += [f"Mis-cited claims ({len(miscited)}):", ""]
        lines += [f"- `{r.claim.id}` {r.claim.text}: {_cited_cell(r.citations)}" for r in miscited if r.citations]
        lines.append("")
    return lines
