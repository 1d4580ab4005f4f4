"""report.md: the summary and the claims that are not fully supported, with their trails.

Capped at `limit` claims (`--md-limit`) so that an index audit's markdown stays readable; the rest
are in report.html and report.json.
"""

from __future__ import annotations

from veritrail_graphrag.citations import ClaimCitations
from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.models import Sentence, SupportGap, Verdict
from veritrail_graphrag.report.citation_accuracy import CitationSummary
from veritrail_graphrag.report.model import (
    HEADING_REASON,
    TABLE_REASON,
    AuditReport,
    SkippedSentence,
    count_note,
    flagged_first,
    stages_text,
    unsupported_words,
    verdict_text,
)

MD_LIMIT = 200
EVIDENCE_SHOWN = 5
"""Evidence sentences listed per iteration (besides those saying the unsupported words)."""


def render_markdown(report: AuditReport, limit: int = MD_LIMIT) -> str:
    """The summary, then at most `limit` claims that are not fully supported (flagged first)."""
    s = report.summary
    terminals = ", ".join(f"`{t}`" for t in report.terminals[:10])
    if len(report.terminals) > 10:
        terminals += f" and {len(report.terminals) - 10} more"
    lines = [
        f"# VeriTrail audit of `{report.source}`",
        "",
        f"Terminal(s) {terminals}, verifier `{report.verifier}`, q={report.config.q}, {report.created}.",
        "",
        *(f"> Note: {note}\n" for note in [report.verifier_note, *report.dag_metadata.get("notes", [])] if note),
        "| verdict | claims |",
        "|---|---|",
        *(f"| {v} | {n}{count_note(s, v)} |" for v, n in s.verdicts.items()),
        "",
        f"Nodes read: {s.nodes_read} of {s.nodes_in_dag} ({s.mean_nodes_read_per_claim} per claim on average).",
        "",
        *([s.languages.note, ""] if s.languages is not None else []),
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
    lines += skipped_lines(report.skipped)
    unsupported = [r for r in flagged_first(report.results) if r.verdict is not Verdict.FULLY_SUPPORTED]
    if unsupported:
        lines += [f"## Claims that are not fully supported ({len(unsupported)})", ""]
    if len(unsupported) > limit:
        lines += [
            f"The first {limit} are shown (`--md-limit`); report.html beside this file lists and filters all of them.",
            "",
        ]
    for r in unsupported[:limit]:
        lines += [
            f"### `{r.claim.id}`: {verdict_text(r)}",
            "",
            f"> {r.claim.text}",
            "",
            f"- Error stage(s): {stages_text(r) or 'n/a'}. {r.error_note}".rstrip(),
            f"- Interim verdicts: {', '.join(v.value for v in r.interim_verdicts)}",
            f"- Reasoning: {r.reasoning}",
        ]
        lines += [_flag_line(g) for g in r.gaps if g.check]
        if r.gaps:
            lines.append("- Without support in its evidence: " + "; ".join(_gap_text(g) for g in r.gaps))
        if r.citations is not None:
            lines.append(f"- Citations: {_cited_cell(r.citations)}")
        words = unsupported_words(r)
        for it in r.iterations:
            evidence = _evidence_text(it.evidence, words)
            lines.append(f"- Iteration {it.index} ({it.verdict.value}), checked {len(it.checked)} node(s): {evidence}")
        lines.append("")
    return "\n".join(lines)


def _evidence_text(evidence: list[Sentence], words: list[SupportGap]) -> str:
    """An iteration's evidence, at most `EVIDENCE_SHOWN` sentences and how many more: those that
    say the claim's unsupported words always (where the error entered), then the first others."""
    carrying = {e.id for e in evidence if any(w.found_in(e.text) for w in words)}
    room = max(EVIDENCE_SHOWN - len(carrying), 0)
    others = [e.id for e in evidence if e.id not in carrying][:room]
    shown = [e for e in evidence if e.id in carrying or e.id in others]
    text = "; ".join(f"`{e.id}` {e.text}" for e in shown) or "none"
    more = len(evidence) - len(shown)
    return text + (f"; ... and {more} more (report.html shows them all)" if more else "")


def skipped_lines(skipped: list[SkippedSentence]) -> list[str]:
    """The sentences no claim was made of: headings and table rows counted, the rest listed."""
    structure = [s for s in skipped if s.reason in (HEADING_REASON, TABLE_REASON)]
    listed = [s for s in skipped if s not in structure]
    if not listed:
        return [f"{len(structure)} heading(s) and table row(s) are structure, not claims.", ""] if structure else []
    lines = [f"## Sentences that are not claims ({len(listed)})", ""]
    lines += [f"- `{s.terminal}#{s.sentence}` {s.text}: {s.reason}" for s in listed]
    if structure:
        lines.append(f"- and {len(structure)} heading(s) and table row(s): structure, not claims")
    return [*lines, ""]


def _flag_line(gap: SupportGap) -> str:
    """Which check flagged which words, and the evidence sentence it compared them with."""
    said = f' The evidence says: "{gap.quote}"' if gap.quote else ""
    return f"- Flagged by the {gap.check} check: **{gap.text}**, {gap.why}.{said}"


def _gap_text(gap: SupportGap) -> str:
    return f"**{gap.text}**" + ("" if gap.why == "not in the evidence" else f" ({gap.why})")


def _percent(rate: float | None) -> str:
    return "" if rate is None else f"{rate:.0%}"


def _cited_cell(c: ClaimCitations) -> str:
    if c.uncited:
        return "none"
    parts = [f"`{n}` evidence" for n in c.supporting]
    parts += [f"`{n}` **no evidence**" for n in c.no_evidence]
    parts += [f"`{n}` not reached" for n in c.not_reached]
    parts += [f"`{label}` **not among its sources**" for label in c.unknown]
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
        f"| cite records the output was not built from (not in the index, or not in what the model read) |"
        f" {c.with_unknown} | |",
        f"| cite through a marker their paragraph shares | {c.shared} | |",
        "",
    ]
    miscited = [r for r in results if r.citations is not None and r.citations.miscited]
    if miscited:
        lines += [f"Mis-cited claims ({len(miscited)}):", ""]
        lines += [f"- `{r.claim.id}` {r.claim.text}: {_cited_cell(r.citations)}" for r in miscited if r.citations]
        lines.append("")
    invented = [r for r in results if r.citations is not None and r.citations.unknown]
    if invented:
        lines += [f"Claims citing records the output was not built from ({len(invented)}):", ""]
        lines += [f"- `{r.claim.id}` {r.claim.text}: {_cited_cell(r.citations)}" for r in invented if r.citations]
        lines.append("")
    return lines
