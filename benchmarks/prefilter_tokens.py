"""What `--prefilter` saves and what it loses, measured in one run against a full run.

Three measurements:
- the planted benchmark (one split) and an audit of every community report of the fixture index,
  each run twice through the LLM verifier against the tests' scripted OpenAI server (its
  word-overlap oracle), with and without the prefilter: prompt tokens and calls per claim, and of
  the sentences the full run selected as evidence, the share the prefiltered run still showed.
  The oracle finds nearly every report claim Not Fully Supported at its first verdict, so the
  index is audited a second time with an oracle that judges Fully Supported what it selected
  evidence for: its claims are traced down to the text units, where the long nodes are;
- the FABLES annotators' evidence quotes (the books are not public): the share of quotes of which
  the sentence rules keep at least one sentence (applied without the node-length gate, as if each
  quote sat in a long chapter), against the share of the fixture index's text-unit sentences they
  keep, for several similarity thresholds (the shipped one was chosen with `--split dev`). The
  oracle selects by shared words, so the first figure cannot catch what the rules miss on
  abstractive text; the quotes, picked by people, can.

    python benchmarks/prefilter_tokens.py [--data ../shared] [--split test] [--reports N] [--sweep-only]

Prints figures and asserts nothing. The oracle answers instantly, so times are not reported.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import networkx as nx
from fake_openai import FakeOpenAI, PromptView, default_responder, overlap_oracle
from rich.console import Console
from rich.table import Table

from veritrail_graphrag.adapters.graphrag import read_index
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.engine.traversal import VeriTrail
from veritrail_graphrag.evaluation.fables import quotes
from veritrail_graphrag.evaluation.planted import find_index, load_planted
from veritrail_graphrag.evaluation.splits import Split, assign_splits, select
from veritrail_graphrag.llm.client import LLMClient
from veritrail_graphrag.llm.config import LLMConfig
from veritrail_graphrag.models import Claim, Sentence, TrailConfig
from veritrail_graphrag.sentences import split_sentences
from veritrail_graphrag.verifiers import prefilter
from veritrail_graphrag.verifiers.llm.verifier import LLMVerifier

CONCURRENCY = 16


@dataclass
class Run:
    results: list[ClaimResult]
    prompt_tokens: int
    calls: int


@dataclass
class Job:
    """Claims over one DAG, each from its own terminal."""

    dag: DAG
    claims: list[Claim]
    terminals: dict[str, str]


async def run(jobs: Sequence[Job], server: FakeOpenAI, prefiltered: bool) -> Run:
    config = LLMConfig(model="gpt-4o", base_url=server.url, api_key="benchmark", concurrency=CONCURRENCY, cache=False)
    verifier = LLMVerifier(config, client=LLMClient(config), prefilter=prefiltered)
    engine = VeriTrail(verifier, TrailConfig(concurrency=CONCURRENCY))
    results: list[ClaimResult] = []
    for job in jobs:
        results += await engine.averify_many(job.dag, job.claims, job.terminals)
    await verifier.aclose()
    total = verifier.usage.total()
    return Run(results, total.input_tokens, total.calls)


def trusting_oracle(request: dict[str, Any]) -> Any:
    """The oracle with a lower bar (30% of the claim's words shared) that judges Fully Supported
    whatever it found evidence for: claims go on down to the text units, as the supported claims
    of a real audit do, where the default oracle stops nearly every report claim at its first
    verdict."""
    view = PromptView.of(request)
    answer = overlap_oracle(view, share=0.3)
    if view.task == "verdict generation":
        answer["verdict"] = "Fully Supported"
    return answer


def _sentence_places(ranges: Sequence[str]) -> set[tuple[str, int]]:
    places: set[tuple[str, int]] = set()
    for shown in ranges:
        node, span = shown.rsplit("#", 1)
        first, last = (int(part) for part in span.split("-"))
        places.update((node, index) for index in range(first, last + 1))
    return places


def shown_by_stage(run: Run, jobs: Sequence[Job]) -> dict[int, int]:
    """Sentences shown to Evidence Selection, by the stage of their node, over all claims."""
    stage = {node: dag.stage(node) for job in jobs for dag in [job.dag] for node in dag.graph.nodes}
    counts: dict[int, int] = {}
    for result in run.results:
        for node, _ in (place for it in result.iterations for b in it.batches for place in _sentence_places(b.shown)):
            counts[stage[node]] = counts.get(stage[node], 0) + 1
    return dict(sorted(counts.items()))


def kept_evidence(full: Run, reduced: Run) -> tuple[int, int]:
    """(sentences the full run selected, of those the reduced run showed to Evidence Selection)."""
    by_claim = {r.claim.id: r for r in reduced.results}
    selected = kept = 0
    for result in full.results:
        shown = _sentence_places(
            [s for it in by_claim[result.claim.id].iterations for b in it.batches for s in b.shown]
        )
        sentences = {s.id: s for it in result.iterations for s in it.evidence}
        for sentence in sentences.values():
            selected += 1
            kept += (sentence.node_id, sentence.index) in shown
    return selected, kept


def planted_jobs(data: Path, split: Split) -> list[Job]:
    items = select(load_planted(data).items, split)
    return [
        Job(
            item.build_dag(),
            [c.claim.model_copy(update={"id": f"{item.id}/{c.claim.id}"}) for c in item.claims],
            {f"{item.id}/{c.claim.id}": item.terminal for c in item.claims},
        )
        for item in items
    ]


def index_job(index: Path, reports: int | None) -> Job:
    """Every sentence of each report is a claim (what the oracle's claim extraction returns)."""
    dag = read_index(index)
    chosen = sorted(n for n in dag.graph.nodes if dag.stage(n) == 4)[:reports]
    claims: list[Claim] = []
    terminals: dict[str, str] = {}
    for report in chosen:
        for sentence in dag.sentences(report):
            text = sentence.text.strip()
            if not text or text.startswith("#") or text.endswith("?"):
                continue
            claims.append(Claim(id=sentence.id, text=text))
            terminals[sentence.id] = report
    return Job(dag, claims, terminals)


def fables_quotes(data: Path, split: Split) -> tuple[int, int, int, int]:
    """(quotes, quotes with a kept sentence, quote sentences, kept sentences) on one split's books."""
    rows = [json.loads(line) for line in (data / "benchmarks/fables/claims.jsonl").read_text().splitlines()]
    books = assign_splits(row["book"] for row in rows)
    counts = [0, 0, 0, 0]
    for row in rows:
        if books[row["book"]] is not split:
            continue
        claim = Claim(id="c", text=row["claim"])
        for n, quote in enumerate(quotes(row)):
            sentences = [
                Sentence(id=f"q{n}#{i}", node_id=f"q{n}", index=i, text=text)
                for i, text in enumerate(split_sentences(quote))
            ]
            flags = prefilter.related(claim, sentences)
            counts[0] += 1
            counts[1] += any(flags)
            counts[2] += len(flags)
            counts[3] += sum(flags)
    return counts[0], counts[1], counts[2], counts[3]


def text_unit_share(dag: DAG, samples: int = 30, seed: int = 3) -> tuple[int, int]:
    """(text-unit sentences, of those kept) for 5 sentences of each of `samples` seeded reports, as
    claims, against every text unit their report was made from: what the rules keep of long nodes."""
    rng = random.Random(seed)
    reports = sorted(n for n in dag.graph.nodes if dag.stage(n) == 4)
    counts = [0, 0]
    for report in rng.sample(reports, min(samples, len(reports))):
        units = sorted(a for a in nx.ancestors(dag.graph, report) if dag.stage(a) == 1)
        sentences = dag.sentences(report)
        for sentence in rng.sample(sentences, min(5, len(sentences))):
            claim = Claim(id="c", text=sentence.text)
            for unit in units:
                flags = prefilter.may_be_evidence(claim, dag.sentences(unit))
                counts[0] += len(flags)
                counts[1] += sum(flags)
    return counts[0], counts[1]


def threshold_sweep(data: Path, split: Split, dag: DAG, console: Console) -> None:
    """The similarity threshold's trade-off: annotators' quotes found against text units kept."""
    table = Table(title=f"MIN_SIMILARITY: FABLES quotes ({split.value} books) against the index's text units")
    for column in ("threshold", "quotes with a sentence kept", "quote sentences kept", "text-unit sentences kept"):
        table.add_column(column, justify="right")
    chosen = prefilter.MIN_SIMILARITY
    try:
        for threshold in (2.0, 0.2, 0.15, 0.1):
            prefilter.MIN_SIMILARITY = threshold
            total, found, sentences, kept = fables_quotes(data, split)
            units, units_kept = text_unit_share(dag)
            table.add_row(
                "shared words only" if threshold > 1 else f"{threshold}" + (" (chosen)" if threshold == chosen else ""),
                f"{found:,} of {total:,} ({found / total:.1%})",
                f"{kept / sentences:.1%}",
                f"{units_kept:,} of {units:,} ({units_kept / units:.1%})",
            )
    finally:
        prefilter.MIN_SIMILARITY = chosen
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    parser.add_argument("--split", choices=[s.value for s in Split], default="test")
    parser.add_argument("--reports", type=int, default=None, help="audit only the first N reports of the index")
    parser.add_argument("--sweep-only", action="store_true", help="only the threshold sweep (about a minute)")
    args = parser.parse_args()
    logging.getLogger("httpx").setLevel(logging.WARNING)
    split = Split(args.split)
    console = Console()
    table = Table(title=f"--prefilter against a full run (scripted oracle; min similarity {prefilter.MIN_SIMILARITY})")
    for column in ("audit", "claims", "prompt tokens / claim", "calls / claim", "ratio", "evidence still shown"):
        table.add_column(column, justify="right" if column != "audit" else "left")

    index = [index_job(find_index(args.data / "fixtures"), args.reports)]
    if args.sweep_only:
        threshold_sweep(args.data, split, index[0].dag, console)
        return
    jobs = {
        f"planted ({split.value})": (planted_jobs(args.data / "benchmarks", split), default_responder),
        "fixture index": (index, default_responder),
        "fixture index, traced deeper": (index, trusting_oracle),
    }
    with FakeOpenAI() as server:
        for name, (audit_jobs, responder) in jobs.items():
            server.responder = responder
            started = time.perf_counter()
            full = asyncio.run(run(audit_jobs, server, prefiltered=False))
            reduced = asyncio.run(run(audit_jobs, server, prefiltered=True))
            claims = len(full.results)
            selected, kept = kept_evidence(full, reduced)
            for label, measured in (("full", full), ("prefiltered", reduced)):
                table.add_row(
                    f"{name}, {label}",
                    str(claims),
                    f"{measured.prompt_tokens / claims:,.0f}",
                    f"{measured.calls / claims:.1f}",
                    "" if measured is full else f"{full.prompt_tokens / max(reduced.prompt_tokens, 1):.2f}x fewer",
                    "" if measured is full else f"{kept:,} of {selected:,} ({kept / max(selected, 1):.1%})",
                )
            before, after = shown_by_stage(full, audit_jobs), shown_by_stage(reduced, audit_jobs)
            verdicts = Counter(r.verdict.value for r in full.results)
            console.print(
                f"{name}: both runs in {time.perf_counter() - started:.0f} s; the oracle's verdicts (full run): "
                + ", ".join(f"{v} {n}" for v, n in verdicts.most_common())
                + "; sentences shown per claim by stage, full -> prefiltered: "
                + ", ".join(
                    f"stage {stage} {count / claims:,.0f} -> {after.get(stage, 0) / claims:,.0f}"
                    for stage, count in before.items()
                )
            )
    console.print(table)
    threshold_sweep(args.data, split, index[0].dag, console)


if __name__ == "__main__":
    main()
