"""Render an evaluation report as terminal tables and as Markdown. Rendering only: no computing."""

from __future__ import annotations

from rich.table import Table

from veritrail_graphrag.evaluation.metrics import DetectionMetrics
from veritrail_graphrag.evaluation.results import EvalReport, SystemResult
from veritrail_graphrag.evaluation.triage import Rate, TriageMetrics

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


_TRIAGE = ["system", "slice", "claims", "P NFS", "R unsupported", "false alarms", "Inconclusive", "flags uncheckable"]


def _rate(value: Rate, counts: bool) -> str:
    """ "31.0 (9/29) [17-49]": the share, its counts (in Markdown) and its 95% interval, in %."""
    shown = "-" if value.rate is None else f"{100 * value.rate:.1f}"
    counted = f" ({value.count}/{value.total})" if counts else ""
    return f"{shown}{counted} [{100 * value.low:.0f}-{100 * value.high:.0f}]"


def _triage_cells(name: str, slice_name: str, m: TriageMetrics, counts: bool) -> list[str]:
    claims = f"{m.claims} ({m.supported}/{m.unsupported}/{m.uncheckable})" if counts else str(m.claims)
    rates = (m.precision, m.recall, m.false_alarms, m.inconclusive, m.uncheckable_flagged)
    return [name, slice_name, claims, *(_rate(r, counts) for r in rates)]


def _triage_rows(report: EvalReport, counts: bool = True) -> list[list[str]]:
    """Every system overall, then the verifier per slice (an index of the wild set)."""
    rows = [_triage_cells(s.name, "all", s.triage, counts) for s in report.systems if s.triage is not None]
    verifier = report.systems[0]
    rows += [_triage_cells(verifier.name, key, m, counts) for key, m in verifier.triage_by_subset.items()]
    return rows


TRIAGE_CAPTION = (
    "A flag is a Not Fully Supported verdict. P NFS: flags on unsupported claims, of flags on claims labelled "
    "supported or unsupported; false alarms: supported claims flagged; Inconclusive: of all claims; flags on "
    "uncheckable claims apart. Figures in %, [Wilson 95% interval]"
)


def triage_table(report: EvalReport) -> Table | None:
    rows = _triage_rows(report, counts=False) if report.triage else []
    if not rows:
        return None
    caption = f"{TRIAGE_CAPTION}; the Markdown report has the counts."
    table = Table(title=f"{report.benchmark} / {report.split}: a reviewer's figures", caption=caption)
    for header in _TRIAGE:
        table.add_column(header, justify="left" if header in ("system", "slice") else "right")
    for row in rows:
        table.add_row(*row)
    return table


def tables(report: EvalReport) -> list[Table]:
    found = [
        triage_table(report),
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


def _triage_markdown(report: EvalReport) -> list[str]:
    if not report.triage:
        return []
    caption = f"{TRIAGE_CAPTION}, (count/total); claims: all (supported/unsupported/uncheckable)."
    return ["## A reviewer's figures", "", caption, "", *_markdown_table(_TRIAGE, _triage_rows(report))]


def render_markdown(report: EvalReport) -> str:
    lines = [
        f"# `veritrail eval {report.benchmark}`: {report.split} split",
        "",
        f"{_title(report)}. Verifier `{report.verifier}`, {report.created}, veritrail-graphrag {report.tool_version}.",
        "",
        f"Command: `{report.command}`" if report.command else "",
        "",
        *(f"> Warning: {warning}\n" for warning in report.warnings),
        *_triage_markdown(report),
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
