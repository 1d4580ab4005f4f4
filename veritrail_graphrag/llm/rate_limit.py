"""Requests-per-minute and tokens-per-minute limits, as a sliding window over the last period.

Clock and sleep are injectable so tests can check the schedule on a fake clock instead of
waiting for real minutes.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable


class SlidingWindowLimiter:
    """Admits a request when the last `period` seconds hold fewer than `requests` requests and
    fewer than `tokens` tokens including this one. A single request larger than the token budget
    is admitted alone, so it cannot wait forever."""

    def __init__(
        self,
        requests: int | None = None,
        tokens: int | None = None,
        period: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.requests = requests
        self.tokens = tokens
        self.period = period
        self._clock = clock
        self._sleep = sleep
        self._events: deque[list[float]] = deque()
        self._lock = asyncio.Lock()

    def rebind(self) -> None:
        """asyncio locks belong to one event loop: a new loop gets a new lock; the history stays."""
        self._lock = asyncio.Lock()

    @property
    def active(self) -> bool:
        return bool(self.requests or self.tokens)

    def _prune(self, now: float) -> None:
        while self._events and self._events[0][0] <= now - self.period:
            self._events.popleft()

    def _wait_needed(self, now: float, tokens: int) -> float:
        self._prune(now)
        if not self._events:
            return 0.0
        waits = [0.0]
        if self.requests and len(self._events) >= self.requests:
            waits.append(self._events[len(self._events) - self.requests][0] + self.period - now)
        if self.tokens:
            used = sum(e[1] for e in self._events)
            if used + tokens > self.tokens:
                freed = 0.0
                for when, spent in self._events:
                    freed += spent
                    if used - freed + tokens <= self.tokens:
                        waits.append(when + self.period - now)
                        break
                else:
                    waits.append(self._events[-1][0] + self.period - now)
        return max(waits)

    async def acquire(self, tokens: int = 0) -> list[float]:
        """Wait for room, then book the request; returns the booking for `settle`."""
        if not self.active:
            return [self._clock(), float(tokens)]
        async with self._lock:
            while (wait := self._wait_needed(self._clock(), tokens)) > 0:
                await self._sleep(wait)
            booking = [self._clock(), float(tokens)]
            self._events.append(booking)
            return booking

    def settle(self, booking: list[float], actual_tokens: int) -> None:
        """Replace the estimate booked for a request with what it really cost."""
        booking[1] = float(actual_tokens)
