"""Properties of the traversal on random layered DAGs with a deterministic pseudo-random verifier."""

from __future__ import annotations

import asyncio
import hashlib

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veritrail_graphrag import DAG, Claim, ClaimResult, StopReason, TrailConfig, Verdict, VeriTrail
from veritrail_graphrag.models import Sentence
from veritrail_graphrag.verifiers import EvidenceSelection, Excerpt, VerdictResult

VERDICTS = list(Verdict)


def _h(*parts: object) -> int:
    return int.from_bytes(hashlib.blake2b(repr(parts).encode(), digest_size=8).digest(), "big")


class RandomVerifier:
    """Answers are a pure function of (seed, input), so runs are reproducible; it also invents ids."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.reads: list[tuple[str, str]] = []  # (claim id, node id) per sentence shown
        self.shown: set[str] = set()

    async def decompose(self, claim_text: str) -> list[str]:
        return [claim_text]

    async def select_evidence(self, claim: Claim, sentences: list[Sentence]) -> EvidenceSelection:
        self.reads.extend((claim.id, s.node_id) for s in sentences)
        self.shown.update(s.id for s in sentences)
        chosen = [s.id for s in sentences if _h(self.seed, claim.id, s.id) % 3 == 0]
        return EvidenceSelection(selected=[*chosen, f"invented#{self.seed}"], summary="summary")

    async def judge(self, claim: Claim, excerpts: list[Excerpt]) -> VerdictResult:
        key = tuple(sorted(n for e in excerpts for n in e.nodes))
        return VerdictResult(verdict=VERDICTS[_h(self.seed, claim.id, key) % 3], reasoning="random")


@st.composite
def layered_dags(draw: st.DrawFn) -> tuple[DAG, str]:
    layers = draw(st.integers(min_value=2, max_value=5))
    widths = [draw(st.integers(min_value=1, max_value=5)) for _ in range(layers - 1)] + [1]
    nodes, edges, by_layer = [], [], []
    for layer, width in enumerate(widths, start=1):
        ids = [f"L{layer}n{i}" for i in range(width)]
        for node_id in ids:
            sentences = draw(st.integers(min_value=1, max_value=4))
            nodes.append(
                {"id": node_id, "stage": layer, "text": " ".join(f"Fact {j} of {node_id}." for j in range(sentences))}
            )
            if layer > 1:
                lower = [n for group in by_layer for n in group]
                inputs = draw(st.lists(st.sampled_from(lower), min_size=1, max_size=3, unique=True))
                edges += [(u, node_id) for u in inputs]
        by_layer.append(ids)
    dag = DAG.from_records(nodes, edges)
    return dag, by_layer[-1][0]


def run(dag: DAG, terminal: str, seed: int, q: int) -> tuple[ClaimResult, RandomVerifier]:
    verifier = RandomVerifier(seed)
    config = TrailConfig(q=q, max_sentences_per_prompt=3, max_verdict_sentences=10_000)
    return VeriTrail(verifier, config).verify(dag, Claim(id="c", text="a claim"), terminal), verifier


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layered_dags(), st.integers(min_value=0, max_value=10_000), st.integers(min_value=1, max_value=3))
def test_traversal_properties(case: tuple[DAG, str], seed: int, q: int) -> None:
    dag, terminal = case
    result, verifier = run(dag, terminal, seed, q)
    iterations = result.iterations

    # Terminates within one iteration per node, and reads each node at most once.
    assert 1 <= len(iterations) <= len(dag)
    checked = [n for it in iterations for n in it.checked]
    assert len(checked) == len(set(checked))
    assert sorted({n for _, n in verifier.reads}) == sorted(set(checked))

    # Only nodes upstream of the terminal are read.
    assert set(checked) <= nx.ancestors(dag.graph, terminal)

    # Evidence ids are always ids the engine assigned.
    for it in iterations:
        assert {e.id for e in it.evidence} <= verifier.shown
        assert {e.node_id for e in it.evidence} == set(it.nodes_with_evidence)
        if not it.evidence:
            assert it.verdict is Verdict.NOT_FULLY_SUPPORTED

    # Verdicts and stop reasons agree with METHOD.md section 3.5.
    last = iterations[-1]
    if result.stop_reason is StopReason.ROOTS_REACHED:
        assert result.verdict is last.verdict
        assert any(dag.is_root(n) for it in iterations for n in it.nodes_with_evidence)
    else:
        assert result.verdict is Verdict.NOT_FULLY_SUPPORTED
    if result.stop_reason is StopReason.NOT_SUPPORTED_LIMIT:
        assert [it.verdict for it in iterations[-q:]] == [Verdict.NOT_FULLY_SUPPORTED] * q

    # Error stages (METHOD.md section 4).
    if result.verdict is not Verdict.NOT_FULLY_SUPPORTED:
        assert result.error_stages == []
    else:
        supported = [it for it in iterations if it.verdict is Verdict.FULLY_SUPPORTED]
        if supported:
            expected = sorted({dag.stage(n) for n in supported[-1].nodes_with_evidence if not dag.is_root(n)})
            assert result.error_stages == (expected or None)
        elif all(it.verdict is Verdict.NOT_FULLY_SUPPORTED for it in iterations):
            assert result.error_stages == [dag.stage(terminal)]
        else:
            assert result.error_stages is None

    # Carried roots are never re-read.
    for it in iterations:
        assert not set(it.carried_roots) & set(it.checked)


@settings(max_examples=100, deadline=None)
@given(layered_dags(), st.integers(min_value=0, max_value=10_000))
def test_q1_reads_no_more_than_q3(case: tuple[DAG, str], seed: int) -> None:
    dag, terminal = case
    q1, _ = run(dag, terminal, seed, 1)
    q3, _ = run(dag, terminal, seed, 3)
    assert q1.nodes_read <= q3.nodes_read
    assert [it.checked for it in q1.iterations] == [it.checked for it in q3.iterations][: len(q1.iterations)]


@settings(max_examples=50, deadline=None)
@given(layered_dags())
def test_each_node_is_split_at_most_once_per_process(case: tuple[DAG, str]) -> None:
    dag, terminal = case
    engine = VeriTrail(RandomVerifier(1), TrailConfig(q=3))
    claims = [Claim(id=f"c{i}", text="x") for i in range(4)]
    results = asyncio.run(engine.averify_many(dag, claims, terminal))
    read = {n for r in results for it in r.iterations for n in it.checked}
    assert dag.split_count == len(read)
