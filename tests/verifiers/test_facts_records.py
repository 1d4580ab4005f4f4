"""Issue 37: reports written over an index's tables name its records by id, which is no number
that counts something. (Examples written for these tests,
in the shapes the translated wild indexes show.)"""

from __future__ import annotations

import pytest

from veritrail_graphrag.models import Claim, Excerpt, Verdict
from veritrail_graphrag.verifiers.facts.verifier import FactsVerifier

RECORD_EVIDENCE = (
    "Relationship 40 connects the mill pond (entity 12) with the bakery in the lower village.",
    "The mill pond supplies water to the bakery, which bakes rye bread.",
)


async def judge(claim: Claim, *texts: str):
    excerpts = [Excerpt(node_id=f"n{i}", text=t, is_root=False) for i, t in enumerate(texts)]
    return await FactsVerifier().judge(claim, excerpts)


async def test_ids_of_the_index_own_records_are_not_numbers_to_find() -> None:
    text = "Relationship 41 ties the bakery (entity 14) to the mill pond, which supplies its water."
    bare = await judge(Claim(id="c1", text=text), *RECORD_EVIDENCE)
    assert bare.verdict is Verdict.NOT_FULLY_SUPPORTED and "41" in bare.reasoning  # no references known
    spans = [(0, len("Relationship 41")), (text.index("entity 14"), text.index(") to"))]
    resolved = await judge(Claim(id="c1", text=text, references=spans), *RECORD_EVIDENCE)
    assert resolved.verdict is Verdict.FULLY_SUPPORTED, resolved.reasoning
    assert not any(gap.text in {"41", "14", "Relationship", "entity"} for gap in resolved.gaps)


async def test_a_reference_leaves_the_rest_of_the_claim_checked() -> None:
    text = "Relationship 41 ties the bakery to the mill pond, which supplies 30 barrels of water."
    spans = [(0, len("Relationship 41"))]
    result = await judge(Claim(id="c1", text=text, references=spans), *RECORD_EVIDENCE)
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED and "30" in result.reasoning and "41" not in result.reasoning


async def test_a_claim_of_references_only_without_evidence_is_no_flag() -> None:
    text = "Relationship 41 links the bakery (entity 14) to the pond."
    spans = [(0, len("Relationship 41")), (text.index("entity 14"), text.index(") to"))]
    checked = [Excerpt(node_id="n0", text=RECORD_EVIDENCE[1], is_root=False)]  # no sentence was selected
    bare = await FactsVerifier().judge_without_evidence(Claim(id="c1", text=text), checked)
    resolved = await FactsVerifier().judge_without_evidence(Claim(id="c1", text=text, references=spans), checked)
    assert bare.verdict is Verdict.NOT_FULLY_SUPPORTED and "41" in bare.reasoning
    assert resolved.verdict is not Verdict.NOT_FULLY_SUPPORTED, resolved.reasoning
