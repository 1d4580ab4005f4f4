"""Issue 37: reports written over an index's tables name its records by id and its codes by a
letter and digits; neither is a number that counts something. (Examples written for these tests,
in the shapes the translated wild indexes show.)"""

from __future__ import annotations

import pytest

from veritrail_graphrag.models import Claim, Excerpt, Verdict
from veritrail_graphrag.verifiers.facts.verifier import FactsVerifier
from veritrail_graphrag.verifiers.lexical.text import analyze

CODE_EVIDENCE = (
    "Code K46.1 designates cardiac arrest with successful resuscitation.",
    "The ward algorithm includes management steps for cardiac arrest (K46.1).",
)
RECORD_EVIDENCE = (
    "Relationship 40 connects the mill pond (entity 12) with the bakery in the lower village.",
    "The mill pond supplies water to the bakery, which bakes rye bread.",
)


async def judge(claim: Claim, *texts: str):
    excerpts = [Excerpt(node_id=f"n{i}", text=t, is_root=False) for i, t in enumerate(texts)]
    return await FactsVerifier().judge(claim, excerpts)


def test_a_code_of_letters_and_digits_is_one_name() -> None:
    terms = analyze("The codes K46.1, A340 and MU5673 differ from 46.1 and COVID-19.").terms
    assert [(t.key, t.kind) for t in terms if t.kind != "word"] == [
        ("k46.1", "name"),
        ("a340", "name"),
        ("mu5673", "name"),
        ("46.1", "number"),
        ("covid", "name"),
        ("19", "number"),
    ]


def test_a_section_code_and_a_long_hyphenated_identifier_are_one_name_each() -> None:
    """A tax section ("501(c)(3)") and an employer id ("64-6221541") count nothing.
    Hyphenated numbers with no group of six digits or more stay numbers: "1914-1918", "2024-01-15"."""
    text = "A 501(c)(3) body, EIN 64-6221541, active 1914-1918 and since 2024-01-15, has 3 (three) halls."
    terms = analyze(text).terms
    assert [(t.key, t.kind) for t in terms if t.kind != "word"] == [
        ("501(c)(3)", "name"),
        ("ein", "name"),
        ("64-6221541", "name"),
        ("1914", "number"),
        ("1918", "number"),
        ("2024", "number"),
        ("1", "number"),
        ("15", "number"),
        ("3", "number"),
        ("3", "number"),
    ]


async def test_an_identifier_the_evidence_holds_counts_nothing_else() -> None:
    """Found in a GraphRAG report on the Project Gutenberg licence: the same section and id, each
    followed by other words, were flagged as numbers "counting something else"."""
    evidence = (
        "The Foundation is a non-profit 501(c)(3) educational corporation organized under the laws of Mississippi.",
        "Its federal tax identification number is 64-6221541.",
    )
    claim = Claim(
        id="c1", text="The Foundation, a 501(c)(3) nonprofit with EIN 64-6221541, is organized in Mississippi."
    )
    result = await judge(claim, *evidence)
    assert "counting something else" not in result.reasoning, result.reasoning
    renumbered = Claim(id="c1", text="The Foundation, a 501(c)(4) nonprofit, is organized in Mississippi.")
    changed = await judge(renumbered, *evidence)
    assert changed.verdict is not Verdict.FULLY_SUPPORTED and "501(c)(4)" in changed.reasoning


async def test_a_code_the_evidence_holds_counts_nothing_else() -> None:
    result = await judge(Claim(id="c1", text="The ward algorithm covers K46.1 patients."), *CODE_EVIDENCE)
    assert result.verdict is not Verdict.NOT_FULLY_SUPPORTED, result.reasoning
    assert "counting something else" not in result.reasoning


@pytest.mark.parametrize("code", ["K47.1", "K46.2", "J46.1"])
async def test_another_code_is_still_caught(code: str) -> None:
    result = await judge(Claim(id="c1", text=f"Code {code} designates cardiac arrest with successful resuscitation."), *CODE_EVIDENCE)
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert code in result.reasoning


async def test_ids_of_the_index_own_records_are_not_numbers_to_find() -> None:
    text = "Relationship 41 ties the bakery (entity 14) to the mill pond, which supplies its water."
    bare = await judge(Claim(id="c1", text=text), *RECORD_EVIDENCE)
    assert bare.verdict is not Verdict.FULLY_SUPPORTED and "number 41 is not" in bare.reasoning  # no reference known
    spans = [(0, len("Relationship 41")), (text.index("entity 14"), text.index(") to"))]
    resolved = await judge(Claim(id="c1", text=text, references=spans), *RECORD_EVIDENCE)
    assert resolved.verdict is Verdict.FULLY_SUPPORTED, resolved.reasoning
    assert not any(gap.text in {"41", "14", "Relationship", "entity"} for gap in resolved.gaps)


async def test_a_reference_leaves_the_rest_of_the_claim_checked() -> None:
    text = "Relationship 41 ties the bakery to the mill pond, which supplies 30 barrels of water."
    spans = [(0, len("Relationship 41"))]
    result = await judge(Claim(id="c1", text=text, references=spans), *RECORD_EVIDENCE)
    assert result.verdict is not Verdict.FULLY_SUPPORTED
    assert "number 30 is not" in result.reasoning and "41" not in result.reasoning


async def test_a_claim_of_references_only_without_evidence_is_no_flag() -> None:
    text = "Relationship 41 links the bakery (entity 14) to the pond."
    spans = [(0, len("Relationship 41")), (text.index("entity 14"), text.index(") to"))]
    checked = [Excerpt(node_id="n0", text=RECORD_EVIDENCE[1], is_root=False)]  # no sentence was selected
    bare = await FactsVerifier().judge_without_evidence(Claim(id="c1", text=text), checked)
    resolved = await FactsVerifier().judge_without_evidence(Claim(id="c1", text=text, references=spans), checked)
    assert bare.verdict is Verdict.NOT_FULLY_SUPPORTED and "41" in bare.reasoning
    assert resolved.verdict is not Verdict.NOT_FULLY_SUPPORTED, resolved.reasoning


async def test_a_relationship_record_of_the_claims_two_names_is_close_to_it() -> None:
    """Names kept in the source's language ("ПЕКАРНЯ") and a description written in English share no
    word, so no sentence is selected; but the relationship record that joins exactly the claim's
    two names was read: the claim is not absent from the outputs it was written from."""
    text = "The bond between ПЕКАРНЯ and МЕЛЬНИЦА shapes the daily trade of the lower village."
    relationship = Excerpt(node_id="relationship:ПЕКАРНЯ->МЕЛЬНИЦА", text="Bakers buy flour at the mill", is_root=False)
    other = Excerpt(node_id="relationship:ПЕКАРНЯ->РЫНОК", text="Bread is sold on the square", is_root=False)
    joined = await FactsVerifier().judge_without_evidence(Claim(id="c1", text=text), [relationship, other])
    assert joined.verdict is Verdict.INCONCLUSIVE, joined.reasoning
    apart = await FactsVerifier().judge_without_evidence(Claim(id="c1", text=text.replace("МЕЛЬНИЦА", "РЫНОК")), [relationship])
    assert apart.verdict is Verdict.NOT_FULLY_SUPPORTED  # no record joins ПЕКАРНЯ and РЫНОК among those read


@pytest.mark.parametrize(
    "ids", ["Relationship 333 connects", "Relationships (359,365) connect", "Entities (415, 424) and relationship 359 connect"]
)
async def test_an_id_after_a_tables_name_in_the_evidence_is_no_other_number(ids: str) -> None:
    """Reports over an index quote its ids in their prose and in markers a sentence split cut in
    two; read as evidence, "relationship 333" and "(entity 406)" give no other number where the
    claim gives its own (38)."""
    evidence = f"{ids} the fever with the mill pond (entity 406), supporting its relevance."
    claim = Claim(id="c1", text="A fever of 38 degrees ties the mill pond to its relevance.")
    result = await judge(claim, evidence)
    assert "another number" not in result.reasoning, result.reasoning
    counted = await judge(claim, evidence.replace("(entity 406)", "(406 cases)"))
    assert "another number where the claim says 38" in counted.reasoning


@pytest.mark.parametrize(("name", "credited"), [("ПЕКАРНЯ", False), ("Miller Jones", True)])
async def test_a_name_kept_in_another_script_is_never_credited_elsewhere(name: str, credited: bool) -> None:
    """English evidence writes a name kept in the sources' script by its translation, which the
    credited-to-another check cannot tell from another's name; a Latin name it can."""
    said = "Rye bread is baked by the Guild in the lower village every morning."
    elsewhere = f"{name} stands in the lower village by the river."
    result = await judge(Claim(id="c1", text=f"{name} bakes the rye bread of the lower village every morning."), said, elsewhere)
    assert ("the evidence says 'bakes' of 'Guild', not of" in result.reasoning) is credited, result.reasoning
