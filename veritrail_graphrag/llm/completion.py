"""What one answered request returns: the text and, when asked for and given, its log-probabilities;
and the error a caller's parser raises when it cannot read an answer (the client then asks again).

Log-probabilities are kept per answer token with the top-k alternatives at that position, as the
OpenAI chat API sends them (`choices[0].logprobs.content`). Endpoints that do not support them
send nothing, and so do we: `logprobs` is None then, never a guess.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class TokenLogprobs(BaseModel):
    """One answer token, its log-probability, and the top-k (token, logprob) pairs at its position."""

    model_config = ConfigDict(frozen=True)

    token: str
    logprob: float
    top: list[tuple[str, float]] = Field(default_factory=list)


class AnswerParseError(ValueError):
    """The answer's decision could not be read; the message says what was missing.

    A JSON answer can say more: `missing` names the required fields that were absent or invalid,
    `kept` holds the fields that were read. The client's repair turn then asks for the missing
    fields alone and reads the reply together with `kept`, so a valid part of an answer is never
    asked for (or paid for) twice.
    """

    def __init__(self, message: str, *, missing: Sequence[str] = (), kept: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.missing = tuple(missing)
        self.kept = dict(kept or {})


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
