"""Our `asyncio.run` hands back the coroutine's value without formatting it."""

from __future__ import annotations

import pytest

from veritrail_graphrag import event_loop


class Report:
    """Stands for an index audit's report, whose repr was hundreds of MB."""

    formatted = 0

    def __repr__(self) -> str:
        Report.formatted += 1
        return "Report()"


async def _make() -> Report:
    return Report()


def test_the_value_comes_back_unformatted() -> None:
    """With plain `asyncio.run` on Python 3.11 the repr is built once, when the default Ctrl-C
    handler is put back."""
    assert isinstance(event_loop.run(_make()), Report)
    assert Report.formatted == 0


def test_errors_pass_through() -> None:
    async def failing() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        event_loop.run(failing())
