"""Render an evaluation report as terminal tables and as Markdown. Rendering only: no computing."""

from __future__ import annotations

from rich.table import Table

from veritrail_graphrag.evaluation.metrics import DetectionMetrics
from veritrail_graphrag.evaluation.results import EvalReport, SystemResult

_HEADERS = ["system", "macro F1", "BAcc", "P NFS", "R NFS", "P FS", "R FS", "AUROC", "Inconcl."]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _detection_cells(m: DetectionMetrics) -> list[str]:
    return [
        _pct(m.macro_f1),
        _pct(m.balanced_accuracy),
        _pct(m.not_supported.precision),
        _pct(m.not_supported.recall),
        _pct(m.fully_supported.precision),
        _pct(m.fully_supported.recall),
        _pct(m.auroc),
    ]


def _system_cells(system: SystemResult) -> list[str]:
    return [system.name, *_detection_cells(system.overall), _pct(system.inconclusive_rate)]


def _title(report: EvalReport) -> str:
    limit = f", a balanced slice of {report.limit} items" if report.limit else ""
    return (
        f"{report.benchmark} / {report.split}{limit}: {report.units} units, {report.claims} claims "
        f"(NFS = Not Fully Supported, the positive class; BAcc = balanced accuracy; figures in %)"
    )


def cost_line(report: EvalReport) -> str:
    c = report.cost
    tokens = "not metered" if c.tokens_per_claim is None else f"{c.tokens_per_claim:.0f}"
    sent = ", ".join(f"{kind} {n}" for kind, n in (c.model_calls_by_kind or {}).items() if n)
    return (
        f"Cost per claim: {c.calls_per_claim:.2f} verifier calls, tokens {tokens}, "
        f"{1000 * c.seconds_per_claim:.1f} ms, {c.nodes_read_per_claim:.2f} nodes read "
        f"(total {c.seconds:.1f} s for {c.claims} claims)." + (f" Model calls: {sent}." if sent else "")
    )


def summary_table(report: EvalReport) -> Table:
    table = Table(title=_title(report))
    for header in _HEADERS:
        table.add_column(header, justify="left" if header == "system" else "right")
    for system in report.systems:
        table.add_row(*_system_cells(system))
    return table


def _breakdown_rows(report: EvalReport, attribute: str) -> list[list[str]]:
    rows = []
    for system in report.systems:
        groups: dict[str, DetectionMetrics] = getattr(system, attribute)
        for key, m in groups.items():
            rows.append(
                [
                    system.name,
                    key,
                    str(m.units),
                    _pct(m.macro_f1),
                    _pct(m.balanced_accuracy),
                    _pct(m.not_supported.recall),
                    _pct(m.auroc),
                ]
            )
    return rows


_BREAKDOWN = ["system", "slice", "units", "macro F1", "BAcc", "R NFS", "AUROC"]


def breakdown_table(report: EvalReport, attribute: str, title: str) -> Table | None:
    rows = _breakdown_rows(report, attribute)
    if not rows:
        return None
    table = Table(title=title)
    for header in _BREAKDOWN:
        table.add_column(header, justify="left" if header in ("system", "slice") else "right")
    for row in rows:
        table.add_row(*row)
    return table


_LOCALIZATION = ["stage", "planted", "flagged", "contains", "exact", "contains/flagged", "exact/flagged"]


def _localization_rows(report: EvalReport) -> list[list[str]]:
    verifier = report.systems[0]
    return [
        [
            key,
            str(m.planted),
            str(m.flagged),
            _pct(m.contains_rate),
            _pct(m.exact_rate),
            _pct(m.contains_rate_flagged),
            _pct(m.exact_rate_flagged),
        ]
        for key, m in verifier.localization.items()
    ]


def localization_table(report: EvalReport) -> Table | None:
    rows = _localization_rows(report)
    if not rows:
        return None
    table = Table(title=f"Error localization by planted stage ({report.systems[0].name}, %)")
    for header in _LOCALIZATION:
        table.add_column(header, justify="left" if header == "stage" else "right")
    for row in rows:
        table.add_row(*row)
    return table


def tables(report: EvalReport) -> list[Table]:
    found = [
        summary_table(report),
        breakdown_table(
            report, "by_planted_stage", "Detection per planted stage (that stage's cases + all unchanged claims)"
        ),
        localization_table(report),
        breakdown_table(report, "by_subset", "By slice"),
    ]
    return [t for t in found if t is not None]


def _markdown_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
        *("| " + " | ".join(row) + " |" for row in rows),
        "",
    ]


def render_markdown(report: EvalReport) -> str:
    lines = [
        f"# `veritrail eval {report.benchmark}`: {report.split} split",
        "",
        f"{_title(report)}. Verifier `{report.verifier}`, {report.created}, veritrail-graphrag {report.tool_version}.",
        "",
        f"Command: `{report.command}`" if report.command else "",
        "",
        *(f"> Warning: {warning}\n" for warning in report.warnings),
        *_markdown_table(_HEADERS, [_system_cells(s) for s in report.systems]),
        *(f"- {s.name}: {s.description}" for s in report.systems),
        "",
        cost_line(report),
        "",
    ]
    stage_rows = _breakdown_rows(report, "by_planted_stage")
    if stage_rows:
        lines += [
            "## Detection per planted stage",
            "",
            "Each stage's planted cases together with every unchanged claim.",
            "",
        ]
        lines += _markdown_table(_BREAKDOWN, stage_rows)
    localization_rows = _localization_rows(report)
    if localization_rows:
        lines += ["## Error localization", "", "Rates over all planted claims, then over the flagged ones only.", ""]
        lines += _markdown_table(_LOCALIZATION, localization_rows)
    lines += ["## By slice", "", *_markdown_table(_BREAKDOWN, _breakdown_rows(report, "by_subset"))]
    lines += ["## Data and conventions", ""]
    lines += [f"- {n}" for n in report.notes]
    lines += [f"- {c}" for c in report.conventions]
    lines.append(
        f"- Split: documents ranked by a keyed hash (seed `{report.split_seed}`), the first "
        f"{report.dev_fraction:.0%} are dev; {report.dev_units_for_tuning} dev units were used for tuning."
    )
    if report.skipped:
        lines.append("- Skipped by the loader: " + "; ".join(f"{reason}: {n}" for reason, n in report.skipped.items()))
    if report.errors:
        lines.append(f"- Items whose verification failed (left out of every figure): {report.errors}")
    lines.append("")
    return "\n".join(lines)
