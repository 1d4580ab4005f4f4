"""How fast Ctrl-C stops an index audit in each phase, at index scale: every community report of an
index (`audit-index --all`; the fixture's 122 reports, 3,362 claims), a real SIGINT to a real
`veritrail audit-index` process, and the seconds from the signal to the process's exit.

    python benchmarks/interrupt_latency.py [--index ../shared/fixtures/graphrag-verbs-data]   # needs the test extra

Phases, in order: reading the index's tables and extracting claims (the process signals itself as
each begins); verifying with `facts` and with `lexical` (signalled once 20 claims are saved); the
LLM verifier's claim extraction waiting on the fake OpenAI server (60 s an answer); building the
report once every claim is verified, and writing report.html (the process signals itself as each
begins: the longest stretches of the run between two checks for a stop). The last two need every
claim verified: the first of them runs the whole `lexical` audit and is stopped before its report,
leaving every claim in the checkpoint, from which the second resumes. The tests check that each
phase stops at all (`tests/cli/test_interrupt.py`); this measures how soon, where the stretches are
longest. Prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fake_openai import FakeOpenAI  # noqa: E402 (the tests' helpers)
from interrupting import audit_folder, checkpoint_lines, index_project, signal_file, signal_sent, start  # noqa: E402

SAVED = re.compile(r"(\d+) of (\d+) claims are saved")


@dataclass(frozen=True)
class Stop:
    phase: str
    seconds: float
    code: int
    saved: str


def stopped(phase: str, process: subprocess.Popen[str], sent: Callable[[], float]) -> Stop:
    _, err = process.communicate()
    ended = time.monotonic()
    told = SAVED.search(" ".join(err.split()))
    return Stop(phase, ended - sent(), process.returncode, f"{told[1]} of {told[2]}" if told else "none")


def from_inside(phase: str, root: Path, args: list[str], signal_at: str) -> Stop:
    return stopped(phase, start(root, ["--all", *args], signal_at), lambda: signal_sent(root))


def from_outside(phase: str, root: Path, args: list[str], ready: Callable[[], bool]) -> Stop:
    process = start(root, ["--all", *args])
    while process.poll() is None and not ready():
        time.sleep(0.01)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    return stopped(phase, process, lambda: sent)


def measure(index: Path, tmp: Path) -> list[Stop]:
    def fresh(name: str, endpoint: str | None = None) -> Path:
        return index_project(index, tmp / name, endpoint)

    def saved(root: Path, claims: int) -> Callable[[], bool]:
        return lambda: checkpoint_lines(audit_folder(root, "index-audit-all")) > claims  # a header, then claims

    tables = "veritrail_graphrag.adapters.graphrag.tables:read_table"
    extraction = "veritrail_graphrag.audit.claims:split_claims"
    stops = [
        from_inside("reading the tables", fresh("tables"), [], tables),
        from_inside("extracting claims", fresh("extract"), [], extraction),
    ]
    for verifier in ("facts", "lexical"):
        root = fresh(verifier)
        stops.append(from_outside(f"verifying, {verifier}", root, ["--verifier", verifier], saved(root, 20)))
    with FakeOpenAI(latency=60.0) as fake:
        root = fresh("llm", fake.url)
        stops.append(from_outside("LLM claim extraction, waiting on the model", root, ["--verifier", "llm"],
                                  lambda: fake.count > 0))  # fmt: skip
    whole = fresh("writing")
    report = "veritrail_graphrag.audit.run:summarize"
    stops.append(from_inside("building the report (every claim verified)", whole, ["--verifier", "lexical"], report))
    signal_file(whole).unlink()  # the next run signals itself again
    html = "veritrail_graphrag.report.outputs:write_html"
    stops.append(from_inside("writing report.html (resumed)", whole, ["--verifier", "lexical"], html))
    return stops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, default=ROOT.parent / "shared" / "fixtures" / "graphrag-verbs-data")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        stops = measure(args.index, Path(tmp))
    table = Table(title=f"Ctrl-C during audit-index --all of {args.index}")
    for column in ("phase", "seconds to exit", "exit code", "claims saved"):
        table.add_column(column)
    for stop in stops:
        table.add_row(stop.phase, f"{stop.seconds:.2f}", str(stop.code), stop.saved)
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
