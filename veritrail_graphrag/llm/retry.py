"""When and how long to wait before asking again. Pure functions; the client does the waiting.

We turn the SDK's own retries off and do this instead, so that every attempt goes through our
rate limiter and usage ledger, the number of attempts is bounded by our settings, and a server's
Retry-After (seconds or an HTTP date) is honoured rather than guessed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import openai
from pydantic import BaseModel, ConfigDict, Field

TRANSIENT_STATUS = frozenset({408, 409, 429})
MAX_RETRY_AFTER = 600.0


class RetryPolicy(BaseModel):
    """Exponential backoff with full jitter: attempt n waits up to min(max_delay, base * 2**n)."""

    model_config = ConfigDict(frozen=True)

    max_attempts: int = Field(default=6, ge=1)
    base_delay: float = Field(default=1.0, ge=0)
    max_delay: float = Field(default=60.0, ge=0)

    def delay(self, attempt: int, retry_after: float | None = None, rng: random.Random | None = None) -> float:
        """Seconds to wait after failed attempt number `attempt` (0-based)."""
        if retry_after is not None:
            return min(retry_after, MAX_RETRY_AFTER)
        ceiling = min(self.max_delay, self.base_delay * 2**attempt)
        return (rng or random).uniform(ceiling / 2, ceiling)


def retry_after_seconds(headers: Mapping[str, str] | None, now: datetime | None = None) -> float | None:
    """Parse `retry-after-ms`, or `Retry-After` as seconds or as an HTTP date; None if absent."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    if "retry-after-ms" in lowered:
        try:
            return max(0.0, float(lowered["retry-after-ms"]) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def is_transient(exc: BaseException) -> bool:
    """Worth retrying: rate limits, server errors, timeouts, dropped or garbled responses."""
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in TRANSIENT_STATUS or exc.status_code >= 500
    return isinstance(exc, openai.APIConnectionError | openai.APIResponseValidationError | json.JSONDecodeError)


def is_unreachable(exc: BaseException) -> bool:
    """No answer at all from the endpoint (refused, DNS, TLS): after the retries, every call would
    fail the same way. A timeout is not counted here: one long prompt can time out alone."""
    return isinstance(exc, openai.APIConnectionError) and not isinstance(exc, openai.APITimeoutError)


def rejects_logprobs(exc: BaseException) -> bool:
    """A 400 that blames `logprobs`: the endpoint (or this model) gives no log-probabilities."""
    if not isinstance(exc, openai.BadRequestError):
        return False
    return "logprob" in f"{exc.param or ''} {exc.message}".lower()
