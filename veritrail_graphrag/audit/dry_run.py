"""`--dry-run`: bounds on the model calls and tokens an audit would spend, from the DAG alone.

The traversal's real cost depends on what the model selects, so we give two bounds per claim:
the lower one reads only the terminal's inputs once (one iteration, one verdict); the upper one
reads every node upstream of the terminal (the worst case the paper's section 3.1 allows), with one
verdict per stage it crosses. The paper's GraphRAG audits read 0.3-1% of the DAG per claim, so
real runs sit near the lower bound.
"""

from __future__ import annotations

import math

import networkx as nx
from pydantic import BaseModel

from veritrail_graphrag.audit.claims import sentence_claims
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.llm.config import PromptProfile
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.llm.usage import ModelPrice
from veritrail_graphrag.models import TrailConfig
from veritrail_graphrag.verifiers.llm.estimate import CallVolume, CostEstimate, estimate_cost

_VERDICT_CHARS = 4_000  # roots in full plus summaries: a typical verdict prompt's data


class DryRun(BaseModel):
    terminals: int
    claims: int
    nodes_in_dag: int
    nodes_upstream: int
    lower: CostEstimate
    upper: CostEstimate


def _reads(dag: DAG, nodes: list[str], limit: int) -> CallVolume:
    sentences = [s for n in nodes for s in dag.sentences(n)]
    return CallVolume(calls=math.ceil(len(sentences) / limit), chars=sum(len(s.text) for s in sentences))


def plan(
    dag: DAG,
    terminals: list[str],
    config: TrailConfig,
    model: str,
    *,
    extract: bool,
    samples: int = 1,
    prices: dict[str, ModelPrice] | None = None,
    profile: PromptProfile = PromptProfile.COMPACT,
) -> DryRun:
    """Count calls per kind for both bounds; splitting upstream nodes is the only work done."""
    lower: dict[CallKind, CallVolume] = {}
    upper: dict[CallKind, CallVolume] = {}
    claims = 0
    upstream_all: set[str] = set()

    def add(volumes: dict[CallKind, CallVolume], kind: CallKind, volume: CallVolume, times: int = 1) -> None:
        old = volumes.get(kind, CallVolume(calls=0, chars=0))
        volumes[kind] = CallVolume(calls=old.calls + volume.calls * times, chars=old.chars + volume.chars * times)

    for terminal in terminals:
        found = sentence_claims(dag, terminal)
        claims += len(found)
        n = len(found)
        if extract:
            sentences = dag.sentences(terminal)
            volume = CallVolume(calls=len(sentences), chars=4 * sum(len(s.text) for s in sentences))
            add(lower, CallKind.CLAIM_EXTRACTION, volume)
            add(upper, CallKind.CLAIM_EXTRACTION, volume)
        claim_chars = sum(len(c.text) for c in found)
        add(lower, CallKind.DECOMPOSITION, CallVolume(calls=n, chars=claim_chars))
        rounds = 1 if config.decomposition_depth == 1 else config.max_decompositions
        add(upper, CallKind.DECOMPOSITION, CallVolume(calls=n * rounds, chars=claim_chars * rounds))

        first = dag.src(terminal)
        upstream = sorted(nx.ancestors(dag.graph, terminal))
        upstream_all.update(upstream)
        depth = len({dag.stage(u) for u in upstream})
        add(lower, CallKind.EVIDENCE_SELECTION, _reads(dag, first, config.max_sentences_per_prompt), n)
        add(upper, CallKind.EVIDENCE_SELECTION, _reads(dag, upstream, config.max_sentences_per_prompt), n)
        add(lower, CallKind.VERDICT, CallVolume(calls=n, chars=n * _VERDICT_CHARS))
        add(upper, CallKind.VERDICT, CallVolume(calls=n * depth, chars=n * depth * _VERDICT_CHARS))

    return DryRun(
        terminals=len(terminals),
        claims=claims,
        nodes_in_dag=len(dag),
        nodes_upstream=len(upstream_all),
        lower=estimate_cost(lower, model, samples=samples, prices=prices, profile=profile),
        upper=estimate_cost(upper, model, samples=samples, prices=prices, profile=profile),
    )
