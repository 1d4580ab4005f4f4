"""RPM/TPM limits on a fake clock: the admission schedule is checked exactly, in no real time."""

from __future__ import annotations

import asyncio

from fake_openai import FakeOpenAI

from veritrail_graphrag.llm.client import LLMClient
from veritrail_graphrag.llm.config import LLMConfig
from veritrail_graphrag.llm.rate_limit import SlidingWindowLimiter
from veritrail_graphrag.verifiers.llm.parsing import parse_decomposition
from veritrail_graphrag.verifiers.llm.prompts import decomposition_prompt

pytest_plugins = ["fake_openai"]


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0)


async def test_requests_per_minute_schedule() -> None:
    clock = FakeClock()
    limiter = SlidingWindowLimiter(requests=3, clock=clock, sleep=clock.sleep)
    admitted = [(await limiter.acquire())[0] for _ in range(7)]
    assert admitted == [0, 0, 0, 60, 60, 60, 120]


async def test_requests_per_minute_is_a_sliding_window() -> None:
    clock = FakeClock()
    limiter = SlidingWindowLimiter(requests=2, clock=clock, sleep=clock.sleep)
    await limiter.acquire()
    clock.now = 30.0
    await limiter.acquire()
    third = await limiter.acquire()
    fourth = await limiter.acquire()
    assert (third[0], fourth[0]) == (60.0, 90.0)


async def test_tokens_per_minute_and_settling_actual_usage() -> None:
    clock = FakeClock()
    limiter = SlidingWindowLimiter(tokens=1000, clock=clock, sleep=clock.sleep)
    first = await limiter.acquire(600)
    second = await limiter.acquire(600)
    assert (first[0], second[0]) == (0, 60)
    limiter.settle(second, 100)
    third = await limiter.acquire(800)
    assert third[0] == 60
    oversized = await limiter.acquire(5000)
    assert oversized[0] == 120


async def test_concurrent_waiters_all_respect_the_limit() -> None:
    clock = FakeClock()
    limiter = SlidingWindowLimiter(requests=4, clock=clock, sleep=clock.sleep)
    times = sorted(b[0] for b in await asyncio.gather(*(limiter.acquire() for _ in range(10))))
    assert times == [0] * 4 + [60] * 4 + [120] * 2


async def test_no_limits_never_wait() -> None:
    clock = FakeClock()
    limiter = SlidingWindowLimiter(clock=clock, sleep=clock.sleep)
    for _ in range(100):
        await limiter.acquire(10**6)
    assert clock.now == 0


async def test_client_requests_go_through_the_limiter(fake_openai: FakeOpenAI) -> None:
    clock = FakeClock()
    config = LLMConfig(model="m", base_url=fake_openai.url, api_key="k", requests_per_minute=2)
    limiter = SlidingWindowLimiter(requests=config.requests_per_minute, clock=clock, sleep=clock.sleep)
    llm = LLMClient(config, limiter=limiter)
    await asyncio.gather(*(llm.complete(decomposition_prompt(f"X{i}"), parse_decomposition) for i in range(5)))
    assert fake_openai.count == 5 and clock.now == 120
    await llm.aclose()
