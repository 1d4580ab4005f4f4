"""Prompt packing, the verdict input limit, invented ids and failing verifiers."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from scripted import ScriptedVerifier

from veritrail_graphrag import DAG, Claim, ClaimsError, TrailConfig, Verdict, VerifierError, VeriTrail
from veritrail_graphrag.engine.batching import pack_nodes, shorten
from veritrail_graphrag.models import Sentence
from veritrail_graphrag.verifiers import EvidenceSelection, VerdictResult
from veritrail_graphrag.verifiers.base import KeepsClaimState


def star(n_inputs: int, sentences_each: int, marked: bool = True) -> DAG:
    """`n_inputs` summaries (stage 2) of one chunk each, feeding one final node."""
    nodes = [{"id": "final", "stage": 3, "text": "Final answer."}]
    edges = []
    for i in range(n_inputs):
        text = " ".join(
            f"Summary {i} sentence {j} MARK." if marked else f"Summary {i} sentence {j}." for j in range(sentences_each)
        )
        nodes += [{"id": f"s{i}", "stage": 2, "text": text}, {"id": f"c{i}", "stage": 1, "text": text}]
        edges += [(f"c{i}", f"s{i}"), (f"s{i}", "final")]
    return DAG.from_records(nodes, edges)


def sentences(node: str, n: int, version: str = "") -> list[Sentence]:
    return [Sentence(id=f"{node}#{i}", node_id=node, index=i, text=f"{node} {i}{version}") for i in range(n)]


def test_pack_keeps_nodes_whole_when_they_fit() -> None:
    batches = pack_nodes([sentences("a", 3), sentences("b", 3), sentences("c", 5)], limit=6)
    assert all(len(b) <= 6 for b in batches)
    for node in "abc":  # each node in exactly one batch
        assert sum(any(s.node_id == node for s in b) for b in batches) == 1


def test_pack_is_stable_when_an_unrelated_node_changes() -> None:
    """Between two index versions only the batches near a changed node change their prompts."""
    sizes = [1 + (i * 7) % 5 for i in range(80)]
    before = [sentences(f"n{i}", size) for i, size in enumerate(sizes)]
    after = [sentences(f"n{i}", size + (i == 40), "'" if i == 40 else "") for i, size in enumerate(sizes)]
    batch_texts = [{tuple(s.text for s in b) for b in pack_nodes(nodes, limit=12)} for nodes in (before, after)]
    unchanged = batch_texts[0] & batch_texts[1]
    assert len(batch_texts[0]) >= 15
    assert len(batch_texts[0] - unchanged) <= 3  # the changed node's batch and its neighbours at most
    average_fill = sum(sizes) / len(batch_texts[0])
    assert average_fill >= 6  # content boundaries cost calls: still at least half full on average


def test_pack_splits_only_nodes_longer_than_the_limit() -> None:
    batches = pack_nodes([sentences("a", 2), sentences("big", 9)], limit=4)
    assert all(len(b) <= 4 for b in batches)
    assert sum(any(s.node_id == "a" for s in b) for b in batches) == 1
    assert sum(any(s.node_id == "big" for s in b) for b in batches) == 3  # 9 sentences, 4 per prompt


def test_evidence_selection_prompts_respect_the_sentence_limit_and_run_concurrently() -> None:
    in_flight = 0
    peak = 0

    class Slow(ScriptedVerifier):
        async def select_evidence(self, claim: Claim, batch: list[Sentence]) -> EvidenceSelection:
            nonlocal in_flight, peak
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.01)
            in_flight -= 1
            return await super().select_evidence(claim, batch)

    verifier = Slow("MARK")
    VeriTrail(verifier, TrailConfig(max_sentences_per_prompt=7, max_verdict_sentences=10_000)).verify(
        star(12, 5), Claim(id="c", text="MARK")
    )
    first_iteration = verifier.selection_calls[:12]
    assert all(len(batch) <= 7 for batch in verifier.selection_calls)
    assert sum(len(b) for b in first_iteration) == 60
    assert peak > 1


def test_concurrency_limit_is_shared_across_claims() -> None:
    in_flight = 0
    peak = 0

    class Counting(ScriptedVerifier):
        async def select_evidence(self, claim: Claim, batch: list[Sentence]) -> EvidenceSelection:
            nonlocal in_flight, peak
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.005)
            in_flight -= 1
            return await super().select_evidence(claim, batch)

    engine = VeriTrail(Counting("MARK"), TrailConfig(concurrency=3, max_sentences_per_prompt=2))
    claims = [Claim(id=f"c{i}", text="MARK") for i in range(5)]
    results = asyncio.run(engine.averify_many(star(6, 2), claims))
    assert [r.claim.id for r in results] == [c.id for c in claims]
    assert peak == 3


def test_verdict_limit_triggers_reselection_on_selected_evidence() -> None:
    class Narrowing(ScriptedVerifier):
        async def select_evidence(self, claim: Claim, batch: list[Sentence]) -> EvidenceSelection:
            if all(s.text.endswith("MARK.") for s in batch) and len(self.selection_calls) >= 4:
                self.selection_calls.append(batch)
                keep = [s for s in batch if s.index == 0]  # reselection keeps one sentence per node
                return EvidenceSelection(selected=[s.id for s in keep], summary="; ".join(s.text for s in keep))
            return await super().select_evidence(claim, batch)

    dag = star(4, 5)
    verifier = Narrowing("MARK")
    config = TrailConfig(max_sentences_per_prompt=5, max_verdict_sentences=8)
    result = VeriTrail(verifier, config).verify(dag, Claim(id="c", text="MARK"))
    first = result.iterations[0]
    assert first.reselections == 1
    assert any(b.reselection for b in first.batches)
    assert len(first.evidence) == 4
    assert sum(len(e.text.split(". ")) for e in first.excerpts) <= 8


def test_largest_fitting_subset_when_reselection_cannot_shrink() -> None:
    dag = star(4, 5)
    config = TrailConfig(max_sentences_per_prompt=5, max_verdict_sentences=12, max_reselections=2)
    verifier = ScriptedVerifier("MARK")
    result = VeriTrail(verifier, config).verify(dag, Claim(id="c", text="MARK"))
    first = result.iterations[0]
    assert first.reselections == 1  # the scripted verifier selects everything again: no progress, stop
    assert len(first.excerpts) == 2  # one prompt per node, 5 sentences each: two fit in 12
    assert sorted(first.omitted_from_verdict) == ["s2", "s3"]
    assert first.nodes_with_evidence == ["s0", "s1", "s2", "s3"]  # left out of the verdict, not of the trail
    assert result.iterations[1].checked == ["c0", "c1", "c2", "c3"]


def test_ids_that_were_never_assigned_are_discarded() -> None:
    class Inventing(ScriptedVerifier):
        async def select_evidence(self, claim: Claim, batch: list[Sentence]) -> EvidenceSelection:
            answer = await super().select_evidence(claim, batch)
            return EvidenceSelection(
                selected=[*answer.selected, "s9#99", "nonsense"], context=["x#1"], summary=answer.summary
            )

    result = VeriTrail(Inventing("MARK")).verify(star(2, 2), Claim(id="c", text="MARK"))
    assigned = {f"{n}#{i}" for n in ("s0", "s1", "c0", "c1") for i in range(2)}
    for it in result.iterations:
        assert {e.id for e in it.evidence} <= assigned
        assert all("nonsense" in b.discarded for b in it.batches)


def test_verifier_that_raises_names_the_claim_and_nodes() -> None:
    class Broken(ScriptedVerifier):
        async def judge(self, claim, excerpts):  # type: ignore[no-untyped-def]
            raise ConnectionError("model exploded")

    with pytest.raises(VerifierError) as info:
        VeriTrail(Broken("MARK")).verify(star(2, 1), Claim(id="claim-7", text="MARK"))
    assert "claim-7" in str(info.value) and "verdict generation" in str(info.value)
    assert "model exploded" in str(info.value)
    assert info.value.node_ids == ["s0", "s1"]


def test_a_bug_in_the_verifier_is_raised_as_itself_naming_the_claim() -> None:
    class Buggy(ScriptedVerifier):
        async def judge(self, claim, excerpts):  # type: ignore[no-untyped-def]
            return excerpts[99]

    with pytest.raises(IndexError) as info:
        VeriTrail(Buggy("MARK")).verify(star(2, 1), Claim(id="claim-7", text="MARK"))
    assert any("claim 'claim-7'" in note and "not a claim to retry" in note for note in info.value.__notes__)


def test_verifier_returning_the_wrong_type_is_an_error() -> None:
    class Wrong(ScriptedVerifier):
        async def judge(self, claim, excerpts):  # type: ignore[no-untyped-def]
            return {"verdict": "Maybe"}

    with pytest.raises(TypeError, match="expected VerdictResult"):
        VeriTrail(Wrong("MARK")).verify(star(1, 1), Claim(id="c", text="MARK"))


def test_dict_answers_that_validate_are_accepted() -> None:
    class Dicts(ScriptedVerifier):
        async def judge(self, claim, excerpts):  # type: ignore[no-untyped-def]
            return {"verdict": "Fully Supported", "reasoning": "ok"}

    result = VeriTrail(Dicts("MARK")).verify(star(1, 1), Claim(id="c", text="MARK"))
    assert result.verdict is Verdict.FULLY_SUPPORTED


def test_no_evidence_means_not_fully_supported_without_a_judge_call() -> None:
    verifier = ScriptedVerifier("MARK")
    result = VeriTrail(verifier).verify(star(3, 2, marked=False), Claim(id="c", text="MARK"))
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert verifier.judge_calls == []
    assert result.error_stages == [3]


def test_explicit_terminal_among_several_sinks() -> None:
    nodes = [
        {"id": "a", "stage": 1, "text": "MARK a."},
        {"id": "r1", "stage": 2, "text": "MARK r1."},
        {"id": "r2", "stage": 2, "text": "r2."},
    ]
    dag = DAG.from_records(nodes, [("a", "r1"), ("a", "r2")])
    engine = VeriTrail(ScriptedVerifier("MARK"))
    with pytest.raises(Exception, match="2 terminal nodes"):
        engine.verify(dag, Claim(id="c", text="MARK"))
    result = engine.verify(dag, Claim(id="c", text="MARK"), terminal="r1")
    assert result.terminal == "r1" and result.verdict is Verdict.FULLY_SUPPORTED


def test_result_round_trips_through_json() -> None:
    from veritrail_graphrag import ClaimResult

    result = VeriTrail(ScriptedVerifier("MARK")).verify(star(2, 2), Claim(id="c", text="MARK"))
    data = result.model_dump_json()
    assert '"interim_verdicts"' in data and '"nodes_read"' in data
    again = ClaimResult.model_validate_json(data)
    assert again.verdict is result.verdict and again.iterations == result.iterations


def test_scores_flow_from_the_verdict() -> None:
    class Scoring(ScriptedVerifier):
        async def judge(self, claim, excerpts):  # type: ignore[no-untyped-def]
            return VerdictResult(verdict=Verdict.FULLY_SUPPORTED, reasoning="r", score=0.9)

    result = VeriTrail(Scoring("MARK")).verify(star(1, 1), Claim(id="c", text="MARK"))
    assert result.score == 0.9


def test_one_summary_shared_by_nodes_of_one_prompt_is_given_once() -> None:
    verifier = ScriptedVerifier("MARK")
    config = TrailConfig(max_verdict_sentences=1000, max_sentences_per_prompt=1000)  # one prompt for all three
    result = VeriTrail(verifier, config).verify(star(3, 2), Claim(id="c", text="M"))
    (excerpt,) = verifier.judge_calls[0]
    assert excerpt.covers == ["s0", "s1", "s2"] and excerpt.nodes == ["s0", "s1", "s2"]
    assert result.iterations[0].nodes_with_evidence == ["s0", "s1", "s2"]


def test_roots_do_not_count_against_the_summary_limit() -> None:
    """Three long source chunks, each with a needed fact: all reach the verdict (the paper's section 3.1.3)."""
    nodes = [{"id": "final", "stage": 2, "text": "Final."}]
    for i in range(3):
        text = " ".join([f"Filler sentence {j}." for j in range(99)] + [f"Fact {i} MARK."])
        nodes.append({"id": f"chunk{i}", "stage": 1, "text": text})
    dag = DAG.from_records(nodes, [(f"chunk{i}", "final") for i in range(3)])
    verifier = ScriptedVerifier(
        "MARK", rule=lambda ex: Verdict.FULLY_SUPPORTED if len(ex) == 3 else Verdict.NOT_FULLY_SUPPORTED
    )
    result = VeriTrail(verifier).verify(dag, Claim(id="c", text="MARK"))
    first = result.iterations[0]
    assert first.reselections == 0 and first.omitted_from_verdict == []
    assert result.verdict is Verdict.FULLY_SUPPORTED


def test_roots_beyond_the_context_budget_are_cut_smallest_first() -> None:
    nodes = [{"id": "final", "stage": 2, "text": "Final."}]
    for i, length in enumerate((10, 30, 50)):
        nodes.append({"id": f"chunk{i}", "stage": 1, "text": " ".join(["MARK here."] * length)})
    dag = DAG.from_records(nodes, [(f"chunk{i}", "final") for i in range(3)])
    config = TrailConfig(max_verdict_root_sentences=45)
    result = VeriTrail(ScriptedVerifier("MARK"), config).verify(dag, Claim(id="c", text="MARK"))
    assert result.iterations[0].omitted_from_verdict == ["chunk2"]
    assert result.iterations[0].reselections == 0


def test_a_failing_claim_stops_its_sibling_calls() -> None:
    finished: list[str] = []

    class FailsFast(ScriptedVerifier):
        async def select_evidence(self, claim: Claim, batch: list[Sentence]) -> EvidenceSelection:
            if batch[0].node_id == "s0":
                raise ConnectionError("boom")
            await asyncio.sleep(0.05)
            finished.append(batch[0].node_id)
            return await super().select_evidence(claim, batch)

    with pytest.raises(VerifierError, match="boom"):
        VeriTrail(FailsFast("MARK"), TrailConfig(max_sentences_per_prompt=1)).verify(
            star(4, 1), Claim(id="c", text="M")
        )
    assert finished == []


def test_duplicate_claim_ids_are_refused_before_any_call() -> None:
    verifier = ScriptedVerifier("MARK")
    claims = [Claim(id=i, text="MARK") for i in ("a", "b", "a", "c", "b", "a")]
    with pytest.raises(ClaimsError, match=r"duplicate claim ids: 'a', 'b'$"):
        asyncio.run(VeriTrail(verifier).averify_many(star(1, 1), claims))
    assert verifier.decompose_calls == [] and verifier.selection_calls == []


def test_pack_respects_a_character_limit_and_keeps_nodes_whole_when_they_fit() -> None:
    nodes = [sentences("a", 3), sentences("b", 2), sentences("longer-node", 4)]
    batches = pack_nodes(nodes, limit=40, max_chars=20)
    assert all(sum(len(s.text) for s in b) <= 20 for b in batches)
    assert sum(any(s.node_id == "a" for s in b) for b in batches) == 1  # "a 0a 1a 2" fits whole
    assert [s.id for b in batches for s in b] == [s.id for n in nodes for s in n]


def test_shorten_cuts_only_sentences_longer_than_a_prompt() -> None:
    long = Sentence(id="x#0", node_id="x", index=0, text="word " * 100)
    (kept,), cut = shorten([[long, *sentences("x", 1)]], max_chars=30)
    assert cut == {"x#0"} and kept[0].text.endswith(" [...]") and len(kept[0].text) == 30
    assert kept[1].text == "x 0"
    assert shorten([[long]], None) == ([[long]], set())


def test_a_verifier_keeping_claim_state_reads_each_trail_inside_its_scope() -> None:
    """A verifier that keeps what it read for a claim (`KeepsClaimState`) is told when the
    claim's trail ends, also when it ends in a failure, so that it can let the claim go: kept for
    every claim of an index it was a seventh of an audit's memory."""
    events: list[tuple[str, str]] = []

    class Keeping(ScriptedVerifier):
        @contextmanager
        def reading(self, claim: Claim) -> Iterator[None]:
            events.append(("open", claim.id))
            try:
                yield
            finally:
                events.append(("close", claim.id))

        async def judge(self, claim, excerpts):  # type: ignore[no-untyped-def]
            events.append(("judge", claim.id))
            if claim.id == "broken":
                raise ConnectionError("model exploded")
            return await super().judge(claim, excerpts)

    verifier = Keeping("MARK")
    assert isinstance(verifier, KeepsClaimState)
    VeriTrail(verifier).verify(star(2, 1), Claim(id="c1", text="MARK"))
    assert events[0] == ("open", "c1") and events[-1] == ("close", "c1")
    assert ("judge", "c1") in events[1:-1]
    events.clear()
    with pytest.raises(VerifierError):
        VeriTrail(verifier).verify(star(2, 1), Claim(id="broken", text="MARK"))
    assert events == [("open", "broken"), ("judge", "broken"), ("close", "broken")]
