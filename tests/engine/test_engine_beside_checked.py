"""A verifier that judges a claim without evidence is told when the nodes it was shown are only the
rest of inputs checked in part before: a sub-community report reached after its parent has inputs
that are its parent's too, read with the parent's, and a few of its own (the relationships it
cites to other communities)."""

from __future__ import annotations

from scripted import ScriptedVerifier

from veritrail_graphrag import Claim, Verdict
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.engine import VeriTrail
from veritrail_graphrag.models import Excerpt, VerdictResult


class Abstains(ScriptedVerifier):
    """Inconclusive without evidence, recording what it was told each time, and kept so when the
    trail runs out of nodes (as the facts verifier does)."""

    keeps_untraced_inconclusive = True

    def __init__(self, marker: str) -> None:
        super().__init__(marker)
        self.told: list[tuple[list[str], set[str]]] = []

    async def judge_without_evidence(self, claim: Claim, checked: list[Excerpt]) -> VerdictResult:
        self.told.append(([e.node_id for e in checked], {e.node_id for e in checked if e.beside_checked}))
        return VerdictResult(verdict=Verdict.INCONCLUSIVE, reasoning="scripted abstention")


def _dag() -> DAG:
    """report <- entity, relationship, sub-report; sub-report <- entity, relationship, cited edge."""
    nodes = [
        Node(id="unit:1", text="Ann ran the mill at Selby.", stage=1),
        Node(id="unit:2", text="Bo kept the ferry.", stage=1),
        Node(id="entity:ANN", text="Ann is a miller.", stage=2),
        Node(id="relationship:ANN->SELBY", text="Ann lives in Selby.", stage=2),
        Node(id="relationship:BO->FERRY", text="Bo keeps the ferry.", stage=2),
        Node(id="report:sub", text="The miller's mill at Selby is the heart of the village.", stage=3),
        Node(id="report:top", text="Selby's mill is its heart.", stage=3),
    ]
    edges = [
        ("unit:1", "entity:ANN"),
        ("unit:1", "relationship:ANN->SELBY"),
        ("unit:2", "relationship:BO->FERRY"),
        ("entity:ANN", "report:sub"),
        ("relationship:ANN->SELBY", "report:sub"),
        ("relationship:BO->FERRY", "report:sub"),
        ("entity:ANN", "report:top"),
        ("relationship:ANN->SELBY", "report:top"),
        ("report:sub", "report:top"),
    ]
    return DAG.from_records(nodes, edges)


def test_the_rest_of_a_sub_reports_inputs_is_judged_as_such() -> None:
    """Iteration 1 reads the top report's inputs; only the sub-report holds the claim. Its inputs
    are the top report's too, but for its cited edge: iteration 2 holds that edge alone, and the
    verifier is told so."""
    verifier = Abstains("heart of the village")
    claim = Claim(id="c1", text="The mill is the heart of the village.")
    result = VeriTrail(verifier).verify(_dag(), claim, "report:top")
    assert [i.checked for i in result.iterations][:2] == [
        ["entity:ANN", "relationship:ANN->SELBY", "report:sub"],
        ["relationship:BO->FERRY"],
    ]
    assert verifier.told == [(["relationship:BO->FERRY"], {"relationship:BO->FERRY"})]
    assert result.verdict is Verdict.INCONCLUSIVE and result.not_traced


def test_inputs_all_new_are_not_beside_anything() -> None:
    """Iteration 2 reads the entity's own input, none of it checked before: no evidence there is
    judged as usual."""
    verifier = Abstains("a miller")
    claim = Claim(id="c1", text="Ann is a miller.")
    result = VeriTrail(verifier).verify(_dag(), claim, "report:top")
    assert [i.checked for i in result.iterations][1] == ["unit:1"]
    assert verifier.told == [(["unit:1"], set())]


def test_the_rest_read_beside_new_inputs_is_named_apart() -> None:
    """The entity and the sub-report both hold the claim: iteration 2 reads the entity's source
    chunk, all new, and the sub-report's cited edge, the rest of its inputs; the verifier is told
    which is which."""
    verifier = Abstains("miller")
    claim = Claim(id="c1", text="Ann is the miller of Selby.")
    result = VeriTrail(verifier).verify(_dag(), claim, "report:top")
    assert result.iterations[0].nodes_with_evidence == ["entity:ANN", "report:sub"]
    assert verifier.told == [(["unit:1", "relationship:BO->FERRY"], {"relationship:BO->FERRY"})]
