"""Every published GraphRAG index of the corpus audited as a new user would (`veritrail audit-index
DIR --reports 5`, offline verifier): per index its layout, the languages of its claims and of the
nodes read, the verdicts, the seconds a claim and the peak memory, then the two goals.

    python benchmarks/wild_indexes.py [--corpus ../shared/fixtures/graphrag-wild] [--reports 5]
                                      [--verifier facts] [--only NAME ...] [--markdown]

Each index is audited in its own process (the peak memory is that audit's alone; the process's
start and imports are not counted). Seconds a claim leave out reading the index, which is timed
apart. Goals: no index above 4x the median time a claim; at most 10% Not Fully Supported on the
eight indexes whose English reports were written over sources in another language. The timings
are those of a shared machine: compare ratios within one run. Prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

from veritrail_graphrag.report.languages import ranked

ROOT = Path(__file__).resolve().parents[1]
TRANSLATED = {
    "JamesFein__gyrw-graphrag",
    "Minda93__III_2024_golf",
    "axardion__datasaur26",
    "hzy9981__aviation-accident-analysis",
    "pguatibonza__python-whatsapp-bot",
    "piyo123__learning-microsoft-graphrag",
    "qk-antares__cse-kg-rag",
    "rebibabo__graphrag-three-body",
}
"""Reports in English written over sources in another language (the README of the corpus)."""
NFS = "Not Fully Supported"
_CHILD = """
import json, resource, sys, time
from veritrail_graphrag.adapters.graphrag import read_index
from veritrail_graphrag.audit import audit_index
from veritrail_graphrag.errors import VeriTrailError
started = time.perf_counter()
try:
    dag = read_index(sys.argv[1])
except VeriTrailError as exc:
    print(json.dumps({"error": str(exc)}))
    sys.exit(0)
loaded = time.perf_counter() - started
started = time.perf_counter()
report = audit_index(sys.argv[1], reports=int(sys.argv[3]), out=sys.argv[2], verifier=sys.argv[4])
seconds = time.perf_counter() - started
languages = getattr(report.summary, "languages", None)
print(json.dumps({
    "layout": dag.metadata.get("layout"), "load_seconds": loaded, "audit_seconds": seconds,
    "claims": len(report.results), "failed": len(report.failed), "verdicts": report.summary.verdicts,
    "languages": None if languages is None else languages.model_dump(mode="json"),
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


@dataclass
class Run:
    name: str
    error: str = ""
    layout: str = ""
    load_seconds: float = 0.0
    audit_seconds: float = 0.0
    claims: int = 0
    failed: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    languages: dict | None = None
    peak_mb: float = 0.0

    @property
    def per_claim(self) -> float:
        """Seconds a claim, reading the index left out (it is timed apart)."""
        return self.audit_seconds / max(self.claims, 1)

    @property
    def flagged(self) -> float:
        return self.verdicts.get(NFS, 0) / max(self.claims, 1)

    def language_cell(self) -> str:
        if self.languages is None:
            return "-"

        def top(counts: dict[str, int]) -> str:
            return ",".join(list(ranked(counts))[:3]) or "-"

        cell = f"{top(self.languages['claims'])} / {top(self.languages['nodes_read'])}"
        if self.languages.get("nodes_not_read"):
            cell += f" (not read: {top(self.languages['nodes_not_read'])})"
        return cell

    def not_checked(self) -> int:
        return sum((self.languages or {}).get("not_checked", {}).values())


def audit(index: Path, reports: int, verifier: str) -> Run:
    """One index audited in its own process. An audit that fails is a row saying so, with the last
    line it wrote, not the end of a run of twenty that takes most of an hour."""
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(index), out, str(reports), verifier],
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return Run(name=index.name, error=f"audit failed: {last}")
    return Run(name=index.name, **json.loads(done.stdout.strip().splitlines()[-1]))


def _rows(runs: list[Run]) -> list[list[str]]:
    rows = []
    for run in runs:
        if run.error:
            failed = "audit failed" if run.error.startswith("audit failed") else "does not load"
            rows.append([run.name, failed, "", "", "", "", "", "", "", ""])
            continue
        v = run.verdicts
        rows.append(
            [
                run.name + (" *" if run.name in TRANSLATED else ""),
                run.layout,
                run.language_cell(),
                str(run.claims),
                str(v.get("Fully Supported", 0)),
                f"{v.get(NFS, 0)} ({run.flagged:.0%})",
                str(v.get("Inconclusive", 0)),
                str(run.not_checked()),
                f"{run.per_claim:.2f}",
                f"{run.peak_mb:.0f}",
            ]
        )
    return rows


COLUMNS = [
    "index (* translated)",
    "layout",
    "languages: claims / nodes read",
    "claims",
    "Fully",
    "Not Fully",
    "Inconclusive",
    "of which for language",
    "s/claim",
    "peak MB",
]


def goals(runs: list[Run]) -> list[str]:
    loaded = [r for r in runs if not r.error]
    median = statistics.median(r.per_claim for r in loaded)
    slowest = max(loaded, key=lambda r: r.per_claim)
    translated = [r for r in loaded if r.name in TRANSLATED]
    worst = max(translated, key=lambda r: r.flagged) if translated else None
    lines = [
        f"{len(loaded)} of {len(runs)} indexes load and audit.",
        f"Seconds a claim: median {median:.3f}, max {slowest.per_claim:.3f} ({slowest.name}), "
        f"{slowest.per_claim / median:.1f}x the median (goal: at most 4x).",
    ]
    if worst is not None:
        total = sum(r.claims for r in translated)
        flagged = sum(r.verdicts.get(NFS, 0) for r in translated)
        lines.append(
            f"Translated indexes: {flagged} of {total} claims Not Fully Supported ({flagged / max(total, 1):.1%}); "
            f"the most in one index {worst.flagged:.0%} ({worst.name}) (goal: at most 10% each)."
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "fixtures" / "graphrag-wild")
    parser.add_argument("--reports", type=int, default=5)
    parser.add_argument("--verifier", default="facts")
    parser.add_argument("--only", nargs="*", default=None, help="index folder names")
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown (for the README)")
    args = parser.parse_args()
    folders = sorted(p for p in args.corpus.iterdir() if p.is_dir() and (args.only is None or p.name in args.only))
    console = Console(width=160)
    runs = []
    for folder in folders:
        runs.append(audit(folder, args.reports, args.verifier))
        console.print(f"[dim]{folder.name}: done[/dim]", highlight=False)
    if args.markdown:
        print("| " + " | ".join(COLUMNS) + " |")
        print("|" + "---|" * len(COLUMNS))
        for row in _rows(runs):
            print("| " + " | ".join(row) + " |")
    else:
        table = Table(title=f"{len(runs)} published GraphRAG indexes, top {args.reports} reports, {args.verifier}")
        for column in COLUMNS:
            table.add_column(column, justify="left" if column in COLUMNS[:3] else "right")
        for row in _rows(runs):
            table.add_row(*row)
        console.print(table)
    for line in goals(runs):
        print(line)
    for run in runs:
        if run.error:
            print(f"{run.name}: {run.error}")


if __name__ == "__main__":
    main()
