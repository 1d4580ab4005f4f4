"""A verifier that reads some languages is never shown a node it cannot compare with the claim; the
claim is Inconclusive instead, decided before Evidence Selection, and its result says why."""

from __future__ import annotations

from scripted import ScriptedVerifier

from veritrail_graphrag import Claim, Verdict
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.engine import VeriTrail
from veritrail_graphrag.models import Excerpt, VerdictResult

ENGLISH_UNIT = "The Ouse mill ground wheat for the village of Selby until the year 1921."
JAPANESE_UNIT = "ウーズ川の水車小屋は一九二一年までセルビー村のために小麦を挽いていた。"
KOREAN_UNIT = "우즈 강의 방앗간은 1921년까지 셀비 마을을 위해 밀을 빻았다."
DESCRIPTION = "The Ouse mill ground wheat for the village of Selby until 1921, its keepers say."
REPORT = "# The Ouse mill\n\nThe Ouse mill ground wheat for Selby until 1921."


class Reads(ScriptedVerifier):
    """A scripted verifier that declares the languages it reads, as the offline ones do."""

    languages = frozenset({"en"})


def _dag(units: dict[str, str]) -> DAG:
    nodes = [Node(id=n, text=t, stage=1) for n, t in units.items()]
    nodes += [Node(id="description", text=DESCRIPTION, stage=3), Node(id="report", text=REPORT, stage=4)]
    return DAG.from_records(nodes, [*((n, "description") for n in units), ("description", "report")])


def _supported_by_mill(excerpts: list[Excerpt]) -> Verdict:
    return Verdict.FULLY_SUPPORTED if any("mill" in e.text for e in excerpts) else Verdict.NOT_FULLY_SUPPORTED


CLAIM = Claim(id="c1", text="The Ouse mill ground wheat for Selby until 1921.")


def test_evidence_in_another_language_is_not_read_and_the_claim_is_inconclusive() -> None:
    verifier = Reads("mill", _supported_by_mill)
    result = VeriTrail(verifier).verify(_dag({"unit-ja": JAPANESE_UNIT}), CLAIM, "report")
    assert verifier.nodes_read() == ["description"]  # the Japanese unit was never shown
    assert len(verifier.judge_calls) == 1
    assert result.language == "en"
    assert result.verdict is Verdict.INCONCLUSIVE and result.error_stages == []
    assert result.interim_verdicts == [Verdict.FULLY_SUPPORTED, Verdict.INCONCLUSIVE]
    assert result.iterations[-1].not_read == {"ja": ["unit-ja"]} and result.iterations[-1].checked == []
    assert "English" in result.reasoning and "Japanese" in result.reasoning and "--verifier llm" in result.reasoning
    assert result.unread_languages == ["ja"]


def test_a_claim_in_a_language_the_verifier_does_not_read_costs_no_call() -> None:
    verifier = Reads("moulin", _supported_by_mill)
    claim = Claim(id="c1", text="Le moulin de l'Ouse a moulu le blé de Selby jusqu'en 1921.")
    result = VeriTrail(verifier).verify(_dag({"unit-en": ENGLISH_UNIT}), claim, "report")
    assert verifier.selection_calls == [] and verifier.judge_calls == []
    assert result.language == "fr" and result.verdict is Verdict.INCONCLUSIVE
    assert result.iterations[0].not_read == {"en": ["description"]}
    assert "French, which this verifier does not read (it reads English)" in result.reasoning
    assert result.unread_languages == ["en"]


def test_a_mixed_corpus_reads_the_nodes_in_the_claims_language() -> None:
    verifier = Reads("mill", _supported_by_mill)
    result = VeriTrail(verifier).verify(_dag({"unit-en": ENGLISH_UNIT, "unit-ko": KOREAN_UNIT}), CLAIM, "report")
    assert sorted(set(verifier.nodes_read())) == ["description", "unit-en"]
    assert result.verdict is Verdict.FULLY_SUPPORTED
    assert result.iterations[-1].not_read == {"ko": ["unit-ko"]}
    assert not result.not_checked_for_language


def test_no_support_in_what_could_be_read_is_no_verdict_when_the_rest_was_not_read() -> None:
    def only_the_description(excerpts: list[Excerpt]) -> Verdict:
        return (
            Verdict.FULLY_SUPPORTED
            if any(e.node_id == "description" for e in excerpts)
            else Verdict.NOT_FULLY_SUPPORTED
        )

    verifier = Reads("Ouse", only_the_description)
    result = VeriTrail(verifier).verify(_dag({"unit-en": ENGLISH_UNIT, "unit-ko": KOREAN_UNIT}), CLAIM, "report")
    assert result.verdict is Verdict.INCONCLUSIVE
    assert result.iterations[-1].checked == ["unit-en"] and result.iterations[-1].not_read == {"ko": ["unit-ko"]}
    assert result.reasoning.startswith("What it could read did not fully support the claim; 1 node(s) in Korean")


def test_a_verifier_that_declares_no_languages_is_shown_every_node() -> None:
    verifier = ScriptedVerifier("mill", _supported_by_mill)
    result = VeriTrail(verifier).verify(_dag({"unit-ja": JAPANESE_UNIT}), CLAIM, "report")
    assert set(verifier.nodes_read()) == {"description", "unit-ja"}
    assert result.language == "en" and all(not it.not_read for it in result.iterations)


def test_support_not_traced_to_a_source_that_was_not_read_is_no_flag() -> None:
    """Support in an English intermediate node whose source is Japanese: the trail ends there,
    which would be Not Fully Supported (never traced to the source) were the source not unread."""
    nodes = [
        Node(id="unit-ja", text=JAPANESE_UNIT, stage=1),
        Node(id="extraction", text=DESCRIPTION, stage=2),
        Node(id="description", text=DESCRIPTION, stage=3),
        Node(id="report", text=REPORT, stage=4),
    ]
    edges = [
        ("unit-ja", "extraction"),
        ("unit-ja", "description"),
        ("extraction", "description"),
        ("description", "report"),
    ]
    verifier = Reads("mill", _supported_by_mill)
    result = VeriTrail(verifier).verify(DAG.from_records(nodes, edges), CLAIM, "report")
    assert result.interim_verdicts == [Verdict.FULLY_SUPPORTED, Verdict.FULLY_SUPPORTED]
    assert result.iterations[-1].not_read == {"ja": ["unit-ja"]}
    assert result.verdict is Verdict.INCONCLUSIVE and result.error_stages == []
    assert result.reasoning.startswith("Support was found in what could be read (stage 2) but not traced to the source")
    assert result.unread_languages == ["ja"]


def _sub_reports_over_an_unread_unit() -> DAG:
    """report <- description, sub; sub <- description, sub-sub; sub-sub <- description; the
    description's only input is a Japanese unit."""
    nodes = [
        Node(id="unit-ja", text=JAPANESE_UNIT, stage=1),
        Node(id="description", text=DESCRIPTION, stage=3),
        Node(id="sub-sub", text=REPORT, stage=4),
        Node(id="sub", text=REPORT, stage=4),
        Node(id="report", text=REPORT, stage=4),
    ]
    edges = [("unit-ja", "description"), ("description", "sub-sub"), ("description", "sub"), ("sub-sub", "sub")]
    edges += [("description", "report"), ("sub", "report")]
    return DAG.from_records(nodes, edges)


def test_support_traced_to_a_sub_report_beside_an_unread_source_is_no_flag() -> None:
    """From the description's support the trail went on to its Japanese unit (not read) and, from
    the sub-report's, to a sub-sub-report (read, supported, made from the description already
    read): it ends with no candidates, but the way to the source led through the unit."""
    verifier = Reads("mill", _supported_by_mill)
    result = VeriTrail(verifier).verify(_sub_reports_over_an_unread_unit(), CLAIM, "report")
    assert [it.checked for it in result.iterations] == [["description", "sub"], ["sub-sub"]]
    assert result.iterations[-1].not_read == {"ja": ["unit-ja"]}
    assert result.interim_verdicts == [Verdict.FULLY_SUPPORTED, Verdict.FULLY_SUPPORTED]
    assert result.verdict is Verdict.INCONCLUSIVE and result.unread_languages == ["ja"]
    assert "Japanese" in result.reasoning and result.error_stages == []


def test_support_that_leads_to_read_sources_only_is_still_not_traced() -> None:
    """A Japanese unit left unread beside the evidence excuses nothing: the English description that
    supports the claim was made from an English unit, already read, that holds no support."""
    unit_en = "The Ouse floods the lower meadows of Selby every spring."
    nodes = [
        Node(id="unit-ja", text=JAPANESE_UNIT, stage=1),
        Node(id="unit-en", text=unit_en, stage=1),
        Node(id="description", text=DESCRIPTION, stage=3),
        Node(id="report", text=REPORT, stage=4),
    ]
    edges = [("unit-en", "description"), ("unit-en", "report"), ("unit-ja", "report"), ("description", "report")]
    verifier = Reads("mill", _supported_by_mill)
    result = VeriTrail(verifier).verify(DAG.from_records(nodes, edges), CLAIM, "report")
    assert result.interim_verdicts == [Verdict.FULLY_SUPPORTED]
    assert result.iterations[0].not_read == {"ja": ["unit-ja"]}
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED and result.unread_languages == []


def test_support_whose_source_was_left_unread_an_iteration_before_is_no_flag() -> None:
    """The unread source of the supporting sub-report is also a source of the report itself: it was
    left unread (for its language) in the first iteration, beside the sub-report, so the trail has
    no candidate left after the sub-report's support. The way to the source led through it all the
    same: Inconclusive for language, not a flag for support never traced to the source."""
    nodes = [
        Node(id="unit-ja", text=JAPANESE_UNIT, stage=1),
        Node(id="sub", text=REPORT, stage=4),
        Node(id="report", text=REPORT, stage=4),
    ]
    edges = [("unit-ja", "sub"), ("unit-ja", "report"), ("sub", "report")]
    verifier = Reads("mill", _supported_by_mill)
    result = VeriTrail(verifier).verify(DAG.from_records(nodes, edges), CLAIM, "report")
    assert [it.checked for it in result.iterations] == [["sub"]]
    assert result.iterations[0].not_read == {"ja": ["unit-ja"]}
    assert result.interim_verdicts == [Verdict.FULLY_SUPPORTED]
    assert result.verdict is Verdict.INCONCLUSIVE and result.unread_languages == ["ja"]
    assert "Japanese" in result.reasoning and result.error_stages == []


class ReadsAndAbstains(Reads):
    """Reads English only, abstains without evidence and keeps untraced claims apart, as `facts`."""

    keeps_untraced_inconclusive = True

    def __init__(self) -> None:
        super().__init__("mill", _supported_by_mill)
        self.told: list[list[str]] = []

    async def judge_without_evidence(self, claim: Claim, checked: list[Excerpt]) -> VerdictResult:
        self.told.append([e.node_id for e in checked])
        return VerdictResult(verdict=Verdict.INCONCLUSIVE, reasoning="interpretation a reviewer can judge")


def test_support_that_led_to_an_unread_source_keeps_the_language_as_its_reason() -> None:
    """The same trail with a verifier that would judge a claim supported only by intermediate
    outputs: the support led to a source it cannot read, so the language is the reason, and it is
    not asked to judge."""
    verifier = ReadsAndAbstains()
    result = VeriTrail(verifier).verify(_sub_reports_over_an_unread_unit(), CLAIM, "report")
    assert result.interim_verdicts == [Verdict.FULLY_SUPPORTED, Verdict.FULLY_SUPPORTED]
    assert verifier.told == []
    assert result.verdict is Verdict.INCONCLUSIVE and result.unread_languages == ["ja"]
    assert "Japanese" in result.reasoning
