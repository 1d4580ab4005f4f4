"""Bounded sub-claim decomposition through the scripted server: a model that restates or keeps
splitting costs a few calls, not the cap, and the audit's usage counts calls by kind."""

from __future__ import annotations

import asyncio
from typing import Any

from fake_openai import FakeOpenAI, PromptView, overlap_oracle

from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.traversal import VeriTrail
from veritrail_graphrag.llm.client import LLMClient
from veritrail_graphrag.llm.config import LLMConfig
from veritrail_graphrag.models import Claim, TrailConfig
from veritrail_graphrag.verifiers.llm.verifier import LLMVerifier

pytest_plugins = ["fake_openai"]

CLAIM = Claim(id="c1", text="Oradell exports copper and Oradell grows rice")
DAG_ = DAG.from_records(
    [
        {"id": "tu1", "stage": 1, "text": "Oradell exports copper. Oradell grows rice."},
        {"id": "final", "stage": 2, "text": "Oradell exports copper and grows rice."},
    ],
    [("tu1", "final")],
)


class NoSleep:
    async def __call__(self, seconds: float) -> None:
        await asyncio.sleep(0)


def verifier(server: FakeOpenAI) -> LLMVerifier:
    config = LLMConfig(model="gpt-4o", base_url=server.url, api_key="k", timeout=5.0)
    return LLMVerifier(config, client=LLMClient(config, sleep=NoSleep()))


def splitting(parts: dict[str, list[str]]) -> Any:
    """Decomposition answers from `parts` (else a fresh pair, as a model that never stops would)."""

    def respond(request: dict[str, Any]) -> Any:
        view = PromptView.of(request)
        if view.task == "sub-claim decomposition":
            return {"parts": parts.get(view.claim, [f"{view.claim}, first", f"{view.claim}, second"])}
        return overlap_oracle(view)

    return respond


def decompositions(server: FakeOpenAI) -> list[str]:
    return [v.claim for v in server.views() if v.task == "sub-claim decomposition"]


async def test_decomposition_stops_on_a_repeated_part(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = splitting(
        {
            CLAIM.text: [
                "Oradell exports copper",
                "Oradell grows rice",
                "oradell exports copper and oradell grows rice.",
            ],
            "Oradell exports copper": ["Oradell exports copper.", "Oradell grows rice"],  # its parent, then a part seen
            "Oradell grows rice": ["ORADELL GROWS RICE"],  # returned unchanged
        }
    )
    v = verifier(fake_openai)
    result = await VeriTrail(v, TrailConfig(decomposition_depth=None)).averify(DAG_, CLAIM)
    assert decompositions(fake_openai) == [CLAIM.text, "Oradell exports copper", "Oradell grows rice"]
    assert result.claim.sub_claims == ["Oradell exports copper", "Oradell grows rice"]
    assert v.usage.report().calls_by_kind["decomposition"] == 3


async def test_decomposition_honours_decomposition_depth(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = splitting({})
    calls: dict[int | None, int] = {}
    for depth in (1, 2, None):
        fake_openai.reset()
        result = await VeriTrail(verifier(fake_openai), TrailConfig(decomposition_depth=depth)).averify(DAG_, CLAIM)
        calls[depth] = len(decompositions(fake_openai))
        if depth == 1:
            assert result.claim.sub_claims == [f"{CLAIM.text}, first", f"{CLAIM.text}, second"]
    assert calls == {1: 1, 2: 3, None: TrailConfig().max_decompositions}
