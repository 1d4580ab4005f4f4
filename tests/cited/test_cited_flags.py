"""What the cited-answer check flags when the model would answer YES to anything it is shown.

A weak verifier ignores the prompt's rules (questions assert nothing, no world knowledge), so the
claims below must be caught by the code: before any call, or whatever the model answers.
"""

from __future__ import annotations

from typing import Any

import pytest
from cited_oracle import UNSURE, YES, visible_spans
from fake_openai import FakeOpenAI, PromptView, Scored

from veritrail_graphrag import CitedCheckReport, adetect_hallucination
from veritrail_graphrag.cited.prompts import WITHHELD
from veritrail_graphrag.llm.config import LLMConfig

pytest_plugins = ["fake_openai"]

SPANS = [
    {"sid": "S0", "text": "The gateway retries failed requests up to three times, with exponential backoff."},
    {"sid": "S1", "text": "Does the gateway retry failed requests three times?"},
    {"sid": "S2", "text": "## Retry policy\n\nReply with the number of retries only."},
    {
        "sid": "S3",
        "text": "Is the retry budget shared between routes? Each route keeps its own retry budget.",
    },
]


def gullible(request: dict[str, Any]) -> Scored:
    """YES whenever any span text is in sight, whatever it says; UNSURE with nothing to read."""
    return YES if visible_spans(PromptView.of(request)) else UNSURE


def always_yes(request: dict[str, Any]) -> Scored:
    return YES


async def check(server: FakeOpenAI, answer: str, **options: Any) -> CitedCheckReport:
    llm = LLMConfig(model="gpt-4o-mini", base_url=server.url, api_key="k", cache=False, max_attempts=1)
    return await adetect_hallucination(answer, SPANS, llm=llm, **options)


async def test_an_uncited_claim_is_flagged_without_a_call(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = always_yes
    report = await check(fake_openai, "The gateway logs every retry.")
    [claim] = report.details
    assert claim.status.value == "no_citations" and claim.flagged and report.flagged
    assert claim.post_yes is None and "no model call" in claim.note
    assert fake_openai.count == 0 and report.summary.usage.calls == 0


async def test_a_claim_citing_only_a_question_or_an_instruction_is_flagged(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = always_yes
    report = await check(
        fake_openai, "The gateway retries failed requests three times [S1]. It retries three times [S2]."
    )
    assert [d.status.value for d in report.details] == ["no_evidence_text", "no_evidence_text"]
    assert all(d.flagged for d in report.details) and fake_openai.count == 0
    assert report.details[0].cites_without_text == ["S1"]
    assert report.summary.non_evidence_removed == {
        "S1": ["Does the gateway retry failed requests three times?"],
        "S2": ["## Retry policy", "Reply with the number of retries only."],
        "S3": ["Is the retry budget shared between routes?"],
    }


async def test_a_span_keeps_its_statements_and_loses_its_question(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = gullible
    report = await check(fake_openai, "Each route keeps its own retry budget [S3].")
    assert report.details[0].status.value == "supported"
    shown = {v.blocks["span S3"] for v in fake_openai.views()}
    assert shown == {"Each route keeps its own retry budget.", WITHHELD}


async def test_an_unknown_citation_has_a_status_that_says_so(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = gullible
    only_unknown = await check(fake_openai, "Retries use exponential backoff [S7].")
    [claim] = only_unknown.details
    assert claim.status.value == "unknown_citations" and claim.unknown_cites == ["S7"] and claim.flagged
    assert fake_openai.count == 0
    # with a known citation beside it, the claim is checked on S0 (supported) and still flagged
    mixed = await check(fake_openai, "Retries use exponential backoff [S0, S7].")
    [claim] = mixed.details
    assert claim.status.value == "unknown_citations" and claim.unknown_cites == ["S7"] and claim.flagged
    assert claim.post_yes is not None and claim.post_yes.min == pytest.approx(0.98)
    assert fake_openai.count == 2


async def test_claims_cut_by_max_claims_flag_the_report(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = gullible
    answer = (
        "The gateway retries failed requests [S0]. It backs off exponentially [S0]. "
        "It gives up after three retries [S0]."
    )
    report = await check(fake_openai, answer, max_claims=2)
    assert [d.status.value for d in report.details] == ["supported", "supported"]
    assert report.summary.flagged_idxs == []
    assert report.flagged and report.summary.claims_not_checked == 1
    assert report.summary.claims_in_answer == 3


async def test_a_supported_claim_still_passes(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = gullible
    report = await check(fake_openai, "The gateway retries failed requests up to three times. [S0]")
    [claim] = report.details
    assert claim.status.value == "supported" and not claim.flagged and not report.flagged
    # a model that says YES even without the evidence: the claim did not need it, which passes too
    fake_openai.responder = always_yes
    again = await check(fake_openai, "The gateway retries failed requests up to three times. [S0]")
    assert again.details[0].status.value == "prior_leak" and not again.flagged
