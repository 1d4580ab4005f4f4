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


def load_benchmark(name: str, data_dir: Path) -> LoadedBenchmark:
    try:
        loader = BENCHMARKS[name]
    except KeyError:
        raise BenchmarkDataError(f"unknown benchmark {name!r}; choose one of: {', '.join(BENCHMARKS)}") from None
    return loader(data_dir)
