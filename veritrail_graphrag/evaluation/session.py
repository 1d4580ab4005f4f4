"""One `veritrail eval` run: where the data is, the benchmark verified and scored, and its report
written as `<out>/<benchmark>-<split>-<verifier>[-<model>][-limitN].{json,md}` (atomically)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from veritrail_graphrag.evaluation.catalog import LABELLED, check_benchmark, load_benchmark
from veritrail_graphrag.evaluation.errors import BenchmarkDataError
from veritrail_graphrag.evaluation.render import render_markdown
from veritrail_graphrag.evaluation.results import EvalReport
from veritrail_graphrag.evaluation.runner import evaluate
from veritrail_graphrag.evaluation.splits import Split
from veritrail_graphrag.evaluation.wild import heldout_labels_path
from veritrail_graphrag.files import write_together
from veritrail_graphrag.models import TrailConfig
from veritrail_graphrag.verifiers.registry import VerifierSpec, prepare_verifier

DEFAULT_DATA = Path("..") / "shared" / "benchmarks"
DEFAULT_OUT = Path("eval-results")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
"""What a model name may hold that a file name should not ("org/model:tag")."""


WANTS = {
    "summedits": "the folder holding summedits-subset/",
    "fables": "the folder holding fables/",
    "planted": "a GraphRAG index of A Christmas Carol; in a checkout of this repository: "
    "sample_runs/graphrag-christmas-carol",
}
"""What `--data` names for each benchmark, as the error for a missing one says."""


def resolve_data_dir(data: Path | None, benchmark: str | None = None) -> Path:
    """`--data`, else `../shared/benchmarks` when it exists (a checkout beside the shared data).
    The benchmark's name is checked first: its data cannot be found for a name that is not one."""
    if benchmark is not None:
        check_benchmark(benchmark)
    if data is not None:
        if not data.is_dir():
            raise BenchmarkDataError(f"--data {data}: not a directory")
        return data
    if DEFAULT_DATA.is_dir():
        return DEFAULT_DATA
    wanted = WANTS.get(benchmark or "", "the folder holding summedits-subset/ and fables/")
    raise BenchmarkDataError(f"no benchmark data: {DEFAULT_DATA} does not exist here; pass --data DIR ({wanted})")


def report_paths(report: EvalReport, out_dir: Path) -> tuple[Path, Path]:
    """One file pair per benchmark, split, verifier and model: measuring a second model must not
    overwrite what the first one was paid for."""
    described = report.verifier_settings.get(report.verifier)
    model = described.get("model") if isinstance(described, dict) else None
    stem = f"{report.benchmark}-{report.split}-{report.verifier}"
    stem += f"-{_UNSAFE.sub('_', model)}" if isinstance(model, str) and model else ""
    stem += f"-limit{report.limit}" if report.limit else ""
    return out_dir / f"{stem}.json", out_dir / f"{stem}.md"


def chosen_split(benchmark: str, split: str | None, labels: Path | None) -> Split:
    """`--split`, by default test; for the wild benchmark, which is tuned on, dev unless `--labels`
    names test labels (its shipped test split is the held-out labels, scored with `--split test`)."""
    if split is None:
        return Split.DEV if benchmark == LABELLED and labels is None else Split.TEST
    try:
        chosen = Split(split)
    except ValueError:
        raise BenchmarkDataError(f"--split {split!r}: choose dev or test") from None
    return chosen


def _command(
    benchmark: str,
    spec: VerifierSpec,
    split: str,
    limit: int | None,
    data_dir: Path,
    out_dir: Path,
    config: TrailConfig,
    default_depth: int | None,
    labels: Path | None = None,
) -> str:
    """The command that repeats the run: the verifier's options given are part of it, and the
    decomposition depth when it is not the one the verifier's prompts call for."""
    parts = ["veritrail eval", benchmark, f"--verifier {spec.name}", f"--split {split}"]
    defaults = VerifierSpec()
    for name in (*spec.llm_overrides(), "samples", "min_agreement", "prefilter"):
        value = getattr(spec, name)
        if value != getattr(defaults, name):
            flag = "--" + name.replace("_", "-")
            parts.append(flag if value is True else f"{flag} {value}")
    if limit is not None:
        parts.append(f"--limit {limit}")
    if config.decomposition_depth != default_depth:
        parts.append(f"--decomposition-depth {config.decomposition_depth or config.max_decompositions}")
    if labels is not None:
        parts.append(f"--labels {labels}")
    parts += [f"--data {data_dir}", f"--out {out_dir}"]
    return " ".join(parts)


def run_eval(
    benchmark: str,
    verifier: str,
    split: str | None,
    limit: int | None,
    data_dir: Path,
    out_dir: Path,
    *,
    spec: VerifierSpec | None = None,
    config: TrailConfig | None = None,
    progress: Callable[[int, int], None] | None = None,
    exclude_no_agreement: bool = False,
    labels: Path | None = None,
) -> EvalReport:
    """Load, verify, score, write `<out>/<benchmark>-<split>-<verifier>[-<model>].{json,md}`; return
    the report.

    `split` None is the benchmark's default (`chosen_split`); `labels` the wild benchmark's test
    labels. `spec` configures the verifier as `veritrail verify` does (model, base URL, ... for
    `llm`); `config` the traversal (default: the decomposition depth the verifier's prompts call
    for); `exclude_no_agreement` leaves units whose samples agreed on no evidence out of AUROC."""
    chosen = chosen_split(benchmark, split, labels)
    if benchmark == LABELLED and chosen is Split.TEST and labels is None:
        labels = heldout_labels_path()
    loaded = load_benchmark(benchmark, data_dir, labels)
    spec = (spec or VerifierSpec()).model_copy(update={"name": verifier})
    prepared = prepare_verifier(spec)
    config = config or TrailConfig(decomposition_depth=prepared.decomposition_depth)
    report = evaluate(
        loaded,
        verifier,
        prepared.build(),
        chosen,
        limit=limit,
        config=config,
        data_dir=data_dir,
        command=_command(
            benchmark, spec, chosen.value, limit, data_dir, out_dir, config, prepared.decomposition_depth, labels
        )
        + (" --exclude-no-agreement" if exclude_no_agreement else ""),
        progress=progress,
        exclude_no_agreement=exclude_no_agreement,
    )
    json_path, markdown_path = report_paths(report, out_dir)
    write_together(
        [(json_path, report.model_dump_json(indent=1).encode()), (markdown_path, render_markdown(report).encode())]
    )
    return report
