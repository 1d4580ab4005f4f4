"""How fast the offline verifiers answer the engine's two questions: Evidence Selection over one
full prompt (40 sentences, the default `max_sentences_per_prompt`) and a verdict over its excerpts.

Every verifier of the registry that calls no model is timed on the same inputs, in the same run,
so their ratio holds on a noisy machine. Prints figures and asserts nothing.
Run: `python benchmarks/verifier_speed.py [--repeats 200]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from rich.console import Console
from rich.table import Table

from veritrail_graphrag.models import Claim, Excerpt, Sentence
from veritrail_graphrag.verifiers.base import Verifier
from veritrail_graphrag.verifiers.registry import VERIFIERS, VerifierSpec, prepare_verifier

SENTENCES = [
    f"Sales Agent {i}: our plan number {i} covers theft, fire and flood damage for ${10 * i} a month."
    for i in range(40)
]
CLAIM = "The Silver plan covers theft and vandalism and costs $30 a month."


async def _timings(verifier: Verifier, repeats: int) -> tuple[list[float], list[float]]:
    claim = Claim(id="c1", text=CLAIM, sub_claims=await verifier.decompose(CLAIM))
    batch = [Sentence(id=f"n1:{i}", node_id="n1", index=i, text=text) for i, text in enumerate(SENTENCES)]
    excerpts = [Excerpt(node_id="n1", text=" ".join(SENTENCES[:8]), is_root=True)]
    select, judge = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        await verifier.select_evidence(claim, batch)
        middle = time.perf_counter()
        await verifier.judge(claim, excerpts)
        select.append(middle - start)
        judge.append(time.perf_counter() - middle)
    return select, judge


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    table = Table("verifier", "Evidence Selection, 40 sentences: median (p90) ms", "verdict: median (p90) ms")
    for name, registration in VERIFIERS.items():
        if registration.model_options:
            continue
        select, judge = asyncio.run(_timings(prepare_verifier(VerifierSpec(name=name)).build(), args.repeats))
        cells = [
            f"{statistics.median(t) * 1000:.2f} ({statistics.quantiles(t, n=10)[-1] * 1000:.2f})" for t in (select, judge)
        ]
        table.add_row(name, *cells)
    Console().print(table)


if __name__ == "__main__":
    main()
