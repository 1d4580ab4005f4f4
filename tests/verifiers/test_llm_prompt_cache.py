"""Prompts an endpoint's prompt cache can reuse, through the scripted server: two claims read the
same batch, their Evidence Selection prompts agree byte for byte up to the claim, and the prompt
tokens the endpoint served from its cache reach the audit's usage."""

from __future__ import annotations

import asyncio
from itertools import combinations

from fake_openai import FakeOpenAI

from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.traversal import VeriTrail
from veritrail_graphrag.llm.client import LLMClient
from veritrail_graphrag.llm.config import LLMConfig
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.models import Claim, TrailConfig
from veritrail_graphrag.verifiers.llm.verifier import LLMVerifier

pytest_plugins = ["fake_openai"]

REPORT = "Oradell exports copper to Veltria. Oradell farmers grow rice. The harbour opened in 1990."
DAG_ = DAG.from_records(
    [
        {"id": "tu1", "stage": 1, "text": REPORT},
        {"id": "rep", "stage": 2, "text": REPORT},
        {"id": "final", "stage": 3, "text": "Oradell exports copper to Veltria. Oradell farmers grow rice."},
    ],
    [("tu1", "rep"), ("rep", "final")],
)
CLAIMS = [Claim(id="c1", text="Oradell exports copper to Veltria."), Claim(id="c2", text="Oradell farmers grow rice.")]


class NoSleep:
    async def __call__(self, seconds: float) -> None:
        await asyncio.sleep(0)


async def test_evidence_calls_of_two_claims_over_one_batch_share_their_prefix(fake_openai: FakeOpenAI) -> None:
    fake_openai.prompt_cache = True
    config = LLMConfig(model="gpt-4o", base_url=fake_openai.url, api_key="k", timeout=5.0)
    v = LLMVerifier(config, client=LLMClient(config, sleep=NoSleep()))
    await VeriTrail(v, TrailConfig(concurrency=1)).averify_many(DAG_, CLAIMS)

    asked = [(r.body["messages"], view) for r, view in zip(fake_openai.requests, fake_openai.views(), strict=True)]
    evidence = [(messages, view) for messages, view in asked if view.task == "evidence selection"]
    (first, a), (second, b) = next(
        (x, y) for x, y in combinations(evidence, 2) if x[1].excerpts == y[1].excerpts and x[1].claim != y[1].claim
    )
    assert first[0] == second[0]  # two claims, the same instructions and batch
    one, two = first[1]["content"], second[1]["content"]
    shared = one.index("The claim:")
    assert one[:shared] == two[:shared] and "[S1] Oradell exports copper to Veltria." in one[:shared]

    records = [r for r in v.usage.records if r.kind is CallKind.EVIDENCE_SELECTION]
    assert max(r.cached_input_tokens for r in records) >= (len(first[0]["content"]) + shared) // 4
    total = v.usage.report().total
    assert total.cached_input_tokens == sum(r.cached_input_tokens for r in v.usage.records) > 0
    assert total.cached_input_tokens < total.input_tokens
