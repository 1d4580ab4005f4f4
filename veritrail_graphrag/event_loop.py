"""`asyncio.run` for our commands, without building the repr of what the coroutine returns.

On Python 3.11, when `asyncio.run` puts the default Ctrl-C handler back, `signal.signal` formats the
repr of the handler it replaces, which holds the main task, whose repr holds the task's result:
for a 3,364-claim index audit that string was hundreds of MB, the audit's peak memory. Here the
task returns nothing; its value travels beside it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

_T = TypeVar("_T")


def run(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """`asyncio.run(coroutine)`, its value returned without ever being formatted."""
    value: list[_T] = []

    async def main() -> None:
        value.append(await coroutine)

    asyncio.run(main())
    return value[0]
