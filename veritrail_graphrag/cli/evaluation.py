"""`veritrail eval`: measure a verifier on a benchmark split, next to the two reference points.

The run itself is `evaluation.session.run_eval`. Tables go to stdout, progress and errors to
stderr.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from veritrail_graphrag.cli.console import progress
from veritrail_graphrag.cli.exit_codes import guarded
from veritrail_graphrag.cli.options import EvalFlags, with_options
from veritrail_graphrag.evaluation.catalog import BENCHMARKS
from veritrail_graphrag.evaluation.render import cost_line, tables
from veritrail_graphrag.evaluation.session import DEFAULT_OUT, report_paths, resolve_data_dir, run_eval
from veritrail_graphrag.models import TrailConfig

stdout = Console()
stderr = Console(stderr=True)


@guarded
@with_options(EvalFlags)
def eval_command(
    benchmark: Annotated[str, typer.Argument(help=f"One of: {', '.join(BENCHMARKS)}.")],
    split: Annotated[
        str | None,
        typer.Option(help="dev (tune here) or test (report this; the default, but dev for wild without --labels)."),
    ] = None,
    limit: Annotated[
        int | None, typer.Option(min=1, help="A balanced slice of N items (supported and unsupported alike).")
    ] = None,
    data: Annotated[
        Path | None,
        typer.Option(
            help="Folder of the benchmark data (default: ../shared/benchmarks if present); planted: or the index; "
            "wild: or the folder of the indexes."
        ),
    ] = None,
    out: Annotated[Path, typer.Option(help="Folder for the JSON and Markdown reports.")] = DEFAULT_OUT,
    exclude_no_agreement: Annotated[
        bool,
        typer.Option(
            "--exclude-no-agreement",
            help="With --samples: leave units whose samples agreed on no evidence out of AUROC, as the paper did "
            "(its appendix E.3 gave them no verdict); the hard metrics keep them.",
        ),
    ] = False,
    labels: Annotated[
        Path | None,
        typer.Option(
            help="wild: a labels file in the shipped labels' format, scored as the test split "
            "(default with --split test: the shipped held-out labels)."
        ),
    ] = None,
    *,
    flags: EvalFlags,
) -> None:
    """Measure detection (and, on `planted`, error localization) on a benchmark split, next to the
    "always Fully Supported" and token-overlap reference points."""
    spec = flags.verifier_spec(None)
    depth = flags.decomposition_depth
    data_dir = resolve_data_dir(data, benchmark)
    with progress(" ".join(filter(None, (benchmark, split, "items")))) as shown:
        report = run_eval(
            benchmark, flags.verifier, split, limit, data_dir, out, spec=spec,
            config=None if depth is None else TrailConfig(decomposition_depth=depth), progress=shown.update,
            exclude_no_agreement=exclude_no_agreement, labels=labels,
        )  # fmt: skip
    for table in tables(report):
        stdout.print(table)
    stdout.print(cost_line(report), highlight=False, soft_wrap=True)
    for note in report.notes:
        stdout.print(f"Note: {note}", highlight=False, soft_wrap=True)
    for warning in report.warnings:
        stderr.print(f"[yellow]Warning:[/yellow] {escape(warning)}", highlight=False, soft_wrap=True)
    json_path, markdown_path = report_paths(report, out)
    stdout.print(f"Reports: {json_path} and {markdown_path}", highlight=False, soft_wrap=True)
