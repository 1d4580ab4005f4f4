"""Properties of the traversal on random layered DAGs with a deterministic pseudo-random verifier."""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter

import networkx as nx
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from veritrail_graphrag import DAG, Claim, ClaimResult, StopReason, TrailConfig, Verdict, VeriTrail
from veritrail_graphrag.engine.verdict_input import VerdictInput
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


class KeepsUntraced(RandomVerifier):
    """The same answers, from a verifier that keeps an untraced Inconclusive claim Inconclusive."""

    keeps_untraced_inconclusive = True


def run(
    dag: DAG, terminal: str, seed: int, q: int, verifier_class: type[RandomVerifier] = RandomVerifier
) -> tuple[ClaimResult, RandomVerifier]:
    verifier = verifier_class(seed)
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

    # Verdicts and stop reasons agree with the paper's section 3.1.4: only-read roots with evidence
    # left, the latest verdict is final (condition 1); no candidate node left (the roots never
    # reached, or none yielded evidence: condition 2) or q consecutive Not Fully Supported verdicts
    # (condition 3), Not Fully Supported, whatever the latest verdict was.
    last = iterations[-1]
    if result.stop_reason is StopReason.ROOTS_REACHED:
        assert result.verdict is last.verdict
        assert any(dag.is_root(n) for it in iterations for n in it.nodes_with_evidence)
    else:
        assert result.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert not result.not_traced
    if result.stop_reason is StopReason.NOT_SUPPORTED_LIMIT:
        assert [it.verdict for it in iterations[-q:]] == [Verdict.NOT_FULLY_SUPPORTED] * q

    # Error stages (the paper's section 3.2).
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


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layered_dags(), st.integers(min_value=0, max_value=10_000), st.integers(min_value=1, max_value=3))
def test_a_verifier_that_keeps_untraced_claims_inconclusive_changes_only_that_case(
    case: tuple[DAG, str], seed: int, q: int
) -> None:
    """Same answers, same trail; only a claim that runs out of nodes after an Inconclusive verdict
    ends differently: Inconclusive, not traced to the source, with no root in its trail."""
    dag, terminal = case
    paper, _ = run(dag, terminal, seed, q)
    kept, _ = run(dag, terminal, seed, q, KeepsUntraced)
    assert [it.checked for it in kept.iterations] == [it.checked for it in paper.iterations]
    untraced = paper.stop_reason is StopReason.NO_CANDIDATES and paper.iterations[-1].verdict is Verdict.INCONCLUSIVE
    event(f"untraced after Inconclusive: {untraced}")
    assert kept.not_traced is untraced
    if untraced:
        assert kept.verdict is Verdict.INCONCLUSIVE and kept.error_stages == []
        assert "Not traced to the source" in kept.reasoning
        assert not any(dag.is_root(n) for it in kept.iterations for n in it.nodes_with_evidence)
        assert paper.verdict is Verdict.NOT_FULLY_SUPPORTED and "not traced to the source" in paper.reasoning
    else:
        assert kept.model_dump() == paper.model_dump()


def test_the_engine_records_which_rule_it_applied() -> None:
    assert VeriTrail(RandomVerifier(0)).config.untraced_inconclusive is False
    assert VeriTrail(KeepsUntraced(0)).config.untraced_inconclusive is True
    assert VeriTrail(KeepsUntraced(0), TrailConfig(untraced_inconclusive=False)).config.untraced_inconclusive is False


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


class NarrowingVerifier(RandomVerifier):
    """Summaries as long as the selection, so the verdict budgets bite; a sentence shown again
    (re-selection) gets a fresh draw, so re-selection sometimes narrows and sometimes does not."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.times_shown: Counter[str] = Counter()
        self.largest_prompt = 0

    async def select_evidence(self, claim: Claim, sentences: list[Sentence]) -> EvidenceSelection:
        self.reads.extend((claim.id, s.node_id) for s in sentences)
        self.shown.update(s.id for s in sentences)
        self.times_shown.update(s.id for s in sentences)
        self.largest_prompt = max(self.largest_prompt, sum(len(s.text) for s in sentences))
        draw = {s.id: _h(self.seed, claim.id, s.id, self.times_shown[s.id]) % 5 for s in sentences}
        chosen = [s for s in sentences if draw[s.id] < 3]
        context = [s.id for s in sentences if draw[s.id] == 3]
        return EvidenceSelection(
            selected=[s.id for s in chosen], context=context, summary=" ".join(s.text for s in chosen)
        )


def _fits(excerpts: list[Excerpt], dag: DAG, config: TrailConfig) -> bool:
    """Each kind within its budget, or a single excerpt of that kind (the one always shown)."""
    for is_root, budget in ((True, config.max_verdict_root_sentences), (False, config.max_verdict_sentences)):
        kind = [e for e in excerpts if e.is_root is is_root]
        size = sum(map(VerdictInput(dag, config).size, kind))
        if size > budget and len(kind) > 1:
            return False
    return True


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    layered_dags(),
    st.integers(min_value=0, max_value=10_000),
    st.builds(
        TrailConfig,
        q=st.integers(min_value=1, max_value=3),
        max_sentences_per_prompt=st.integers(min_value=1, max_value=3),
        max_verdict_sentences=st.integers(min_value=1, max_value=3),
        max_verdict_root_sentences=st.integers(min_value=1, max_value=4),
        max_reselections=st.integers(min_value=0, max_value=2),
        max_prompt_chars=st.one_of(st.none(), st.integers(min_value=10, max_value=60)),
    ),
)
def test_tiny_budgets_keep_the_trail_whole(case: tuple[DAG, str], seed: int, config: TrailConfig) -> None:
    dag, terminal = case
    verifier = NarrowingVerifier(seed)
    result = VeriTrail(verifier, config).verify(dag, Claim(id="c", text="a claim"), terminal)
    iterations = result.iterations
    assert verifier.largest_prompt <= (config.max_prompt_chars or verifier.largest_prompt)
    checked_by = [set().union(*(it.checked for it in iterations[: i + 1])) for i in range(len(iterations) + 1)]
    checked_by[-1] = checked_by[-2]

    # No node is read twice: each is checked once, roots are never shown again (not even to
    # re-selection), and other sentences only to the re-selections of their own iteration.
    checked = [n for it in iterations for n in it.checked]
    assert len(checked) == len(set(checked))
    for sentence_id, times in verifier.times_shown.items():
        node_id = sentence_id.rsplit("#", 1)[0]
        assert times <= (1 if dag.is_root(node_id) else 1 + config.max_reselections)
    for it in iterations:
        reselected = {n for b in it.batches if b.reselection for n in b.node_ids}
        assert not any(dag.is_root(n) for n in reselected)
        assert reselected <= set(it.checked) and it.reselections <= config.max_reselections

    for i, it in enumerate(iterations):
        # Nodes shown to the verdict and nodes left out of it are together the nodes with evidence.
        shown = [n for e in it.excerpts for n in e.nodes]
        assert {e.node_id for e in it.evidence} == set(it.nodes_with_evidence)
        assert sorted(shown + it.omitted_from_verdict) == sorted(it.nodes_with_evidence)
        assert _fits(it.excerpts, dag, config)
        if config.max_prompt_chars is not None:
            assert sum(len(e.text) for e in it.excerpts) <= config.max_prompt_chars
            event(f"abridged: {any(e.abridged for e in it.excerpts)}, cut: {any(b.cut for b in it.batches)}")
        assert {s.id for s in it.context} <= verifier.shown
        if it.evidence:
            event(
                f"omitted: {'roots' if any(dag.is_root(n) for n in it.omitted_from_verdict) else ''}"
                f" {'summaries' if any(not dag.is_root(n) for n in it.omitted_from_verdict) else ''}"
            )
            first_reading = sum(len(b.selected) for b in it.batches if not b.reselection)
            narrowed = len([s for s in it.evidence if s.node_id not in it.carried_roots]) < first_reading
            event(f"reselections: {it.reselections}{', narrowed' if narrowed else ''}")

        # Every node that yielded evidence is expanded (after Fully Supported or Inconclusive)...
        expanded = it.nodes_with_evidence if it.verdict is not Verdict.NOT_FULLY_SUPPORTED else it.checked
        stopped_by_q = i == len(iterations) - 1 and result.stop_reason is StopReason.NOT_SUPPORTED_LIMIT
        if not stopped_by_q:
            for node_id in expanded:
                assert set(dag.src(node_id)) <= checked_by[i + 1]
        # ...and a root that yielded evidence is carried, with that evidence, into every later verdict.
        for root in (n for n in it.nodes_with_evidence if dag.is_root(n)):
            mine = [s for s in it.evidence if s.node_id == root]
            for later in iterations[i + 1 :]:
                assert root in later.carried_roots
                assert [s for s in later.evidence if s.node_id == root] == mine

    if result.verdict is Verdict.NOT_FULLY_SUPPORTED:
        supported = [it for it in iterations if it.verdict is Verdict.FULLY_SUPPORTED]
        if supported:
            assert result.error_stages
            assert result.error_stages == sorted(
                {dag.stage(n) for n in supported[-1].nodes_with_evidence if not dag.is_root(n)}
            )
