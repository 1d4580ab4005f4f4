"""Throughput and cost of the LLM verifier on a synthetic GraphRAG index, against a local fake model.

What it shows:
- calls and tokens per claim, and the share of the DAG's nodes one claim reads (the paper reports
  0.3-1% for GraphRAG: VeriTrail must never read the whole graph per claim);
- wall time with the engine at concurrency 1 and 32 (every call costs `--latency` seconds, so
  this measures how well calls overlap; target: >= 15x faster at 32);
- the token ratio against the paper's long-context baseline, which sends every root (text unit)
  to a single verdict call per claim.

The model is `tests/fake_openai.py` (a real HTTP server with a deterministic word-overlap
oracle), so the figures are about our plumbing, not about any model's quality.

    python benchmarks/llm_throughput.py [--claims 100] [--latency 0.2] [--text-units 1500]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fake_openai import FakeOpenAI

from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.traversal import VeriTrail
from veritrail_graphrag.llm.client import LLMClient
from veritrail_graphrag.llm.config import LLMConfig
from veritrail_graphrag.models import Claim, Excerpt, TrailConfig, Verdict
from veritrail_graphrag.verifiers.llm.verifier import LLMVerifier

FILLER = [
    "The committee met on a {day} to review the budget of district {n}.",
    "Local reporters described district {n} as quiet during the season.",
    "Several residents of district {n} asked for a new library.",
    "The regional office of district {n} published its annual figures.",
    "Road works in district {n} were delayed by heavy rain.",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]


def fact(k: int) -> str:
    return f"Zarnik-{k} supplies cobalt-{k} to Meridia-{k}."


def filler(n: int, rng: random.Random, count: int) -> list[str]:
    return [rng.choice(FILLER).format(n=n, day=rng.choice(DAYS)) for _ in range(count)]


def build_index(claims: int, text_units: int, seed: int = 7) -> tuple[DAG, list[Claim], set[str]]:
    """A GraphRAG-shaped DAG (stages 1-6) whose final answer makes `claims` claims.

    Four in five claims are true facts carried up from a text unit through an entity, maybe a
    summarized description, a community report and a map answer; the rest are invented by a map
    answer (stage 5), so they are Not Fully Supported with error stage 5.
    """
    rng = random.Random(seed)
    nodes: list[dict[str, Any]] = []
    edges: list[tuple[str, str]] = []
    supported = {f"c{k}" for k in range(claims) if k % 5 != 4}
    fact_unit = {k: rng.randrange(text_units) for k in range(claims) if f"c{k}" in supported}

    unit_facts: dict[int, list[int]] = {}
    for k, unit in fact_unit.items():
        unit_facts.setdefault(unit, []).append(k)
    for u in range(text_units):
        sentences = filler(u, rng, 5) + [fact(k) for k in unit_facts.get(u, [])]
        rng.shuffle(sentences)
        nodes.append({"id": f"text_unit:{u}", "stage": 1, "kind": "text_unit", "text": " ".join(sentences)})

    entity_of_unit: dict[int, str] = {}
    for u in range(text_units):
        entity = f"entity:{u}"
        text = " ".join([f"District {u} is an administrative area."] + [fact(k) for k in unit_facts.get(u, [])])
        nodes.append({"id": entity, "stage": 2, "kind": "entity", "text": text})
        edges.append((f"text_unit:{u}", entity))
        entity_of_unit[u] = entity
        if u % 3 == 0:
            relation = f"relationship:{u}"
            nodes.append(
                {
                    "id": relation,
                    "stage": 2,
                    "kind": "relationship",
                    "text": f"District {u} borders district {(u + 1) % text_units}.",
                }
            )
            edges.append((f"text_unit:{u}", relation))

    stage2 = [n["id"] for n in nodes if n["stage"] == 2]
    descriptions: list[str] = []
    for d in range(text_units // 5):
        node_id = f"description:{d}"
        inputs = rng.sample(stage2, 2)
        nodes.append(
            {
                "id": node_id,
                "stage": 3,
                "kind": "entity_description",
                "text": f"Description {d} merges two mentions of the same district.",
            }
        )
        edges.extend((i, node_id) for i in inputs)
        descriptions.append(node_id)

    reports = max(5, text_units // 15)
    members: dict[int, list[str]] = {r: [] for r in range(reports)}
    report_of: dict[str, int] = {}
    for index, node_id in enumerate(stage2 + descriptions):
        members[index % reports].append(node_id)
        report_of[node_id] = index % reports
    report_facts: dict[int, list[int]] = {}
    for k, unit in fact_unit.items():
        report_facts.setdefault(report_of[entity_of_unit[unit]], []).append(k)
    for r in range(reports):
        text = " ".join(filler(r, rng, 12) + [fact(k) for k in report_facts.get(r, [])])
        nodes.append({"id": f"community_report:{r}", "stage": 4, "kind": "community_report", "text": text})
        edges.extend((m, f"community_report:{r}") for m in members[r])

    maps = 20
    map_facts: dict[int, list[int]] = {m: [] for m in range(maps)}
    for r in range(reports):
        m = r % maps
        edges.append((f"community_report:{r}", f"map_answer:{m}"))
        map_facts[m].extend(report_facts.get(r, []))
    for k in range(claims):
        if f"c{k}" not in supported:
            map_facts[k % maps].append(k)
    for m in range(maps):
        text = " ".join(filler(m, rng, 3) + [fact(k) for k in map_facts[m]])
        nodes.append({"id": f"map_answer:{m}", "stage": 5, "kind": "map_answer", "text": text})
        edges.append((f"map_answer:{m}", "final_answer"))
    nodes.append(
        {"id": "final_answer", "stage": 6, "kind": "final_answer", "text": " ".join(fact(k) for k in range(claims))}
    )
    claim_list = [Claim(id=f"c{k}", text=fact(k)) for k in range(claims)]
    return DAG.from_records(nodes, edges), claim_list, supported


def verifier_for(server: FakeOpenAI, concurrency: int, max_input_tokens: int | None = None) -> LLMVerifier:
    config = LLMConfig(
        model="gpt-4o",
        base_url=server.url,
        api_key="benchmark",
        concurrency=concurrency,
        cache=False,
        timeout=60.0,
        max_input_tokens=max_input_tokens,
    )
    return LLMVerifier(config, client=LLMClient(config))


async def run_engine(dag: DAG, claims: list[Claim], server: FakeOpenAI, concurrency: int) -> dict[str, Any]:
    verifier = verifier_for(server, concurrency)
    started = time.perf_counter()
    results = await VeriTrail(verifier, TrailConfig(concurrency=concurrency)).averify_many(dag, claims)
    elapsed = time.perf_counter() - started
    await verifier.aclose()
    per_claim = verifier.usage.by_key()
    return {
        "elapsed": elapsed,
        "results": results,
        "calls": [per_claim[c.id].calls for c in claims],
        "tokens": [per_claim[c.id].total_tokens for c in claims],
        "cost": verifier.usage.total().cost_usd,
        "by_kind": {k: u.calls for k, u in verifier.usage.by_kind().items()},
    }


async def run_baseline(dag: DAG, claims: list[Claim], server: FakeOpenAI, concurrency: int) -> list[int]:
    """The long-context baseline: one verdict call per claim over the text of every root, to a model
    whose window holds them all (no real one does: the prompt would be refused over any limit)."""
    verifier = verifier_for(server, concurrency, max_input_tokens=10_000_000)
    excerpts = [Excerpt(node_id=r, text=dag.node(r).text, is_root=True) for r in sorted(dag.roots)]
    await asyncio.gather(*(verifier.judge(claim, excerpts) for claim in claims))
    await verifier.aclose()
    per_claim = verifier.usage.by_key()
    return [per_claim[c.id].total_tokens for c in claims]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=100)
    parser.add_argument("--text-units", type=int, default=1500)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per fake model call")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 32])
    args = parser.parse_args()

    dag, claims, supported = build_index(args.claims, args.text_units)
    print(
        f"DAG: {len(dag)} nodes, stages {dag.stages()}, {len(dag.roots)} roots; {len(claims)} claims "
        f"({len(supported)} supported by construction); fake latency {args.latency * 1000:.0f} ms/call"
    )

    runs: dict[int, dict[str, Any]] = {}
    with FakeOpenAI(latency=args.latency) as server:
        for concurrency in args.concurrency:
            before = server.count
            runs[concurrency] = asyncio.run(run_engine(dag, claims, server, concurrency))
            runs[concurrency]["requests"] = server.count - before
            print(
                f"concurrency {concurrency:>3}: {runs[concurrency]['elapsed']:8.1f} s wall, "
                f"{runs[concurrency]['requests']} requests, peak {server.max_in_flight} in flight"
            )
            server.reset()
        baseline = asyncio.run(run_baseline(dag, claims, server, max(args.concurrency)))

    run = runs[max(args.concurrency)]
    results = run["results"]
    read = [r.nodes_read for r in results]
    verdicts = Counter(r.verdict.value for r in results)
    correct = sum((r.verdict is Verdict.FULLY_SUPPORTED) == (r.claim.id in supported) for r in results)
    stages = Counter(s for r in results for s in (r.error_stages or []))
    tokens = run["tokens"]
    print(
        f"verdicts: {dict(verdicts)}; agree with construction: {correct}/{len(results)}; "
        f"error stages named: {dict(stages)}"
    )
    print(
        f"calls per claim: mean {statistics.mean(run['calls']):.1f}, max {max(run['calls'])}; by kind {run['by_kind']}"
    )
    print(
        f"tokens per claim: mean {statistics.mean(tokens):,.0f}, median {statistics.median(tokens):,.0f}; "
        f"cost at gpt-4o list price: ${run['cost'] / len(claims):.4f} per claim"
    )
    print(
        f"nodes read per claim: mean {statistics.mean(read):.1f} = {100 * statistics.mean(read) / len(dag):.2f}% "
        f"of the DAG (max {100 * max(read) / len(dag):.2f}%)"
    )
    if 1 in runs and len(runs) > 1:
        fastest = min(runs, key=lambda c: runs[c]["elapsed"])
        speedup = runs[1]["elapsed"] / runs[fastest]["elapsed"]
        verdict = "meets" if speedup >= 15 else "misses"
        print(f"speed-up at concurrency {fastest}: {speedup:.1f}x ({verdict} the 15x target)")
    ratio = statistics.mean(baseline) / statistics.mean(tokens)
    print(
        f"long-context baseline (all {len(dag.roots)} roots in one verdict call): "
        f"{statistics.mean(baseline):,.0f} tokens per claim = {ratio:.1f}x VeriTrail's"
    )


if __name__ == "__main__":
    main()
