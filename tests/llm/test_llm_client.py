"""The client against a real local HTTP server: retries per fault, fallbacks, parse retries, cache."""

from __future__ import annotations

import asyncio
import json
import logging
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest
from fake_openai import Cut, FakeOpenAI, Fault

from veritrail_graphrag.errors import LLMError, PromptTooLongError
from veritrail_graphrag.llm.cache import MemoryCache, SQLiteCache, cache_key, request_payload
from veritrail_graphrag.llm.client import LLMClient
from veritrail_graphrag.llm.config import LLMConfig
from veritrail_graphrag.llm.request import ChatMessage
from veritrail_graphrag.llm.retry import RetryPolicy, retry_after_seconds
from veritrail_graphrag.llm.structured import Rung
from veritrail_graphrag.llm.usage import usage_scope
from veritrail_graphrag.verifiers.llm.parsing import parse_decomposition
from veritrail_graphrag.verifiers.llm.prompts import decomposition_prompt

pytest_plugins = ["fake_openai"]

PROMPT = decomposition_prompt("Acme Corp sells tools and Acme Corp sells paint")
EXPECTED = ["Acme Corp sells tools", "Acme Corp sells paint"]


class Sleeps:
    """Stands in for asyncio.sleep: records the delays, waits no real time."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await asyncio.sleep(0)


def config(server: FakeOpenAI, **changes: Any) -> LLMConfig:
    settings: dict[str, Any] = {"model": "gpt-4o", "base_url": server.url, "api_key": "test-key", "timeout": 5.0}
    return LLMConfig(**(settings | changes))


def client(server: FakeOpenAI, sleeps: Sleeps | None = None, cache: Any = None, **changes: Any) -> LLMClient:
    return LLMClient(config(server, **changes), cache=cache, sleep=sleeps or Sleeps())


async def test_plain_call_parses_and_records_usage(fake_openai: FakeOpenAI) -> None:
    llm = client(fake_openai)
    assert await llm.complete(PROMPT, parse_decomposition, usage_key="c7") == EXPECTED
    [record] = llm.ledger.records
    assert record.usage_key == "c7" and record.input_tokens > 0 and not record.estimated
    assert record.cost_usd is not None and record.cost_usd > 0
    await llm.aclose()


async def test_usage_is_estimated_when_the_endpoint_reports_none(fake_openai: FakeOpenAI) -> None:
    fake_openai.report_usage = False
    llm = client(fake_openai)
    await llm.complete(PROMPT, parse_decomposition)
    [record] = llm.ledger.records
    chars = sum(len(m.content) for m in PROMPT.messages)
    assert record.estimated and record.input_tokens == (chars + 3) // 4
    await llm.aclose()


async def test_prompt_tokens_the_endpoint_served_from_its_cache_are_counted(fake_openai: FakeOpenAI) -> None:
    """OpenAI, vLLM and llama.cpp say in `usage.prompt_tokens_details.cached_tokens` how much of a
    prompt they did not compute again; an endpoint that does not say counts none."""
    fake_openai.prompt_cache = True
    llm = client(fake_openai)
    other = decomposition_prompt("Acme Corp sells tools and Acme Corp sells glue")
    await llm.complete(PROMPT, parse_decomposition)
    await llm.complete(other, parse_decomposition)
    first, second = llm.ledger.records
    one, two = PROMPT.messages[1].content, other.messages[1].content
    shared = next(i for i, (a, b) in enumerate(zip(one, two, strict=False)) if a != b)
    assert first.cached_input_tokens == 0
    assert second.cached_input_tokens == (len(PROMPT.messages[0].content) + shared) // 4 > 0
    assert llm.ledger.total().cached_input_tokens == second.cached_input_tokens
    fake_openai.prompt_cache = False
    await llm.complete(decomposition_prompt("Acme Corp sells nails and Acme Corp sells glue"), parse_decomposition)
    assert llm.ledger.records[-1].cached_input_tokens == 0
    await llm.aclose()


@pytest.mark.parametrize(
    "fault",
    [
        Fault("rate_limit", retry_after="2"),
        Fault("rate_limit"),
        Fault("server_error", status=500),
        Fault("server_error", status=503),
        Fault("hang", seconds=3.0),
        Fault("drop"),
        Fault("truncate"),
        Fault("malformed_json"),
    ],
    ids=lambda f: (
        f.kind + (f"-{f.status}" if f.kind == "server_error" else "") + ("-retry-after" if f.retry_after else "")
    ),
)
async def test_each_transient_fault_is_retried_to_the_same_answer(fake_openai: FakeOpenAI, fault: Fault) -> None:
    sleeps = Sleeps()
    llm = client(fake_openai, sleeps, timeout=0.3)
    fake_openai.schedule([fault, fault])
    assert await llm.complete(PROMPT, parse_decomposition) == EXPECTED
    assert fake_openai.count == 3
    assert len(sleeps.delays) == 2
    if fault.retry_after:
        assert sleeps.delays == [2.0, 2.0]
    assert [r.parsed for r in llm.ledger.records] == [True]
    await llm.aclose()


async def test_retry_after_as_http_date_is_honoured(fake_openai: FakeOpenAI) -> None:
    sleeps = Sleeps()
    llm = client(fake_openai, sleeps)
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    fake_openai.schedule([Fault("rate_limit", retry_after=when)])
    assert await llm.complete(PROMPT, parse_decomposition) == EXPECTED
    assert 25 < sleeps.delays[0] <= 30
    await llm.aclose()


def test_retry_after_parsing_and_backoff_bounds() -> None:
    now = datetime(2025, 1, 1, tzinfo=UTC)
    assert retry_after_seconds({"Retry-After": "7"}) == 7.0
    assert retry_after_seconds({"retry-after-ms": "1500"}) == 1.5
    assert retry_after_seconds({"Retry-After": "Wed, 01 Jan 2025 00:00:10 GMT"}, now) == 10.0
    assert retry_after_seconds({"Retry-After": "Tue, 31 Dec 2024 00:00:00 GMT"}, now) == 0.0
    assert retry_after_seconds({"Retry-After": "soon"}) is None
    assert retry_after_seconds({}) is None
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0)
    for attempt in range(8):
        delay = policy.delay(attempt)
        assert min(8.0, 2**attempt) / 2 <= delay <= min(8.0, 2**attempt)
    assert policy.delay(3, retry_after=42.0) == 42.0


async def test_gives_up_after_max_attempts_naming_call_and_claim(fake_openai: FakeOpenAI) -> None:
    llm = client(fake_openai, max_attempts=3)
    fake_openai.schedule([Fault("server_error")] * 5)
    with pytest.raises(
        LLMError, match=r"sub-claim decomposition call for claim 'c3': gave up after 3 attempts"
    ) as info:
        await llm.complete(PROMPT, parse_decomposition, claim_id="c3")
    assert info.value.call_kind == "decomposition" and info.value.status_code == 500
    assert fake_openai.count == 3
    await llm.aclose()


async def test_authentication_failure_is_not_retried_and_names_the_key(fake_openai: FakeOpenAI) -> None:
    llm = client(fake_openai, api_key_env="MY_KEY")
    fake_openai.schedule([Fault("server_error", status=401)])
    with pytest.raises(LLMError, match="MY_KEY") as info:
        await llm.complete(PROMPT, parse_decomposition)
    assert info.value.status_code == 401 and fake_openai.count == 1
    await llm.aclose()


async def test_an_endpoint_without_structured_output_walks_the_ladder_down_once(fake_openai: FakeOpenAI) -> None:
    fake_openai.reject_response_format = True
    llm = client(fake_openai, structured_output=True)
    assert await llm.complete(PROMPT, parse_decomposition) == EXPECTED
    assert await llm.complete(decomposition_prompt("A is B"), parse_decomposition) == ["A is B"]
    sent = [r.body.get("response_format", {}).get("type") for r in fake_openai.requests]
    assert sent == ["json_schema", "json_object", "json_object", None, None]
    assert llm.rung is Rung.TEXT
    await llm.aclose()


@pytest.mark.parametrize(
    ("formats", "status", "rungs"),
    [
        # llama-cpp-python: json_schema answered with a 500 naming it; json_object + schema works
        ({"json_object_schema", "json_object"}, 500, ["json_schema", "json_object_schema"]),
        ({"json_object"}, 422, ["json_schema", "json_object_schema", "json_object"]),
        ({"json_schema"}, 400, ["json_schema"]),
    ],
)
async def test_the_ladder_stops_at_the_first_format_the_endpoint_takes_and_remembers_it(
    fake_openai: FakeOpenAI, tmp_path: Path, formats: set[str], status: int, rungs: list[str]
) -> None:
    fake_openai.formats, fake_openai.format_status = frozenset(formats), status
    cache_path = tmp_path / "cache.sqlite"
    llm = client(fake_openai, cache_path=cache_path)
    assert await llm.complete(PROMPT, parse_decomposition) == EXPECTED
    sent = [r.body["response_format"] for r in fake_openai.requests]
    assert [f["type"] + ("_schema" if "schema" in f else "") for f in sent] == rungs
    if "schema" in sent[-1]:
        assert sent[-1]["schema"]["properties"]["parts"]["maxItems"] > 0  # the bounded schema, not the strict subset
    await llm.aclose()

    fake_openai.reset()
    again = client(fake_openai, cache_path=cache_path)  # a later run starts on the rung that worked
    assert await again.complete(decomposition_prompt("A is B"), parse_decomposition) == ["A is B"]
    [request] = fake_openai.requests
    assert again.rung.value == rungs[-1] and request.body["response_format"] == sent[-1]
    await again.aclose()


async def test_a_plain_server_error_is_retried_not_taken_for_a_format_refusal(fake_openai: FakeOpenAI) -> None:
    llm = client(fake_openai)
    fake_openai.schedule([Fault("server_error", status=500)])
    assert await llm.complete(PROMPT, parse_decomposition) == EXPECTED
    assert [r.body["response_format"]["type"] for r in fake_openai.requests] == ["json_schema", "json_schema"]
    assert llm.rung is Rung.JSON_SCHEMA
    await llm.aclose()


async def test_concurrent_refusals_step_down_one_rung(fake_openai: FakeOpenAI) -> None:
    fake_openai.formats, fake_openai.format_status = frozenset({"json_object_schema"}), 500
    fake_openai.latency = 0.05
    llm = client(fake_openai)
    prompts = [decomposition_prompt(f"A{i} is B") for i in range(8)]
    await asyncio.gather(*(llm.complete(p, parse_decomposition) for p in prompts))
    assert llm.rung is Rung.JSON_OBJECT_SCHEMA
    await llm.aclose()


async def test_an_answer_cut_at_max_tokens_is_repaired_then_resampled_and_counted(fake_openai: FakeOpenAI) -> None:
    answers = iter([Cut('{"parts": ["A is red", "B is bl'), Cut('{"parts": ["A'), {"parts": EXPECTED}])
    fake_openai.responder = lambda request: next(answers)
    llm = client(fake_openai, parse_attempts=3, seed=7)
    assert await llm.complete(PROMPT, parse_decomposition) == EXPECTED
    first, repair, resample = (r.body for r in fake_openai.requests)
    assert first["max_tokens"] == PROMPT.max_tokens
    assert "cut off at max_tokens" in repair["messages"][-1]["content"]
    assert '"maxItems"' in repair["messages"][-1]["content"]  # the schema is shown with the problem
    assert resample["messages"] == first["messages"]
    assert resample["temperature"] > 0 and resample["seed"] != first["seed"]
    usage = llm.ledger.total()
    assert (usage.truncated_answers, usage.repair_calls, usage.resample_calls, usage.calls) == (2, 1, 1, 3)
    await llm.aclose()


async def test_structured_output_sends_the_strict_schema(fake_openai: FakeOpenAI) -> None:
    llm = client(fake_openai, structured_output=True)
    await llm.complete(PROMPT, parse_decomposition)
    body = fake_openai.requests[0].body
    assert body["response_format"]["json_schema"]["name"] == "decomposition"
    assert body["temperature"] == 0.0
    await llm.aclose()


async def test_unparseable_answers_are_retried_with_the_problem_then_raise(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = lambda request: "I would rather not say."
    cache = MemoryCache()
    llm = client(fake_openai, cache=cache, parse_attempts=3)
    with pytest.raises(LLMError, match="could not be read after 3 attempts") as info:
        await llm.complete(PROMPT, parse_decomposition, claim_id="c9")
    assert info.value.claim_id == "c9" and info.value.call_kind == "decomposition"
    assert fake_openai.count == 3 and len(cache) == 0
    retry = fake_openai.requests[1].body["messages"]
    assert [m["role"] for m in retry] == ["system", "user", "assistant", "user"]
    assert retry[2]["content"] == "I would rather not say." and "could not be read" in retry[3]["content"]
    assert llm.ledger.total().unparsed_answers == 3
    await llm.aclose()


async def test_a_repaired_answer_is_cached_under_the_original_request(fake_openai: FakeOpenAI) -> None:
    def once_bad(request: dict[str, Any]) -> str:
        return json.dumps({"parts": EXPECTED}) if len(request["messages"]) > 2 else "not json"

    fake_openai.responder = once_bad
    cache = MemoryCache()
    first = client(fake_openai, cache=cache)
    assert await first.complete(PROMPT, parse_decomposition) == EXPECTED
    assert fake_openai.count == 2
    again = client(fake_openai, cache=cache)
    assert await again.complete(PROMPT, parse_decomposition) == EXPECTED
    assert fake_openai.count == 2
    assert [r.cached for r in again.ledger.records] == [True]
    await first.aclose()


async def test_sqlite_cache_serves_a_rerun_with_zero_requests(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    first = client(fake_openai, cache=SQLiteCache(path))
    prompts = [decomposition_prompt(f"P{i} is red and P{i} is blue") for i in range(5)]
    await asyncio.gather(*(first.complete(p, parse_decomposition) for p in prompts))
    await first.aclose()
    assert fake_openai.count == 5
    second = client(fake_openai, cache=SQLiteCache(path), api_key="another-key", timeout=9.0, max_attempts=2)
    answers = await asyncio.gather(*(second.complete(p, parse_decomposition) for p in prompts))
    assert fake_openai.count == 5
    assert answers[0] == ["P0 is red", "P0 is blue"]
    assert second.ledger.total().cached_calls == 5 and second.ledger.total().calls == 0
    await second.aclose()


def test_cache_key_covers_what_changes_the_answer_and_nothing_else(fake_openai: FakeOpenAI) -> None:
    def key(prompt: Any = PROMPT, sample: int = 0, temperature: float = 0.0, **changes: Any) -> str:
        return cache_key(request_payload(client(fake_openai, **changes).config, prompt, sample, temperature, False))

    base = key()
    assert key(api_key="other", timeout=1.0, max_attempts=2, concurrency=1, requests_per_minute=5) == base
    # A prompt's wording or layout changed (as when the prompts were laid out for prompt caches):
    # answers cached under the old prompt are not reused but asked again.
    system, user = PROMPT.messages
    relaid = PROMPT.model_copy(update={"messages": (system, ChatMessage(role="user", content=user.content + "\n"))})
    different = [
        key(model="gpt-4o-mini"),
        key(base_url="http://127.0.0.1:1/v1"),
        key(seed=7),
        key(max_output_tokens=100),
        key(sample=1),
        key(temperature=0.2),
        key(prompt=decomposition_prompt("Something else")),
        key(prompt=relaid),
        cache_key(request_payload(client(fake_openai).config, PROMPT, 0, 0.0, True)),
    ]
    assert base not in different and len(set(different)) == len(different)


async def test_concurrency_limit_bounds_requests_in_flight(fake_openai: FakeOpenAI) -> None:
    fake_openai.latency = 0.05
    llm = client(fake_openai, concurrency=2)
    await asyncio.gather(*(llm.complete(decomposition_prompt(f"X{i}"), parse_decomposition) for i in range(8)))
    assert fake_openai.count == 8 and fake_openai.max_in_flight == 2
    await llm.aclose()


def test_client_survives_a_new_event_loop(fake_openai: FakeOpenAI) -> None:
    llm = client(fake_openai)
    assert asyncio.run(llm.complete(PROMPT, parse_decomposition)) == EXPECTED
    assert asyncio.run(llm.complete(decomposition_prompt("A is B"), parse_decomposition)) == ["A is B"]
    assert [v.task for v in fake_openai.views()] == ["sub-claim decomposition"] * 2


async def test_a_prompt_over_the_input_limit_is_refused_unsent(fake_openai: FakeOpenAI) -> None:
    llm = client(fake_openai, max_input_tokens=1000)
    with pytest.raises(PromptTooLongError, match=r"over the limit of 1,000 .*max_input_tokens"):
        await llm.complete(decomposition_prompt("word " * 2000), parse_decomposition)
    assert fake_openai.count == 0
    assert await llm.complete(PROMPT, parse_decomposition) == EXPECTED
    await llm.aclose()


async def test_retry_lines_name_the_claim_the_call_is_for(
    fake_openai: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    """A caller that names no claim_id still gets lines naming it: from the usage key, the
    attribution scope, or the claim its text was linked to (a decomposition carries only text)."""
    llm = client(fake_openai, max_attempts=3)
    llm.ledger.link("The ferry was paid for by the county.", "final#3")
    fake_openai.schedule([Fault("server_error")])
    with caplog.at_level(logging.INFO, logger="veritrail_graphrag"):
        await llm.complete(PROMPT, parse_decomposition, subject="The ferry was paid for by the county.")
    assert "sub-claim decomposition call for claim 'final#3'" in caplog.text
    caplog.clear()
    fake_openai.schedule([Fault("server_error")])
    with usage_scope("report:45/final#1"), caplog.at_level(logging.INFO, logger="veritrail_graphrag"):
        await llm.complete(PROMPT, parse_decomposition)
    assert "for claim 'report:45/final#1'" in caplog.text
    await llm.aclose()
