"""What content-defined batch boundaries cost on a first audit, against greedy packing.

    python benchmarks/batch_boundaries.py [--reports 20]

Audits the N highest-ranked community reports of the bundled sample with the LLM verifier
against the tests' fake OpenAI server (its word-overlap oracle, the answer cache off), keeps the
nodes of every Evidence Selection step, and packs them again with three rules for closing a batch
when the nodes do not fit in one prompt:
- the shipped rule: after a node whose text hashes below its share, about once per two prompts'
  worth of sentences (`engine.batching._boundary_after`), or when the next node does not fit;
- a boundary per prompt's worth of sentences (the rule before it);
- greedy packing: only when the next node does not fit (the fewest prompts, no stability).
The oracle selects evidence sentence by sentence, whatever shares its prompt, so the trails are
the same under any rule and re-packing the recorded steps counts the prompts an audit with that
rule would send (the shipped rule's count is checked against the requests the server got). Prints
the Evidence Selection prompts of each rule and their excess over greedy packing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fake_openai import FakeOpenAI

import veritrail_graphrag.cli as cli
from veritrail_graphrag.engine import batching, traversal
from veritrail_graphrag.models import Sentence

SAMPLE = ROOT / "sample_runs" / "graphrag-christmas-carol"
Rule = Callable[[Sequence[Sentence], int], bool]
Batches = list[list[Sentence]]
Step = tuple[Batches, int, int | None]
SHIPPED: Rule = batching._boundary_after


def _per_prompt(sentences: Sequence[Sentence], limit: int) -> bool:
    """The shipped hash at twice the rate: a boundary per `limit` sentences (the limit is even)."""
    return SHIPPED(sentences, limit // 2)


def _greedy(sentences: Sequence[Sentence], limit: int) -> bool:
    return False


RULES: dict[str, Rule] = {
    "content-defined, per two prompts' worth (shipped)": SHIPPED,
    "content-defined, per prompt's worth": _per_prompt,
    "greedy packing": _greedy,
}


def _audit(server: FakeOpenAI, reports: int, out: Path) -> tuple[int, int, list[Step]]:
    """(claims audited, Evidence Selection requests sent, the packing steps) of one audit."""
    steps: list[Step] = []

    def recording(nodes: Sequence[Sequence[Sentence]], limit: int, max_chars: int | None = None) -> Batches:
        steps.append(([list(sentences) for sentences in nodes], limit, max_chars))
        return batching.pack_nodes(nodes, limit, max_chars)

    traversal.pack_nodes = recording
    try:
        result = CliRunner().invoke(
            cli.app, ["audit-index", str(SAMPLE), "--reports", str(reports), "--verifier", "llm", "--out", str(out)]
        )
    finally:
        traversal.pack_nodes = batching.pack_nodes
    if result.exit_code not in (0, 1):
        raise SystemExit(f"audit failed ({result.exit_code}):\n{result.output}")
    claims = len(json.loads((out / "report.json").read_text())["results"])
    sent = sum(view.task == "evidence selection" for view in server.views())
    return claims, sent, steps


def _prompts(steps: list[Step], rule: Rule) -> int:
    batching._boundary_after = rule
    try:
        return sum(len(batching.pack_nodes(*step)) for step in steps)
    finally:
        batching._boundary_after = SHIPPED


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reports", type=int, default=20, help="community reports audited (highest-ranked)")
    args = parser.parse_args()
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    with tempfile.TemporaryDirectory(prefix="veritrail-batches-") as folder, FakeOpenAI() as server:
        os.environ.update(
            {
                "VERITRAIL_BASE_URL": server.url,
                "VERITRAIL_MODEL": "fake-model",
                "VERITRAIL_API_KEY": "not-a-key",
                "VERITRAIL_CACHE": "false",
            }
        )
        claims, sent, steps = _audit(server, args.reports, Path(folder))
    prompts = {name: _prompts(steps, rule) for name, rule in RULES.items()}
    print(f"{args.reports} reports, {claims} claims, {len(steps):,} Evidence Selection steps, {sent:,} prompts sent")
    greedy = prompts["greedy packing"]
    for name, count in prompts.items():
        print(f"{name}: {count:,} prompts ({100 * (count / greedy - 1):+.1f}% against greedy packing)")
    if prompts[next(iter(RULES))] != sent:
        raise SystemExit("re-packing with the shipped rule does not give the prompts sent")


if __name__ == "__main__":
    main()
