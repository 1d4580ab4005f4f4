"""Support found only in an intermediate output whose inputs were read already, none of them with
evidence: the trail has no node left to check. The paper's rule makes the claim Not Fully
Supported. A verifier that abstains without evidence and keeps such claims apart judges it as it
judges a claim no node yields evidence for, against the texts that output was made from: the
verdict of a claim its sources yield nothing for does not hang on whether a sub-community report
repeated it."""

from __future__ import annotations

from scripted import ScriptedVerifier

from veritrail_graphrag import Claim, Verdict
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.engine import VeriTrail
from veritrail_graphrag.models import Excerpt, SupportGap, VerdictResult


class Judges(ScriptedVerifier):
    """Answers `answer` without evidence, recording the nodes it was shown each time."""

    def __init__(self, marker: str, answer: VerdictResult, keeps: bool = True) -> None:
        super().__init__(marker)
        self.answer = answer
        self.keeps_untraced_inconclusive = keeps
        self.told: list[list[str]] = []

    async def judge_without_evidence(self, claim: Claim, checked: list[Excerpt]) -> VerdictResult:
        self.told.append([e.node_id for e in checked])
        return self.answer


class PaperRule(ScriptedVerifier):
    """Selects and judges as scripted; no judgement without evidence (the paper's verifier)."""


_INTERPRETATION = "This heart of the village underscores the community's warmth."
_ABSTAINS = VerdictResult(verdict=Verdict.INCONCLUSIVE, reasoning="interpretation a reviewer can judge", score=0.5)
_MISSING = VerdictResult(
    verdict=Verdict.NOT_FULLY_SUPPORTED,
    reasoning="missing name check: 'Whitby' in none of the nodes checked",
    score=0.1,
    gaps=[SupportGap(text="Whitby", start=40, end=46, why="a name in none of the nodes checked")],
)


def _dag() -> DAG:
    """report:top <- entity, relationship, report:sub; report:sub <- the same entity and
    relationship only, so its inputs are all read in the first iteration."""
    nodes = [
        Node(id="unit:1", text="Ann ran the mill at Selby.", stage=1),
        Node(id="entity:ANN", text="Ann is a miller.", stage=2),
        Node(id="relationship:ANN->SELBY", text="Ann lives in Selby.", stage=2),
        Node(id="report:sub", text="The mill is the heart of the village at Whitby.", stage=3),
        Node(id="report:top", text="Selby's mill is its heart.", stage=4),
    ]
    edges = [
        ("unit:1", "entity:ANN"),
        ("unit:1", "relationship:ANN->SELBY"),
        ("entity:ANN", "report:sub"),
        ("relationship:ANN->SELBY", "report:sub"),
        ("entity:ANN", "report:top"),
        ("relationship:ANN->SELBY", "report:top"),
        ("report:sub", "report:top"),
    ]
    return DAG.from_records(nodes, edges)


def test_an_interpretation_only_a_sub_report_repeats_stays_inconclusive() -> None:
    verifier = Judges("heart of the village", _ABSTAINS)
    result = VeriTrail(verifier).verify(_dag(), Claim(id="c1", text=_INTERPRETATION), "report:top")
    assert [i.verdict for i in result.iterations] == [Verdict.FULLY_SUPPORTED]
    assert verifier.told == [["entity:ANN", "relationship:ANN->SELBY"]]
    assert result.verdict is Verdict.INCONCLUSIVE and result.not_traced
    assert result.error_stages == []
    assert "found support only in intermediate outputs (stage 3)" in result.reasoning
    assert "interpretation a reviewer can judge" in result.reasoning
    assert result.score == 0.5


def test_a_name_the_inputs_lack_is_still_flagged_with_its_reason() -> None:
    verifier = Judges("heart of the village", _MISSING)
    claim = Claim(id="c1", text="The mill is the heart of the village at Whitby.")
    result = VeriTrail(verifier).verify(_dag(), claim, "report:top")
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED and not result.not_traced
    assert result.error_stages == [3]
    assert "'Whitby' in none of the nodes checked" in result.reasoning
    assert result.gaps == _MISSING.gaps


def test_the_papers_rule_holds_for_a_verifier_that_does_not_keep_such_claims() -> None:
    for verifier in (Judges("heart of the village", _ABSTAINS, keeps=False), PaperRule("heart of the village")):
        result = VeriTrail(verifier).verify(_dag(), Claim(id="c1", text=_INTERPRETATION), "report:top")
        assert result.verdict is Verdict.NOT_FULLY_SUPPORTED and result.error_stages == [3]
        assert getattr(verifier, "told", []) == []
