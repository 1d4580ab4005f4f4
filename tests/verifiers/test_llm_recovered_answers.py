"""Every answer read or recovered: a valid decision is kept when an optional field is missing, and
a missing required field is asked for alone, through the scripted server."""

from __future__ import annotations

import asyncio
from typing import Any

from fake_openai import FakeOpenAI, PromptView, overlap_oracle

from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.traversal import VeriTrail
from veritrail_graphrag.llm.cache import MemoryCache
from veritrail_graphrag.llm.client import LLMClient
from veritrail_graphrag.llm.config import LLMConfig
from veritrail_graphrag.models import Claim, Excerpt, Sentence, Verdict
from veritrail_graphrag.verifiers.llm.schemas import PaperVerdictAnswer
from veritrail_graphrag.verifiers.llm.verifier import NO_SUMMARY, LLMVerifier

pytest_plugins = ["fake_openai"]

CLAIM = Claim(id="c1", text="Oradell exports copper to Veltria.")
SENTENCES = [
    Sentence(id=f"tu1#{i}", node_id="tu1", index=i, text=text)
    for i, text in enumerate(["Oradell exports copper\nto Veltria.", "The harbour opened in 1990."])
]
REASONING = {
    "interpretation": "one reading",
    "relevant_evidence": "excerpt 1 says so",
    "conflicting_evidence": "none",
    "debatable_evidence": "none",
    "clear_evidence": "excerpt 1",
    "reasoning": "Excerpt 1 states it.",
}


class NoSleep:
    async def __call__(self, seconds: float) -> None:
        await asyncio.sleep(0)


def verifier(server: FakeOpenAI, cache: MemoryCache | None = None) -> LLMVerifier:
    config = LLMConfig(model="gpt-4o", base_url=server.url, api_key="k", timeout=5.0)
    return LLMVerifier(config, client=LLMClient(config, cache=cache, sleep=NoSleep()))


def without_summary(request: dict[str, Any]) -> Any:
    answer = overlap_oracle(PromptView.of(request))
    if PromptView.of(request).task == "evidence selection":
        return {"selected": answer["selected"]}  # what SmolLM2 did: a selection, no summary
    return answer


async def test_a_valid_selection_without_a_summary_is_kept(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = without_summary
    v = verifier(fake_openai)
    selection = await v.select_evidence(CLAIM, SENTENCES)
    assert selection.selected == ["tu1#0"]
    assert selection.summary == f'{NO_SUMMARY} "Oradell exports copper to Veltria."'
    assert fake_openai.count == 1 and v.usage.total().repair_calls == 0


async def test_a_claim_whose_selections_have_no_summary_is_scored(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = without_summary
    dag = DAG.from_records(
        [
            {"id": "tu1", "stage": 1, "text": "Oradell exports copper to Veltria. The harbour opened in 1990."},
            {"id": "rep", "stage": 2, "text": "Oradell exports copper to Veltria."},
            {"id": "final", "stage": 3, "text": "Oradell exports copper to Veltria."},
        ],
        [("tu1", "rep"), ("rep", "final")],
    )
    result = await VeriTrail(verifier(fake_openai)).averify(dag, CLAIM)
    assert result.verdict is Verdict.FULLY_SUPPORTED
    first = result.iterations[0]
    assert first.batches[0].summary.startswith(NO_SUMMARY)
    assert first.excerpts[0].text.startswith(NO_SUMMARY)  # the verdict sees quotes, marked as such


async def test_a_repair_turn_asks_for_the_missing_field_only(fake_openai: FakeOpenAI) -> None:
    def forgets_the_verdict(request: dict[str, Any]) -> Any:
        return REASONING if len(request["messages"]) == 2 else {"verdict": "Fully Supported"}

    fake_openai.responder = forgets_the_verdict
    cache = MemoryCache()
    v = verifier(fake_openai, cache)
    excerpts = [Excerpt(node_id="tu1", text="Oradell exports copper to Veltria.", is_root=True)]
    result = await v.judge(CLAIM, excerpts)
    assert result.verdict is Verdict.FULLY_SUPPORTED and result.reasoning == "Excerpt 1 states it."

    first, repair = (r.body for r in fake_openai.requests)
    ask = repair["messages"][-1]["content"]
    assert repair["messages"][:2] == first["messages"] and repair["messages"][2]["role"] == "assistant"
    assert "no JSON 'verdict' field" in ask and 'holding only "verdict"' in ask
    schema = repair["response_format"]["json_schema"]["schema"]
    assert list(schema["properties"]) == schema["required"] == ["verdict"]
    assert len(first["response_format"]["json_schema"]["schema"]["properties"]) == len(PaperVerdictAnswer.model_fields)
    usage = v.usage.total()
    assert (usage.calls, usage.repair_calls, usage.unparsed_answers) == (2, 1, 1)

    again = verifier(fake_openai, cache)  # the whole answer is cached: a re-run reads it back
    assert await again.judge(CLAIM, excerpts) == result and fake_openai.count == 2
