"""The benchmarks `veritrail eval` knows, by name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from veritrail_graphrag.evaluation.errors import BenchmarkDataError
from veritrail_graphrag.evaluation.fables import load_fables
from veritrail_graphrag.evaluation.items import LoadedBenchmark
from veritrail_graphrag.evaluation.planted import load_planted
from veritrail_graphrag.evaluation.summedits import load_summedits
from veritrail_graphrag.evaluation.wild import load_wild

BENCHMARKS: dict[str, Callable[[Path], LoadedBenchmark]] = {
    "summedits": load_summedits,
    "fables": load_fables,
    "planted": load_planted,
    "wild": load_wild,
}
LABELLED = "wild"
"""The benchmark whose labels are a file of their own (`--labels`)."""


def check_benchmark(name: str) -> None:
    if name not in BENCHMARKS:
        raise BenchmarkDataError(f"unknown benchmark {name!r}; choose one of: {', '.join(BENCHMARKS)}")


def load_benchmark(name: str, data_dir: Path, labels: Path | None = None) -> LoadedBenchmark:
    """`labels`: the wild benchmark's test labels, a file of the shipped dev labels' format."""
    check_benchmark(name)
    loader = BENCHMARKS[name]
    if labels is None:
        return loader(data_dir)
    if name != LABELLED:
        raise BenchmarkDataError(f"--labels is for the {LABELLED} benchmark; {name} has its labels in its data")
    return load_wild(data_dir, labels)
