"""`asyncio.run` for our commands: stopped by Ctrl-C or SIGTERM within moments (`interruption`), and
without building the repr of what the coroutine returns.

On Python 3.11, when `asyncio.run` puts the default Ctrl-C handler back, `signal.signal` formats the
repr of the handler it replaces, which holds the main task, whose repr holds the task's result:
for a 3,364-claim index audit that string was hundreds of MB, the audit's peak memory. Here the
task returns nothing; its value travels beside it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from veritrail_graphrag import interruption

_T = TypeVar("_T")


def run(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """`asyncio.run(coroutine)`, its value returned without ever being formatted.

    A first Ctrl-C or SIGTERM stops it at its next check (between claims, before a verifier call)
    and cancels what waits on a model; it then raises `KeyboardInterrupt`, after the coroutine's
    `finally` blocks ran. A coroutine that finished anyway (the signal came as it wrote its
    results) returns its value: nothing is left to resume."""
    value: list[_T] = []
    running: list[asyncio.Task[None]] = []

    async def main() -> None:
        running.append(asyncio.current_task())  # type: ignore[arg-type]
        value.append(await coroutine)

    def wake() -> None:
        if running and not running[0].done():
            running[0].get_loop().call_soon_threadsafe(running[0].cancel)

    with interruption.on_signals(wake):
        try:
            asyncio.run(main())
        except (asyncio.CancelledError, interruption.StopRequested):
            if not interruption.requested():
                raise
            raise KeyboardInterrupt from None
        finally:
            if running and running[0].done() and not running[0].cancelled():
                # Marked as seen (it propagates anyway): with nest_asyncio2 applied, as importing
                # graphrag does, `asyncio.run` leaves a task that ended in KeyboardInterrupt to be
                # logged "Task exception was never retrieved" when it is collected.
                running[0].exception()
    return value[0]
