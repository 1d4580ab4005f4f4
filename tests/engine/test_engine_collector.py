"""The collector's threshold while claims are verified: raised, then given back as it was."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest
from scripted import ScriptedVerifier
from test_engine_paper import graphrag_blog_dag

from veritrail_graphrag import Claim, VeriTrail
from veritrail_graphrag.engine.collector import FIRST_THRESHOLD, fewer_collections
from veritrail_graphrag.models import Excerpt, Verdict


@pytest.fixture
def default_threshold() -> Iterator[tuple[int, ...]]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield gc.get_threshold()
    gc.set_threshold(*before)


def test_raised_while_claims_are_verified_and_restored_after(default_threshold: tuple[int, ...]) -> None:
    seen: list[tuple[int, ...]] = []

    def rule(_: list[Excerpt]) -> Verdict:
        seen.append(gc.get_threshold())
        return Verdict.FULLY_SUPPORTED

    claims = [Claim(id=f"c{i}", text="MARK") for i in range(3)]
    engine = VeriTrail(ScriptedVerifier("MARK", rule=rule))
    results = asyncio.run(engine.averify_many(graphrag_blog_dag({"17", "15", "12"}), claims))
    assert len(results) == 3
    assert seen and all(threshold == (FIRST_THRESHOLD, 10, 10) for threshold in seen)
    assert gc.get_threshold() == default_threshold


def test_restored_when_verification_fails(default_threshold: tuple[int, ...]) -> None:
    def checkpoint(_: object) -> None:
        raise OSError("the checkpoint is not writable")

    engine = VeriTrail(ScriptedVerifier("MARK"))
    with pytest.raises(OSError, match="not writable"):
        asyncio.run(engine.averify_many(graphrag_blog_dag({"17"}), [Claim(id="c", text="MARK")], on_result=checkpoint))
    assert gc.get_threshold() == default_threshold


def test_a_higher_threshold_of_the_caller_is_kept() -> None:
    before = gc.get_threshold()
    gc.set_threshold(10 * FIRST_THRESHOLD, 5, 5)
    try:
        with fewer_collections():
            assert gc.get_threshold() == (10 * FIRST_THRESHOLD, 5, 5)
        assert gc.get_threshold() == (10 * FIRST_THRESHOLD, 5, 5)
    finally:
        gc.set_threshold(*before)


def test_overlapping_verifications_restore_when_the_last_ends(default_threshold: tuple[int, ...]) -> None:
    """Two coroutines of the Python API in one loop: the first to end must not put the default
    back under the other, nor the last leave the raised one behind."""
    first_done = asyncio.Event()
    during: list[int] = []

    async def short() -> None:
        with fewer_collections():
            await asyncio.sleep(0)
        first_done.set()

    async def long() -> None:
        with fewer_collections():
            await first_done.wait()
            during.append(gc.get_threshold()[0])

    async def both() -> None:
        await asyncio.gather(long(), short())

    asyncio.run(both())
    assert during == [FIRST_THRESHOLD]
    assert gc.get_threshold() == default_threshold
