"""Engine overhead on a DAG shaped like the paper's GraphRAG runs (~114,000 nodes).

Prints DAG build time and peak memory, then the engine's own time per claim with a verifier that
answers instantly, and how many nodes each claim read. Run: `python benchmarks/engine_overhead.py`.
Targets (issue 2): build < 15 s and < 2 GB; engine overhead < 20 ms per claim (median).
`--languages`: the verifier declares that it reads English (as the offline ones do), so the
language of every candidate node is detected once, as the engine does for them; prints how many.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import statistics
import time

from veritrail_graphrag import DAG, Claim, TrailConfig, VeriTrail
from veritrail_graphrag.verifiers import EvidenceSelection, Excerpt, Sentence, VerdictResult

SHAPE = {"chunks": 3_200, "stage2": 95_000, "stage3": 12_000, "reports": 3_650, "map_answers": 80}


class InstantVerifier:
    """Selects sentences carrying the claim's marker; Fully Supported whenever there is evidence."""

    async def decompose(self, claim_text: str) -> list[str]:
        return [claim_text]

    async def select_evidence(self, claim: Claim, sentences: list[Sentence]) -> EvidenceSelection:
        chosen = [s.id for s in sentences if claim.text in s.text]
        return EvidenceSelection(selected=chosen, summary=claim.text if chosen else "")

    async def judge(self, claim: Claim, excerpts: list[Excerpt]) -> VerdictResult:
        from veritrail_graphrag import Verdict

        return VerdictResult(verdict=Verdict.FULLY_SUPPORTED, reasoning="instant")


class InstantEnglishVerifier(InstantVerifier):
    """The same, reading English only (`ReadsLanguages`): the engine detects its candidates' language."""

    languages = frozenset({"en"})


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build_records(claims: int, seed: int) -> tuple[list[dict], list[tuple[str, str]]]:
    """Layered records; claim k's marker is planted along one path from a chunk to the answer."""
    rng = random.Random(seed)
    chunk_ids = [f"tu{i}" for i in range(SHAPE["chunks"])]
    s2_ids = [f"e{i}" for i in range(SHAPE["stage2"])]
    s3_ids = [f"d{i}" for i in range(SHAPE["stage3"])]
    report_ids = [f"r{i}" for i in range(SHAPE["reports"])]
    map_ids = [f"m{i}" for i in range(SHAPE["map_answers"])]
    edges: list[tuple[str, str]] = []
    edges += [(rng.choice(chunk_ids), e) for e in s2_ids]
    summarized = rng.sample(s2_ids, 60_000)
    edges += [(e, s3_ids[i % len(s3_ids)]) for i, e in enumerate(summarized)]
    in_summary = set(summarized)
    feeders = s3_ids + [e for e in s2_ids if e not in in_summary]
    edges += [(f, rng.choice(report_ids)) for f in feeders for _ in range(2)]
    edges += [(r, map_ids[i % len(map_ids)]) for i, r in enumerate(report_ids)]
    edges += [(m, "answer") for m in map_ids]
    edges = list(dict.fromkeys(edges))

    src: dict[str, list[str]] = {}
    for u, v in edges:
        src.setdefault(v, []).append(u)
    marks: dict[str, list[str]] = {}
    for k in range(claims):
        node = "answer"
        while node in src:
            node = rng.choice(src[node])
            marks.setdefault(node, []).append(f"MARKER{k}")

    def text(node_id: str, sentences: int) -> str:
        body = [f"Sentence {j} of {node_id} says something ordinary." for j in range(sentences)]
        body += [f"This passage mentions {m} plainly." for m in marks.get(node_id, [])]
        return " ".join(body)

    stages = [(chunk_ids, 1, "text_unit", 12), (s2_ids, 2, "entity", 2), (s3_ids, 3, "entity_summary", 3),
              (report_ids, 4, "community_report", 15), (map_ids, 5, "map_answer", 6)]
    nodes = [{"id": n, "stage": stage, "kind": kind, "text": text(n, k)} for ids, stage, kind, k in stages for n in ids]
    nodes.append({"id": "answer", "stage": 6, "kind": "final_answer", "text": text("answer", 20)})
    return nodes, edges


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--claims", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--languages", action="store_true", help="a verifier that reads English only")
    args = parser.parse_args()

    nodes, edges = build_records(args.claims, args.seed)
    baseline_mb = _rss_mb()
    started = time.perf_counter()
    dag = DAG.from_records(nodes, edges)
    build_s = time.perf_counter() - started
    print(f"DAG: {len(dag):,} nodes, {len(edges):,} edges, stages {dag.stages()}")
    print(f"build: {build_s:.2f} s; peak RSS {_rss_mb():.0f} MB (records alone {baseline_mb:.0f} MB)")

    verifier = InstantEnglishVerifier() if args.languages else InstantVerifier()
    engine = VeriTrail(verifier, TrailConfig(concurrency=16))
    claims = [Claim(id=f"c{k}", text=f"MARKER{k}", sub_claims=[f"MARKER{k}"]) for k in range(args.claims)]
    timings, reads, first_pass = [], [], True
    for claim in claims:
        started = time.perf_counter()
        result = asyncio.run(engine.averify(dag, claim))
        elapsed = time.perf_counter() - started
        if first_pass:
            print(f"first claim (splits the 80 map answers once): {elapsed * 1000:.1f} ms")
            first_pass = False
        timings.append(elapsed * 1000)
        reads.append(result.nodes_read)
    print(f"engine overhead per claim: median {statistics.median(timings):.2f} ms, "
          f"p90 {statistics.quantiles(timings, n=10)[-1]:.2f} ms, max {max(timings):.2f} ms")
    print(f"nodes read per claim: median {statistics.median(reads):.0f} "
          f"({statistics.median(reads) / len(dag):.3%} of the DAG), max {max(reads)}")
    print(f"nodes split into sentences over all claims: {dag.split_count:,}; peak RSS {_rss_mb():.0f} MB")
    if args.languages:
        print(f"nodes whose language was detected: {dag.language_count:,}")


if __name__ == "__main__":
    main()
