"""The yardstick audit: every community report of a GraphRAG index, with each offline verifier, in
the same run. Prints per verifier the wall time (and its ratio to lexical's), the peak memory of
its own process, and how many claims got each verdict (and how many Inconclusive claims were not
traced to the source: the verifier keeps them Inconclusive where the paper's rule ends them Not
Fully Supported), so that the verdict rates and the cost of the default verifier are measured
where users meet them.

    python benchmarks/index_audit.py [--index ../shared/fixtures/graphrag-verbs-data] [--verifiers facts,lexical]

Each verifier audits a fresh copy of the index in its own process (the peak memory is that
audit's alone). The LLM verifier is left out: it calls a model. Prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
_CHILD = """
import json, resource, sys, time
from veritrail_graphrag.audit import audit_index
started = time.perf_counter()
report = audit_index(sys.argv[1], reports=None, verifier=sys.argv[2])
seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds, "verdicts": report.summary.verdicts, "claims": len(report.results),
                  "failed": len(report.failed), "not_traced": sum(r.not_traced for r in report.results),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


@dataclass(frozen=True)
class Run:
    seconds: float
    claims: int
    failed: int
    peak_mb: float
    verdicts: dict[str, int]
    not_traced: int

    def share(self, verdict: str) -> str:
        count = self.verdicts.get(verdict, 0)
        return f"{count} ({count / max(self.claims, 1):.0%})"


def audit(index: Path, verifier: str) -> Run:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "index"
        shutil.copytree(index, copy)
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(copy), verifier], capture_output=True, text=True, check=True
        )
        return Run(**json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, default=ROOT.parent / "shared" / "fixtures" / "graphrag-verbs-data")
    parser.add_argument("--verifiers", default="facts,lexical")
    args = parser.parse_args()
    runs = {name: audit(args.index, name) for name in args.verifiers.split(",")}
    baseline = runs.get("lexical")
    table = Table(title=f"Audit of every community report of {args.index}")
    for column in (
        "verifier",
        "claims",
        "seconds",
        "x lexical",
        "peak MB",
        "Fully Supported",
        "Not Fully",
        "Inconclusive",
        "of which not traced",
    ):
        table.add_column(column, justify="left" if column == "verifier" else "right")
    for name, run in runs.items():
        ratio = "" if baseline is None else f"{run.seconds / baseline.seconds:.2f}"
        table.add_row(
            name,
            str(run.claims),
            f"{run.seconds:.1f}",
            ratio,
            f"{run.peak_mb:.0f}",
            run.share("Fully Supported"),
            run.share("Not Fully Supported"),
            run.share("Inconclusive"),
            f"{run.not_traced} ({run.not_traced / max(run.claims, 1):.0%})",
        )
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
