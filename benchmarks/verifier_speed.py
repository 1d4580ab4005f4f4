"""How fast the offline verifiers answer the engine's two questions: Evidence Selection over one
full prompt (40 sentences, the default `max_sentences_per_prompt`) and a verdict over its excerpts.

Every verifier of the registry that calls no model is timed on the same inputs, in the same run,
so their ratio holds on a noisy machine. The verifiers keep per-text caches (a node's sentences are
read by many claims of an audit), so timing the same prompt over and over would time cache hits:
each repeat reads a prompt and a claim it has not seen (a word of its own in every text), then
reads them again, and both are reported. Prints figures and asserts nothing.
Run: `python benchmarks/verifier_speed.py [--repeats 200]`.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import time

from rich.console import Console
from rich.table import Table

from veritrail_graphrag.models import Claim, Excerpt, Sentence
from veritrail_graphrag.verifiers.base import Verifier
from veritrail_graphrag.verifiers.registry import VERIFIERS, VerifierSpec, prepare_verifier

_ROUNDS = itertools.count()


def _word(number: int) -> str:
    """A made-up town name of its own (letters only, so no number is added).

    Never the same twice in a process: the verifiers share text caches (facts reads sentences
    with lexical's analysis), so the second verifier timed must not meet the first one's texts.
    """
    letters = ""
    while True:
        number, digit = divmod(number, 26)
        letters += "abcdefghijklmnopqrstuvwxyz"[digit]
        if not number:
            return "Bel" + letters


def _texts() -> tuple[list[str], str]:
    town = _word(next(_ROUNDS))
    sentences = [
        f"Sales Agent {i} in {town}: our plan number {i} covers theft, fire and flood damage for ${10 * i} a month."
        for i in range(40)
    ]
    return sentences, f"The Silver plan in {town} covers theft and vandalism and costs $30 a month."


Timings = dict[str, list[float]]


async def _timings(verifier: Verifier, repeats: int) -> Timings:
    """Times of each question on new texts ("first") and on the same texts again ("again")."""
    times: Timings = {"select first": [], "select again": [], "judge first": [], "judge again": []}
    for repeat in range(-1, repeats):  # repeat -1 loads the verifier's models and is not counted
        sentences, text = _texts()
        claim = Claim(id="c1", text=text, sub_claims=await verifier.decompose(text))
        batch = [Sentence(id=f"n1:{i}", node_id="n1", index=i, text=line) for i, line in enumerate(sentences)]
        excerpts = [Excerpt(node_id="n1", text=" ".join(sentences[:8]), is_root=True)]
        for read in ("first", "again"):
            start = time.perf_counter()
            await verifier.select_evidence(claim, batch)
            middle = time.perf_counter()
            await verifier.judge(claim, excerpts)
            if repeat >= 0:
                times[f"select {read}"].append(middle - start)
                times[f"judge {read}"].append(time.perf_counter() - middle)
    return times


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    table = Table(
        "verifier",
        "Evidence Selection, 40 sentences, first read: median (p90) ms",
        "read again",
        "verdict, first read: median (p90) ms",
        "read again",
    )
    for name, registration in VERIFIERS.items():
        if registration.model_options:
            continue
        times = asyncio.run(_timings(prepare_verifier(VerifierSpec(name=name)).build(), args.repeats))
        cells = [f"{_ms(statistics.median(t))} ({_ms(statistics.quantiles(t, n=10)[-1])})" for t in times.values()]
        table.add_row(name, *cells)
    Console().print(table)


if __name__ == "__main__":
    main()
