"""Measure a verifier, through the engine, on labeled benchmarks: `veritrail eval`.

Data flows one way: a loader (`summedits`, `fables`, `planted`) turns benchmark files into
`BenchmarkItem`s (a DAG, its claims, gold labels); `splits` keeps documents on one side of a fixed
dev/test split; `runner` verifies a split and scores the verifier next to two reference points
(`baselines`) with the pure `metrics`; `render` and `cli` only present the `EvalReport`.
"""

from veritrail_graphrag.evaluation.catalog import BENCHMARKS, load_benchmark
from veritrail_graphrag.evaluation.items import BenchmarkItem, LabeledClaim, LoadedBenchmark, Unit
from veritrail_graphrag.evaluation.results import EvalReport, SystemResult, UnitOutcome
from veritrail_graphrag.evaluation.runner import evaluate
from veritrail_graphrag.evaluation.splits import Split, assign_splits, select

__all__ = [
    "BENCHMARKS",
    "BenchmarkItem",
    "EvalReport",
    "LabeledClaim",
    "LoadedBenchmark",
    "Split",
    "SystemResult",
    "Unit",
    "UnitOutcome",
    "assign_splits",
    "evaluate",
    "load_benchmark",
    "select",
]
