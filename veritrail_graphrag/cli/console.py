"""The audit in the terminal: the claims table, the summary lines, progress and the dry run.

Tables and results go to stdout (so they can be piped); progress, notes and failures to stderr.
"""

from __future__ import annotations

import logging
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.errors import VeriTrailWarning
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.llm.usage import UsageReport
from veritrail_graphrag.models import Verdict
from veritrail_graphrag.report.model import (
    HEADING_REASON,
    SHORT_REASON,
    TABLE_REASON,
    AuditReport,
    count_note,
    flagged_first,
    stages_text,
)

if TYPE_CHECKING:  # the dry run's estimate comes with the LLM settings, loaded only when asked for
    from veritrail_graphrag.audit.dry_run import DryRun

stdout = Console()
stderr = Console(stderr=True)

_STYLE = {
    Verdict.FULLY_SUPPORTED: "green",
    Verdict.NOT_FULLY_SUPPORTED: "red",
    Verdict.INCONCLUSIVE: "yellow",
}


def _trail_cell(result: ClaimResult, stage_of: Callable[[str], int] | None) -> str:
    """Per iteration, the nodes that yielded evidence: as `stage (count)` when stages are known."""
    cells = []
    for it in result.iterations:
        if not it.nodes_with_evidence:
            cells.append("-")
        elif stage_of is None:
            cells.append(",".join(it.nodes_with_evidence))
        else:
            counts = Counter(stage_of(n) for n in it.nodes_with_evidence)
            cells.append(" ".join(f"{stage}({n})" for stage, n in sorted(counts.items(), reverse=True)))
    return " <- ".join(cells)


TEXT_LIMIT = 300
"""Characters of a claim shown in the terminal: an 8,000-word sentence would fill thousands of
lines. The reports keep every text whole."""


def cut(text: str, limit: int = TEXT_LIMIT) -> str:
    """`text`, or its first `limit` characters and how many more there are."""
    return text if len(text) <= limit else f"{text[:limit].rstrip()}… (+{len(text) - limit:,} characters)"


CONSOLE_LIMIT = 30
"""Claims listed in the terminal. An index audit has thousands, which would scroll the counts and
the report's path out of sight; report.md and report.html hold them all."""


def _listed(results: list[ClaimResult], limit: int) -> list[ClaimResult]:
    """All, in order, when they fit; else the flagged first (Not Fully Supported, then
    Inconclusive), each group in order, up to `limit`."""
    return results if len(results) <= limit else flagged_first(results)[:limit]


def claims_table(
    report: AuditReport,
    stage_of: Callable[[str], int] | None = None,
    width: int = 70,
    limit: int = CONSOLE_LIMIT,
    rest_in: str = "the report",
) -> Table:
    shown = ", ".join(report.terminals[:3]) + (
        f" and {len(report.terminals) - 3} more" if len(report.terminals) > 3 else ""
    )
    listed = _listed(report.results, limit)
    left_out = len(report.results) - len(listed)
    captions = [f"{left_out} more claims (the flagged are listed first) are in {rest_in}."] if left_out else []
    if stage_of is not None:
        captions.append("Evidence: per iteration, toward the source (<-), stage(nodes that gave evidence).")
    table = Table(
        title=f"{report.summary.claims} claims, terminal {shown}",
        caption=" ".join(captions) or None,
        expand=False,
    )
    table.add_column("claim", overflow="fold", min_width=30, max_width=width)
    table.add_column("verdict", max_width=12)
    table.add_column("error stage", max_width=6)
    trail = "evidence" if stage_of else "evidence trail (nodes per iteration)"
    table.add_column(trail, overflow="fold", max_width=width if stage_of is None else 18)
    for result in listed:
        table.add_row(
            f"[dim]{escape(result.claim.id)}[/dim] {escape(cut(result.claim.text))}",
            f"[{_STYLE[result.verdict]}]{result.verdict.value}[/]" + (" (not traced)" if result.not_traced else ""),
            stages_text(result),
            _trail_cell(result, stage_of),
        )
    return table


class _ConsoleLines(logging.Handler):
    """Our log lines on stderr, above the progress bar when one is shown."""

    def emit(self, record: logging.LogRecord) -> None:
        style = "yellow" if record.levelno >= logging.WARNING else "dim"
        stderr.print(f"[{style}]{escape(record.getMessage())}[/{style}]", highlight=False, soft_wrap=True)


def _warning_lines(shown: Callable[..., None]) -> Callable[..., None]:
    """`warnings.showwarning` that prints ours as one line and hands the others to `shown`."""

    def show(message: Warning | str, category: type[Warning], *where: Any) -> None:
        if issubclass(category, VeriTrailWarning):
            stderr.print(f"[yellow]Warning:[/yellow] {escape(str(message))}", highlight=False, soft_wrap=True)
        else:
            shown(message, category, *where)

    return show


@contextmanager
def console_messages() -> Iterator[None]:
    """While a command runs, veritrail's log lines (retries and back-off, a local model starting)
    and its own warnings (a torn log line skipped) are one line each on stderr: a rate-limited
    audit shows why it waits instead of looking frozen, and no raw Python warning is printed."""
    logger = logging.getLogger("veritrail_graphrag")
    handler, level = _ConsoleLines(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _warning_lines(warnings.showwarning)
            yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


PROGRESS_INTERVAL = 5.0
"""Seconds between two progress lines when stderr is not a terminal."""


class Shown:
    """How far a run is: `update(done, total)` is its progress callback. On a terminal, a bar on
    stderr (none for a single unit); elsewhere (a CI log, a file) a bar draws nothing until it
    ends, so one line every `interval` seconds instead, from a thread: a run that is slow, or
    stuck in one long claim, is seen to be alive. `counts` is what an interrupted run tells."""

    def __init__(self, what: str, interval: float = PROGRESS_INTERVAL, terminal: bool | None = None) -> None:
        self.what = what
        self.interval = interval
        self.counts = (0, 0)
        self._terminal = stderr.is_terminal if terminal is None else terminal
        self._bar = Progress(
            TextColumn(f"verifying {what}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=stderr, transient=True,
        )  # fmt: skip
        self._task: TaskID | None = None
        self._stop = threading.Event()
        self._lines = threading.Thread(target=self._print_lines, name="progress-lines", daemon=True)
        self._since: tuple[float, int] | None = None

    def update(self, done: int, total: int) -> None:
        self.counts = (done, total)
        if not self._terminal or total < 2:
            return
        if self._task is None:
            self._task = self._bar.add_task(self.what, total=total)
        self._bar.update(self._task, completed=done, total=total)

    def line(self, now: float) -> str:
        """`verifying claims: 120 of 3,362 done, 2.1 a second, about 26 min left`. The rate is
        measured from the first line on: claims taken from a checkpoint come all at once."""
        done, total = self.counts
        text = f"verifying {self.what}: {done:,} of {total:,} done"
        if self._since is None:
            self._since = (now, done)
            return text
        seconds, before = now - self._since[0], done - self._since[1]
        if before <= 0 or seconds <= 0:
            return text + ", none finished in the last " + _duration(seconds)
        rate = before / seconds
        return text + f", {rate:.2g} a second, about {_duration((total - done) / rate)} left"

    def _print_lines(self) -> None:
        while not self._stop.wait(self.interval):
            if self.counts[1]:
                stderr.print(self.line(time.monotonic()), highlight=False, markup=False)

    def __enter__(self) -> Shown:
        if self._terminal:
            self._bar.start()
        else:
            self._lines.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._terminal:
            self._bar.stop()
        elif self._lines.is_alive():
            self._lines.join()


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def progress(what: str = "claims") -> Shown:
    """How far the run is, on stderr: a bar on a terminal, a line every few seconds elsewhere."""
    return Shown(what)


def print_notes(notes: list[str]) -> None:
    for note in notes:
        stderr.print(f"note: {escape(note)}", highlight=False, soft_wrap=True)


def _verb(count: int, one: str, many: str) -> str:
    """`1 cites`, `2 cite`: a count of claims with its verb."""
    return f"{count} {one if count == 1 else many}"


def print_audit(
    report: AuditReport, stage_of: Callable[[str], int], report_path: Path, markdown_path: Path | None
) -> None:
    """The table, the counts, model usage, citation accuracy, claims not verified, then the files
    written, report.html first: the last lines on screen say where to look."""
    html = markdown_path.with_suffix(".html") if markdown_path else None
    # the file's name only: a path in the centred caption is cut wherever the width falls; the
    # whole path is on the last lines
    stdout.print(claims_table(report, stage_of, rest_in=(html or report_path).name))
    counts = ", ".join(f"{n} {v}{count_note(report.summary, v)}" for v, n in report.summary.verdicts.items() if n)
    stages = ", ".join(f"stage {k}: {n}" for k, n in report.summary.error_stages.items())
    flagged = report.summary.verdicts.get(Verdict.NOT_FULLY_SUPPORTED.value, 0)
    several = " (a claim can name several stages)" if sum(report.summary.error_stages.values()) > flagged else ""
    stdout.print(f"{counts}." + (f" Error stages: {stages}{several}." if stages else ""), highlight=False)
    if report.verifier_note:
        stdout.print(f"Verifier {report.verifier}: {report.verifier_note}", highlight=False)
    if report.summary.languages is not None:  # wrapped between words, as the verifier's note
        stdout.print(report.summary.languages.note, highlight=False, markup=False)
    if report.usage is not None:
        stdout.print(usage_line(report.usage), highlight=False, soft_wrap=True)
    if report.summary.citations is not None:
        c = report.summary.citations
        invented = f"; {_verb(c.with_unknown, 'cites', 'cite')} records it was not built from" if c.with_unknown else ""
        stdout.print(
            f"Citations: {c.uncited} of {c.claims} claims cite nothing; of the {c.citing_known_nodes} citing, "
            f"{_verb(c.in_trail, 'has', 'have')} an evidence trail through a cited node and "
            f"{_verb(c.miscited, 'cites', 'cite')} a node that yielded no evidence{invented}.",
            highlight=False,
        )
    if report.skipped:
        stdout.print(skipped_line(report), highlight=False)
    if report.resumed_claims:
        stdout.print(f"{report.resumed_claims} claim(s) were taken from the interrupted run's checkpoint.")
    for failure in report.failed:
        stderr.print(
            f"[red]not verified:[/red] {escape(failure.claim.id)}: {escape(cut(failure.error))}",
            highlight=False,
            soft_wrap=True,
        )
    if report.failed:
        stderr.print(
            f"{len(report.failed)} claim(s) could not be verified; re-run the same command to retry only those.",
            highlight=False,
        )
    if html is None:
        stdout.print(f"Report: {report_path}", highlight=False, soft_wrap=True, markup=False)
        return
    stdout.print(f"Open {html} in a browser (one file, no network).", highlight=False, soft_wrap=True, markup=False)
    others = ", ".join(p.name for p in (markdown_path, report_path)) + ", claims.parquet, evidence.parquet"
    stdout.print(f"Also written: {others} in {report_path.parent}", highlight=False, soft_wrap=True, markup=False)


def skipped_line(report: AuditReport) -> str:
    """The sentences no claim was made of, by kind: claim ids number the output's sentences, so
    without this line "#3, #5, #7" reads as claims lost."""
    kinds = Counter(s.reason for s in report.skipped)
    named = {HEADING_REASON: "heading(s)", TABLE_REASON: "table row(s)", SHORT_REASON: "too short to check"}
    parts = ", ".join(f"{n} {named.get(reason, reason)}" for reason, n in kinds.items())
    listed = " (the short ones are listed in report.md)" if SHORT_REASON in kinds else ""
    return f"{len(report.skipped)} sentence(s) are not claims ({parts}), so claim ids skip their numbers{listed}."


def usage_line(usage: UsageReport) -> str:
    """Calls (where they went, when any were sent), tokens (those the endpoint's prompt cache served,
    when it says) and cost: what a user paying per token wants to see first."""
    total = usage.total
    cost = "unknown" if total.cost_usd is None else f"${total.cost_usd:.4f}"
    names = {kind.value: kind.label for kind in CallKind} | {"repair": "repair turns", "resample": "resampled"}
    kinds = ", ".join(f"{names.get(kind, kind)} {n}" for kind, n in usage.calls_by_kind.items() if n)
    cached = (
        f", {total.cached_input_tokens:,} prompt tokens from the endpoint's cache" if total.cached_input_tokens else ""
    )
    return (
        f"Model calls: {total.calls} ({total.cached_calls} from cache)" + (f": {kinds}" if kinds else "")
        + f"; {total.total_tokens:,} tokens{cached}, cost {cost}."
    )  # fmt: skip


def print_dry_run(estimate: DryRun, model: str) -> None:
    table = Table(title=f"dry run: {estimate.claims} claims (≈ one per sentence), model {model}")
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
