"""The benchmarks `veritrail eval` knows, by name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from veritrail_graphrag.evaluation.errors import BenchmarkDataError
from veritrail_graphrag.evaluation.fables import load_fables
from veritrail_graphrag.evaluation.items import LoadedBenchmark
from veritrail_graphrag.evaluation.planted import load_planted
from veritrail_graphrag.evaluation.summedits import load_summedits

BENCHMARKS: dict[str, Callable[[Path], LoadedBenchmark]] = {
    "summedits": load_summedits,
    "fables": load_fables,
    "planted": load_planted,
}


def check_benchmark(name: str) -> None:
    if name not in BENCHMARKS:
        raise BenchmarkDataError(f"unknown benchmark {name!r}; choose one of: {', '.join(BENCHMARKS)}")


def load_benchmark(name: str, data_dir: Path) -> LoadedBenchmark:
    check_benchmark(name)
    return BENCHMARKS[name](data_dir)
