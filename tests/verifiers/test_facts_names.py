"""Issue 39: the facts verifier reads a name in all the forms real indexes write it, and compares
the claim only with sentences about what the claim is about. (Examples written for these tests,
in the shapes the wild indexes show.)"""

from __future__ import annotations

import pytest

from veritrail_graphrag.models import Claim, Excerpt, Verdict
from veritrail_graphrag.verifiers.facts.features import claim_facts
from veritrail_graphrag.verifiers.facts.judge import judge_facts, judge_without_evidence
from veritrail_graphrag.verifiers.facts.model import shipped_model
from veritrail_graphrag.verifiers.facts.verifier import FactsVerifier
from veritrail_graphrag.verifiers.lexical import LexicalConfig
from veritrail_graphrag.verifiers.lexical.text import analyze, camel_parts


async def judge(claim: str, *texts: str, is_root: bool = False):
    excerpts = [Excerpt(node_id=f"n{i}", text=t, is_root=is_root) for i, t in enumerate(texts)]
    return await FactsVerifier().judge(Claim(id="c1", text=claim), excerpts)


@pytest.mark.parametrize(
    ("word", "parts"),
    [
        ("SimpleDocumentIndexer", ["Simple", "Document", "Indexer"]),
        ("GraphRAG", ["Graph", "RAG"]),
        ("HTTPServer", ["HTTP", "Server"]),
        ("IDs", ["IDs"]),
        ("JONES", ["JONES"]),
        ("Scrooge", ["Scrooge"]),
    ],
)
def test_camel_case_names_are_read_as_their_words(word: str, parts: list[str]) -> None:
    assert camel_parts(word) == parts


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The DistributedRuntime hosts the worker agents.", "A distributed runtime hosts the worker agents."),
        ("The DISTRIBUTED_RUNTIME hosts the worker agents.", "The DistributedRuntime hosts the worker agents."),
        ("The distributed runtime hosts the worker agents.", "DISTRIBUTED_RUNTIME hosts the worker agents."),
        ("Every request carries the user IDs of the sender.", "Every request carries the user ID of the sender."),
        ("The harbour pilot Orla guides the MARLIN ships.", "The harbour pilot Orla guides the Marlin ships."),
    ],
)
async def test_a_name_matches_across_case_underscores_camel_case_and_plural(claim: str, evidence: str) -> None:
    result = await judge(claim, evidence)
    assert result.verdict is Verdict.FULLY_SUPPORTED, result.reasoning
    assert "not in the evidence" not in result.reasoning


async def test_not_just_asserts_and_denies_nothing() -> None:
    evidence = "Safety is a policy of the mill and part of the culture of its workers."
    result = await judge("Safety at the mill is not just a policy but part of the culture of its workers.", evidence)
    assert "negate" not in result.reasoning and result.verdict is not Verdict.NOT_FULLY_SUPPORTED


async def test_a_name_given_in_parentheses_is_another_name_for_the_one_before() -> None:
    evidence = "Photovoltaics are a renewable technology that the ministry supports."
    result = await judge("Photovoltaics (PV) are a renewable technology the ministry supports.", evidence)
    assert result.verdict is Verdict.FULLY_SUPPORTED, result.reasoning
    read = analyze("The yogi joins the Paramatman, the soul within.").key_set
    alone = judge_without_evidence("The Supersoul (Paramatman) is the goal of the yogi.", read, from_source=True)
    assert alone.verdict is Verdict.INCONCLUSIVE, alone.reasoning


async def test_an_acronym_standing_where_the_evidence_spells_it_out_is_no_missing_name() -> None:
    evidence = "Photovoltaic installations need a connection to the grid."
    assert (await judge("PV installations need a connection to the grid.", evidence)).verdict is Verdict.FULLY_SUPPORTED
    other = await judge("PV installations need a connection to the grid.", "Solar installations need a connection.")
    assert other.verdict is Verdict.INCONCLUSIVE and "'PV'" in other.reasoning


def test_a_name_that_does_something_has_no_qualifier_but_a_name_an_article_opens_has() -> None:
    """ "a London surgeon": the nodes name London but no surgeon; "JONES operates": what Jones does
    is the claim's verb, which may be the claim's paraphrase, not a changed name."""
    read = analyze("Jones lives in the tank. London was cold that year.").key_set
    selected = ["The tank is filled with fresh seawater."]

    def verdict(claim: str):
        return judge_facts(claim, selected, shipped_model(), LexicalConfig(), read, [False])

    assert "next to it" not in verdict("JONES operates the tank filled with fresh seawater.").reasoning
    surgeon = verdict("A London surgeon filled the tank with fresh seawater.")
    assert "'London' is in the nodes read, but not 'surgeon' next to it" in surgeon.reasoning


async def test_a_supposition_about_something_else_is_no_contradiction() -> None:
    evidence = "If they are not controlled, the weevils destroy the harvest. Traps catch the weevils."
    result = await judge("Traps are effective for controlling the weevils that destroy the harvest.", evidence)
    assert "supposition" not in result.reasoning


async def test_a_word_cut_short_is_no_changed_name() -> None:
    evidence = "Vell A, Rusk B. Harbour tides. Mar Soc Rev 12, 40-52."
    result = await judge("Vell's study of harbour tides appeared in Mar Social Rev.", evidence)
    assert "changed name" not in result.reasoning


@pytest.mark.parametrize(
    ("claim", "evidence", "quoted"),
    [
        (
            "The mill on the river opened in 1870.",
            "The mill on the river opened in 1850. Its wheel was made of oak.",
            "The mill on the river opened in 1850.",
        ),
        (  # the rules read the pipeline's record ids blanked; the quote starts after one, not inside it
            "The mill opened in 1870 with two wheels.",
            "The mill was built by the guild (entity no. 12). It opened in 1850 with two wheels.",
            "It opened in 1850 with two wheels.",
        ),
    ],
)
async def test_a_flag_names_its_check_and_quotes_the_sentence_it_compared(
    claim: str, evidence: str, quoted: str
) -> None:
    result = await judge(claim, evidence)
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert result.reasoning.startswith(
        "changed number check: the evidence gives another number where the claim says 1870; "
        f'the evidence says: "{quoted}"'
    )
    gap = next(g for g in result.gaps if g.text == "1870")
    assert (gap.check, gap.quote) == ("changed number", quoted)


async def test_a_denial_flag_quotes_the_sentence_closest_to_the_claim() -> None:
    evidence = "The mill on the river opened in 1850. The council rejected the plan for a second mill twice."
    result = await judge("The council did not reject the plan for a second mill.", evidence)
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert result.reasoning.startswith("denial check: ")
    assert 'the evidence says: "The council rejected the plan for a second mill twice."' in result.reasoning


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        (
            "The Game of Yes and No is a party game played at the Christmas party.",
            "It was a game called Yes and No, played at the Christmas party, where the nephew had to think.",
        ),
        (
            "The vision warns Scrooge of the fate he faces if he does not change his ways.",
            "The vision warns Scrooge of the fate he faces, and he resolves to change his ways.",
        ),
        (
            "Not all works can be distributed freely without the copyright holder's permission.",
            "The copyright holder's permission may be required before certain works are distributed.",
        ),
    ],
)
async def test_no_denial_flag_for_a_title_a_condition_or_a_quantifier(claim: str, evidence: str) -> None:
    """The fixture index's denial flags on "the Game of Yes and No", "if he does not change" and
    "not all works": none of these claims says that something is not so."""
    result = await judge(claim, evidence)
    assert not result.reasoning.startswith("denial check"), result.reasoning


async def test_a_claim_its_source_mostly_lacks_asks_for_a_look() -> None:
    """Commentary and paraphrase far from the source (most such claims of real reports, and all
    of a sample on a novel) are Inconclusive, not flagged; such a claim that brings names or
    numbers of its own, which no source node read holds, is flagged."""
    evidence = "The cooperative sells maize seed to farmers in the valley every spring."
    result = await judge(
        "The cooperative shapes regional policy, drives investment and fosters an enabling environment.",
        evidence,
        is_root=True,
    )
    assert result.verdict is Verdict.INCONCLUSIVE
    assert result.reasoning.startswith("nothing checkable is contradicted, but the evidence is too far")
    named = await judge("The cooperative shapes the policy of Kenya through three ministries.", evidence, is_root=True)
    assert named.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert named.reasoning.startswith("claim mostly absent check: only ")
    close = await judge("The cooperative sells maize seed to valley farmers each spring.", evidence, is_root=True)
    assert close.verdict is Verdict.FULLY_SUPPORTED


async def test_a_name_missing_from_close_source_text_asks_for_a_look_and_raises_no_flag() -> None:
    # on the wild dev set most such flags were true sentences naming a class or a place the
    # selected sentences do not spell out
    evidence = "The indexer fills the store with documents and answers queries over them."
    result = await judge("The SimpleDocumentIndexer fills the store with documents.", evidence, is_root=True)
    assert result.verdict is not Verdict.NOT_FULLY_SUPPORTED
    assert "SimpleDocumentIndexer" in result.reasoning


async def test_a_rule_firing_on_a_report_read_beside_supporting_source_text_does_not_overturn_it() -> None:
    claim = Claim(id="c1", text="Mara Voss founded the harbour school in 1850.")
    source = Excerpt(node_id="t1", text="Mara Voss founded the harbour school in 1850.", is_root=True)
    report = Excerpt(node_id="r1", text="Mara Voss founded the harbour school in 1870.", is_root=False)
    assert (await FactsVerifier().judge(claim, [report])).verdict is Verdict.NOT_FULLY_SUPPORTED
    result = await FactsVerifier().judge(claim, [source, report])
    assert result.verdict is Verdict.FULLY_SUPPORTED
    lone = await FactsVerifier().judge(Claim(id="c2", text="Mara Voss founded the harbour school in 1870."), [source])
    assert lone.verdict is Verdict.NOT_FULLY_SUPPORTED


async def test_a_word_said_of_another_name_in_a_report_read_beside_supporting_source_text_is_no_look() -> None:
    """The look the credited-to-another check asks for is the pooled evidence's, like a flag's:
    when the source text alone supports the claim, that is the verdict."""
    claim = "Mara Voss argued that a ferry would be unsafe in the spring floods."
    source = "Mara Voss said that a ferry would be unsafe in the spring floods."
    report = "Dr. Ellis argued for a new ferry before the spring floods."
    pooled = claim_facts(claim, [source, report], LexicalConfig(), roots=[True, False])
    assert pooled is not None and [f.kind for f in pooled.findings if f.kind == "credited_elsewhere"]
    texts = [Excerpt(node_id="t1", text=source, is_root=True), Excerpt(node_id="r1", text=report, is_root=False)]
    result = await FactsVerifier().judge(Claim(id="c1", text=claim), texts)
    assert result.verdict is Verdict.FULLY_SUPPORTED, result.reasoning


def test_an_acronym_in_no_node_read_is_no_flag_by_itself() -> None:
    """A report defines "photovoltaic (PV)" once and says "PV" after; its nodes spell the words
    out. A name of words missing still flags."""
    read = analyze("Photovoltaic systems feed the national grid of the valley.").key_set
    acronym = judge_without_evidence("The PV systems feed the valley's grid.", read, from_source=False)
    assert acronym.verdict is Verdict.INCONCLUSIVE, acronym.reasoning
    assert "'PV' in none of the nodes checked" in acronym.reasoning and "acronym" in acronym.reasoning
    named = judge_without_evidence("The Marlin systems feed the valley's grid.", read, from_source=False)
    assert named.verdict is Verdict.NOT_FULLY_SUPPORTED, named.reasoning


def test_an_acronym_the_outputs_lack_is_no_flag_but_a_name_is() -> None:
    selected = ["The ministry funds solar panels through subsidies for farms in the valley."]

    def verdict(name: str):
        claim = f"The ministry funds {name} through subsidies, boosting rapid widespread adoption among farms."
        return judge_facts(claim, selected, shipped_model(), LexicalConfig(), frozenset(), [False])

    acronym = verdict("PV")
    assert acronym.verdict is Verdict.INCONCLUSIVE, acronym.reasoning
    assert acronym.reasoning.startswith("an acronym may stand for words its sources spell out")
    assert "the name 'PV' is not in the evidence" in acronym.reasoning
    assert verdict("Marlin").verdict is Verdict.NOT_FULLY_SUPPORTED
