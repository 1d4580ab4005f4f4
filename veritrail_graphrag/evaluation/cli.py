"""`veritrail eval`: measure a verifier on a benchmark split, next to the two reference points.

Register with `app.command("eval")(eval_command)` in `veritrail_graphrag/cli.py`. Tables go to
stdout, progress and errors to stderr; the JSON and Markdown reports are written atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from veritrail_graphrag.cli_options import VerifierFlags, with_options
from veritrail_graphrag.evaluation.catalog import BENCHMARKS, load_benchmark
from veritrail_graphrag.evaluation.errors import BenchmarkDataError
from veritrail_graphrag.evaluation.render import cost_line, render_markdown, tables
from veritrail_graphrag.evaluation.results import EvalReport
from veritrail_graphrag.evaluation.runner import evaluate
from veritrail_graphrag.evaluation.splits import Split
from veritrail_graphrag.exit_codes import guarded
from veritrail_graphrag.files import write_together
from veritrail_graphrag.verifiers.registry import VerifierSpec, prepare_verifier

DEFAULT_DATA = Path("..") / "shared" / "benchmarks"
DEFAULT_OUT = Path("eval-results")

stdout = Console()
stderr = Console(stderr=True)


def resolve_data_dir(data: Path | None) -> Path:
    """`--data`, else `../shared/benchmarks` when it exists (a checkout beside the shared data)."""
    if data is not None:
        if not data.is_dir():
            raise BenchmarkDataError(f"--data {data}: not a directory")
        return data
    if DEFAULT_DATA.is_dir():
        return DEFAULT_DATA
    raise BenchmarkDataError(
        f"no benchmark data: {DEFAULT_DATA} does not exist here; pass --data DIR (the folder holding "
        "summedits-subset/ and fables/)"
    )


def report_paths(report: EvalReport, out_dir: Path) -> tuple[Path, Path]:
    stem = f"{report.benchmark}-{report.split}-{report.verifier}" + (f"-limit{report.limit}" if report.limit else "")
    return out_dir / f"{stem}.json", out_dir / f"{stem}.md"


def _command(benchmark: str, verifier: str, split: str, limit: int | None, data_dir: Path, out_dir: Path) -> str:
    parts = ["veritrail eval", benchmark, f"--verifier {verifier}", f"--split {split}"]
    if limit is not None:
        parts.append(f"--limit {limit}")
    parts += [f"--data {data_dir}", f"--out {out_dir}"]
    return " ".join(parts)


def run_eval_command(
    benchmark: str,
    verifier: str,
    split: str,
    limit: int | None,
    data_dir: Path,
    out_dir: Path,
    *,
    spec: VerifierSpec | None = None,
    show_progress: bool = False,
) -> EvalReport:
    """Load, verify, score, write `<out>/<benchmark>-<split>-<verifier>.{json,md}`; return the report.

    `spec` configures the verifier as `veritrail verify` does (model, base URL, ... for `llm`)."""
    try:
        chosen = Split(split)
    except ValueError:
        raise BenchmarkDataError(f"--split {split!r}: choose dev or test") from None
    loaded = load_benchmark(benchmark, data_dir)
    with Progress(
        TextColumn(f"{benchmark} {split}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr,
        transient=True,
        disable=not show_progress,
    ) as progress:
        task = progress.add_task("items", total=None)
        report = evaluate(
            loaded,
            verifier,
            prepare_verifier((spec or VerifierSpec()).model_copy(update={"name": verifier})).build(),
            chosen,
            limit=limit,
            data_dir=data_dir,
            command=_command(benchmark, verifier, split, limit, data_dir, out_dir),
            progress=lambda done, total: progress.update(task, completed=done, total=total),
        )
    json_path, markdown_path = report_paths(report, out_dir)
    write_together(
        [(json_path, report.model_dump_json(indent=1).encode()), (markdown_path, render_markdown(report).encode())]
    )
    return report


@guarded
@with_options(VerifierFlags)
def eval_command(
    benchmark: Annotated[str, typer.Argument(help=f"One of: {', '.join(BENCHMARKS)}.")],
    split: Annotated[str, typer.Option(help="dev (tune here) or test (report this).")] = "test",
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N items of the split.")] = None,
    data: Annotated[
        Path | None,
        typer.Option(
            help="Folder of the benchmark data (default: ../shared/benchmarks if present); planted: or the index."
        ),
    ] = None,
    out: Annotated[Path, typer.Option(help="Folder for the JSON and Markdown reports.")] = DEFAULT_OUT,
    *,
    flags: VerifierFlags,
) -> None:
    """Measure detection (and, on `planted`, error localization) on a benchmark split, next to the
    "always Fully Supported" and token-overlap reference points."""
    spec = flags.verifier_spec(None)
    data_dir = resolve_data_dir(data)
    report = run_eval_command(
        benchmark, flags.verifier, split, limit, data_dir, out, spec=spec, show_progress=True
    )
    for table in tables(report):
        stdout.print(table)
    stdout.print(cost_line(report), highlight=False, soft_wrap=True)
    for note in report.notes:
        stdout.print(f"Note: {note}", highlight=False, soft_wrap=True)
    json_path, markdown_path = report_paths(report, out)
    stdout.print(f"Reports: {json_path} and {markdown_path}", highlight=False, soft_wrap=True)
