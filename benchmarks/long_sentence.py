"""One long sentence without a full stop, pasted as a GraphRAG answer and audited offline.

"Scrooge pays the surgeon and the clerk and the ghost and ..." (names and one verb repeating,
as a runaway generation writes them) is one sentence, so one claim of that length. Each size is
audited by each offline verifier in its own process (`veritrail audit SAMPLE --answer FILE`), and
the wall time is printed with its ratio to the smallest size's in the same run: linear growth
keeps the ratio near the size ratio; quadratic growth squares it.

    python benchmarks/long_sentence.py [--sizes-kb 10,53,159,1000] [--verifiers facts,lexical] [--timeout 300]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from samples import copy_sample

NAMES = ["the surgeon", "the clerk", "the ghost", "Bob Cratchit", "Tiny Tim", "Fred", "Marley", "the spirit"]


def long_answer(size: int) -> str:
    """About `size` characters: one sentence citing report 45, as a pasted global-search answer."""
    words = ["Scrooge pays"]
    length = len(words[0])
    while length < size:
        words.append(NAMES[len(words) % len(NAMES)] + " and")
        length += len(words[-1]) + 1
    return " ".join(words).removesuffix(" and") + " [Data: Reports (45)].\n"


def audit_seconds(root: Path, answer: Path, verifier: str, timeout: float) -> float | None:
    """Wall time of the audit, or None when it ran past `timeout` (then it is stopped)."""
    command = [sys.executable, "-m", "veritrail_graphrag", "audit", str(root), "--answer", str(answer)]
    started = time.monotonic()
    try:
        done = subprocess.run([*command, "--verifier", verifier], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode not in (0, 1):
        raise SystemExit(f"the audit failed ({done.returncode}): {done.stderr[-500:]}")
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes-kb", default="10,53,159,1000")
    parser.add_argument("--verifiers", default="facts,lexical")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds before a size is given up")
    args = parser.parse_args()
    sizes = [int(kb) for kb in args.sizes_kb.split(",")]
    with tempfile.TemporaryDirectory() as scratch:
        root = copy_sample("graphrag-christmas-carol", Path(scratch) / "carol")
        print(f"{'verifier':<9} {'size':>8} {'seconds':>9} {'x smallest':>11}")
        for verifier in args.verifiers.split(","):
            first: float | None = None
            for kb in sizes:
                answer = Path(scratch) / f"answer-{kb}kb.md"
                answer.write_text(long_answer(kb * 1000), encoding="utf-8")
                seconds = audit_seconds(root, answer, verifier, args.timeout)
                shutil.rmtree(root / "output" / "veritrail" / "answers", ignore_errors=True)
                if seconds is None:
                    print(f"{verifier:<9} {kb:>6}KB {'> ' + str(int(args.timeout)):>9} {'':>11}")
                    continue
                first = first or seconds
                print(f"{verifier:<9} {kb:>6}KB {seconds:>9.1f} {seconds / first:>10.1f}x", flush=True)


if __name__ == "__main__":
    main()
