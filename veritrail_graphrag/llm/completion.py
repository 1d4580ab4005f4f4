"""What one answered request returns: the text and, when asked for and given, its log-probabilities;
and the error a caller's parser raises when it cannot read an answer (the client then asks again).

Log-probabilities are kept per answer token with the top-k alternatives at that position, as the
OpenAI chat API sends them (`choices[0].logprobs.content`). Endpoints that do not support them
send nothing, and so do we: `logprobs` is None then, never a guess.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class TokenLogprobs(BaseModel):
    """One answer token, its log-probability, and the top-k (token, logprob) pairs at its position."""

    model_config = ConfigDict(frozen=True)

    token: str
    logprob: float
    top: list[tuple[str, float]] = Field(default_factory=list)


class AnswerParseError(ValueError):
    """The answer's decision could not be read; the message says what was missing."""


class Completion(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    logprobs: list[TokenLogprobs] | None = None


def read_logprobs(choice: Any) -> list[TokenLogprobs] | None:
    """The SDK choice's per-token log-probabilities, or None when the endpoint sent none."""
    content = getattr(getattr(choice, "logprobs", None), "content", None)
    if not content:
        return None
    return [
        TokenLogprobs(
            token=item.token,
            logprob=item.logprob,
            top=[(alt.token, alt.logprob) for alt in (item.top_logprobs or [])],
        )
        for item in content
    ]
