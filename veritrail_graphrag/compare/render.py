"""A comparison as terminal tables, Markdown and a PNG chart of the error-stage rates."""

from __future__ import annotations

from rich.table import Table

from veritrail_graphrag.compare.compute import AuditStats, ClaimChange, Comparison, StageRate

LISTED = 50


def untraced_note(comparison: Comparison) -> str:
    """How the counts treat claims not traced to the source, when an audit has any."""
    if not any(audit.not_traced for audit in comparison.audits):
        return ""
    return (
        "Not traced: Inconclusive claims that no source text yielded evidence for (their verifier keeps them "
        "Inconclusive where the paper's rule ends them Not Fully Supported); counted in Inc, not in the NFS rate, "
        "the stage rates or --fail-on-regression."
    )


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _rate(rate: StageRate) -> str:
    """`21.1 (17-25)`: percent, with the 95% interval in whole percent."""
    if rate.rate is None:
        return "-"
    low, high = (round(100 * (x or 0.0)) for x in (rate.low, rate.high))
    return f"{100 * rate.rate:.1f} ({low}-{high})"


def _num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _cost(audit: AuditStats) -> str:
    if not audit.calls and not audit.cached_calls:
        return "no model calls"
    return "unknown" if audit.cost_usd is None else f"${audit.cost_usd:.4f}"


def _audit_rows(comparison: Comparison) -> tuple[list[str], list[list[str]]]:
    head = ["audit", "verifier", "claims", "FS/NFS/Inc", "NFS rate"]
    head += [f"stage {s} % (95% CI)" for s in comparison.stages]
    head += ["stage unknown", "nodes read / claim", "calls (reused)", "cost"]
    rows = []
    for audit in comparison.audits:
        v = audit.verdicts
        counts = f"{v['Fully Supported']}/{v['Not Fully Supported']}/{v['Inconclusive']}"
        counts += f" ({audit.not_traced} not traced)" if audit.not_traced else ""
        failed = f" (+{audit.failed} failed)" if audit.failed else ""
        calls = f"{audit.calls + audit.cached_calls} ({_pct(audit.reused)})" if audit.calls or audit.cached_calls else "0"
        rows.append(
            [audit.label, audit.verifier, f"{audit.claims}{failed}", counts, _pct(audit.nfs_rate)]
            + [_rate(r) for r in audit.stages]
            + [_pct(audit.unlocalized_share), _num(audit.mean_nodes_read, 1), calls, _cost(audit)]
        )
    return head, rows


def _pair_rows(comparison: Comparison) -> tuple[list[str], list[list[str]]]:
    head = ["pair", "JS divergence [95%]", "Spearman", "NFS rate p", "matched", "flipped", "stage moved"]
    rows = [
        [
            f"{p.a} vs {p.b}",
            f"{_num(p.js_divergence)} [{_num(p.js_low)}, {_num(p.js_high)}]",
            _num(p.spearman, 2),
            _num(p.nfs_p_value, 4),
            f"{p.matched} (by {p.matched_by})",
            str(len(p.flipped)),
            str(len(p.moved)),
        ]
        for p in comparison.pairs
    ]
    return head, rows


def _wide_width(head: list[str], rows: list[list[str]]) -> int:
    """Columns wide enough for every cell on one line, and for the headers' longest words."""
    widths = [max([len(w) for w in name.split()] + [len(row[i]) for row in rows]) for i, name in enumerate(head)]
    return sum(width + 3 for width in widths) + 1


def _table(title: str, head: list[str], rows: list[list[str]], width: int | None) -> Table:
    """One row per audit (or pair) when that fits `width`; else one row per figure and a column
    per audit, so that a narrow terminal folds no word into letters."""
    if width is not None and _wide_width(head, rows) > width:
        table = Table(title=title)
        table.add_column(head[0], no_wrap=True)
        for row in rows:
            table.add_column(row[0], overflow="fold")
        for i, name in enumerate(head[1:], start=1):
            table.add_row(name, *(row[i] for row in rows))
        return table
    table = Table(title=title)
    for i, column in enumerate(head):
        table.add_column(column, overflow="fold", no_wrap=i == 0)
    for row in rows:
        table.add_row(*row)
    return table


def tables(comparison: Comparison, width: int | None = None) -> list[Table]:
    """The audits and the pairs as tables for a terminal `width` columns wide (None: no limit)."""
    return [
        _table(title, head, rows, width)
        for title, (head, rows) in (
            ("Audits: verdicts and error-stage rates (95% bootstrap intervals over claims)", _audit_rows(comparison)),
            ("Pairs", _pair_rows(comparison)),
        )
    ]


def _md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return lines


def _change_line(change: ClaimChange) -> str:
    where = change.terminal_a if change.terminal_a == change.terminal_b else f"{change.terminal_a} / {change.terminal_b}"
    stages = f", stages {change.stages_a} -> {change.stages_b}" if change.stages_a or change.stages_b else ""
    return f"- {change.text} ({where}): {change.verdict_a} -> {change.verdict_b}{stages}"


def render_markdown(comparison: Comparison, chart: str | None) -> str:
    lines = ["# veritrail compare", ""]
    for warning in comparison.warnings:
        lines += [f"> **Warning:** {warning}.", ""]
    lines += ["## Audits", ""]
    lines += _md_table(*_audit_rows(comparison))
    lines += ["", "Stage rates: share of Not Fully Supported claims with a named stage that name it (a claim may",
              "name several). Intervals: 95% percentile bootstrap over claims, 1,000 resamples, seeded.", ""]  # fmt: skip
    if untraced_note(comparison):
        lines += [untraced_note(comparison), ""]
    if chart:
        lines += [f"![error-stage rates]({chart})", ""]
    lines += ["## Pairs", ""]
    lines += _md_table(*_pair_rows(comparison))
    lines += ["", "JS divergence in bits between the stage distributions (0 = same, 1 = disjoint); NFS rate p:",
              "Fisher's exact test of the Not Fully Supported rate.", ""]  # fmt: skip
    for pair in comparison.pairs:
        for name, changes in (("flipped verdicts", pair.flipped), ("moved error stages", pair.moved)):
            if changes:
                lines += [f"### {pair.a} vs {pair.b}: {len(changes)} {name}", ""]
                lines += [_change_line(c) for c in changes[:LISTED]]
                if len(changes) > LISTED:
                    lines.append(f"- ... and {len(changes) - LISTED} more (compare.json lists them all)")
                lines.append("")
    return "\n".join(lines)


def render_chart(comparison: Comparison) -> bytes:
    """Grouped bars (a PNG): one group per stage, one bar per audit, with the 95% interval as an error bar."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stages = comparison.stages
    width = 0.8 / max(1, len(comparison.audits))
    figure, axes = plt.subplots(figsize=(max(5.0, 1.6 * len(stages) + 2), 3.6), dpi=120)
    for i, audit in enumerate(comparison.audits):
        rates = [r.rate or 0.0 for r in audit.stages]
        below = [max(0.0, (r.rate or 0.0) - (r.low or 0.0)) for r in audit.stages]
        above = [max(0.0, (r.high or 0.0) - (r.rate or 0.0)) for r in audit.stages]
        positions = [s + (i - (len(comparison.audits) - 1) / 2) * width for s in range(len(stages))]
        axes.bar(positions, rates, width, yerr=[below, above], capsize=3, label=audit.label)
    axes.set_xticks(range(len(stages)), [f"stage {s}" for s in stages])
    axes.set_ylabel("share of flagged claims")
    axes.set_ylim(0, 1.05)
    axes.set_title("Error-stage rates (95% bootstrap intervals)")
    axes.legend(fontsize="small", frameon=False)
    axes.spines[["top", "right"]].set_visible(False)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    return buffer.getvalue()
