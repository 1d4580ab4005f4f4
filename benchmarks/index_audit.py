"""The yardstick audit: every community report of a GraphRAG index, with each offline verifier, in
the same run. Prints per verifier the wall time and the CPU time (its worker processes' included),
each with its ratio to lexical's, the peak memory of its own process, and how many claims got
each verdict (and how many Inconclusive claims were not traced to the source: the verifier keeps
them Inconclusive where the paper's rule ends them Not Fully Supported), so that the verdict
rates and the cost of the default verifier are measured where users meet them.

    python benchmarks/index_audit.py [--index ../shared/fixtures/graphrag-verbs-data] [--verifiers facts,lexical]
        [--workers 1,2] [--reports N] [--repeat N]

With `--workers 1,2,...` each verifier audits once per number of worker processes, and a second
table gives claims a second, the speedup over one worker (same verifier, same run), the peak
memory of the largest worker, and the peak memory of the whole audit: the proportional set size
(shared pages split between the processes sharing them) of the audit's processes together,
sampled every 0.2 s. Each audit runs on a fresh copy of the index in its own process. The LLM
verifier is left out: it calls a model. The load of the machine is printed: on shared cores,
read the ratios, not the seconds. CPU seconds vary less than wall seconds when other work shares
the cores (`x lexical CPU`); `--repeat N` runs every audit N times, the verifiers taking turns in
an order that reverses every turn (facts, lexical, lexical, facts, ...: a machine whose speed
drifts during the run favours neither), and keeps each one's run of least CPU time (as `timeit`
keeps the fastest), so that a burst of other work during one run does not decide a ratio. Prints
figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
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
import json, os, resource, sys, threading, time
from pathlib import Path
from veritrail_graphrag.audit import audit_index

def pss_kb(pid):
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0
    own = next((int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:")), 0)
    return own + sum(pss_kb(int(child)) for child in children)

peak = [0]
done = threading.Event()
def sample():
    while not done.wait(0.2):
        peak[0] = max(peak[0], pss_kb(os.getpid()))
threading.Thread(target=sample, daemon=True).start()
started, cpu = time.perf_counter(), time.process_time()
report = audit_index(sys.argv[1], reports=json.loads(sys.argv[4]), verifier=sys.argv[2], workers=int(sys.argv[3]))
seconds = time.perf_counter() - started
workers = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu_seconds = time.process_time() - cpu + workers.ru_utime + workers.ru_stime
done.set()
print(json.dumps({"seconds": seconds, "cpu_seconds": cpu_seconds, "verdicts": report.summary.verdicts,
                  "claims": len(report.results),
                  "failed": len(report.failed), "not_traced": sum(r.not_traced for r in report.results),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "worker_peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                  "audit_pss_mb": peak[0] / 1024}))
"""


@dataclass(frozen=True)
class Run:
    seconds: float
    cpu_seconds: float
    claims: int
    failed: int
    peak_mb: float
    worker_peak_mb: float
    audit_pss_mb: float
    verdicts: dict[str, int]
    not_traced: int

    def share(self, verdict: str) -> str:
        count = self.verdicts.get(verdict, 0)
        return f"{count} ({count / max(self.claims, 1):.0%})"


def audit(index: Path, verifier: str, workers: int, reports: int | None) -> Run:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "index"
        shutil.copytree(index, copy)
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(copy), verifier, str(workers), json.dumps(reports)],
            capture_output=True,
            text=True,
            check=True,
        )
        return Run(**json.loads(done.stdout.strip().splitlines()[-1]))


def _verdicts_table(index: Path, runs: dict[str, Run], workers: int, repeat: int) -> Table:
    baseline = runs.get("lexical")
    table = Table(title=f"Audit of every community report of {index}, {workers} worker(s), {repeat} run(s) each")
    columns = ("verifier", "claims", "seconds", "x lexical", "CPU s", "x lexical CPU", "peak MB")
    columns += ("Fully Supported", "Not Fully", "Inconclusive", "of which not traced")
    for column in columns:
        table.add_column(column, justify="left" if column == "verifier" else "right")
    for name, run in runs.items():
        ratio = "" if baseline is None else f"{run.seconds / baseline.seconds:.2f}"
        cpu_ratio = "" if baseline is None else f"{run.cpu_seconds / baseline.cpu_seconds:.2f}"
        table.add_row(
            name,
            str(run.claims),
            f"{run.seconds:.1f}",
            ratio,
            f"{run.cpu_seconds:.1f}",
            cpu_ratio,
            f"{run.peak_mb:.0f}",
            run.share("Fully Supported"),
            run.share("Not Fully Supported"),
            run.share("Inconclusive"),
            f"{run.not_traced} ({run.not_traced / max(run.claims, 1):.0%})",
        )
    return table


def _workers_table(runs: dict[tuple[str, int], Run]) -> Table:
    table = Table(title="Worker processes (speedup and memory against one worker of the same verifier)")
    columns = ("verifier", "workers", "seconds", "claims/s", "speedup", "largest worker MB", "audit PSS MB", "x one")
    for column in columns:
        table.add_column(column, justify="left" if column == "verifier" else "right")
    for (name, workers), run in runs.items():
        one = runs.get((name, 1))
        table.add_row(
            name,
            str(workers),
            f"{run.seconds:.1f}",
            f"{run.claims / run.seconds:.1f}",
            "" if one is None else f"{one.seconds / run.seconds:.2f}",
            f"{run.worker_peak_mb if workers > 1 else run.peak_mb:.0f}",
            f"{run.audit_pss_mb:.0f}",
            "" if one is None else f"{run.audit_pss_mb / one.audit_pss_mb:.2f}",
        )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, default=ROOT.parent / "shared" / "fixtures" / "graphrag-verbs-data")
    parser.add_argument("--verifiers", default="facts,lexical")
    parser.add_argument("--workers", default="1", help="comma-separated numbers of worker processes, e.g. 1,2")
    parser.add_argument("--reports", type=int, default=None, help="the top N community reports only (default: all)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each audit; the one of least CPU time is kept")
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",")]
    console = Console(width=130)
    console.print(f"{os.cpu_count()} cores; load average before: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    runs: dict[tuple[str, int], Run] = {}
    names = args.verifiers.split(",")
    for turn in range(args.repeat):
        for n in counts:
            # every other turn the other way round (facts, lexical, lexical, facts): a machine
            # that speeds up or slows down during the run favours neither verifier
            for name in names if turn % 2 == 0 else names[::-1]:
                run = audit(args.index, name, n, args.reports)
                if (name, n) not in runs or run.cpu_seconds < runs[(name, n)].cpu_seconds:
                    runs[(name, n)] = run
    console.print(f"load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    first = {name: run for (name, n), run in runs.items() if n == counts[0]}
    console.print(_verdicts_table(args.index, first, counts[0], args.repeat))
    if counts != [1]:
        console.print(_workers_table(runs))


if __name__ == "__main__":
    main()
