"""Asking the entailment question and turning the answer into a `Belief`.

With log-probabilities (the default when the endpoint gives them): one call at temperature 0,
`top_logprobs` alternatives for each answer token. Without (the endpoint ignores or refuses the
parameter): the same question sampled at temperature 1 (the model's own distribution), in rounds,
until the Wilson interval of P(YES) lies wholly on one side of the target or `samples` answers
are in. The first answer without log-probabilities switches the probe to sampling for the rest
of the run, and the report says so.

Every answer goes through the shared `LLMClient`: cached (each sample under its own index),
retried, rate-limited and counted. An answer that is not YES, NO or UNSURE is asked again.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from veritrail_graphrag.cited.belief import (
    Belief,
    Label,
    LabelError,
    answer_label,
    belief_from_logprobs,
    belief_from_samples,
)
from veritrail_graphrag.cited.budget import wilson
from veritrail_graphrag.errors import LLMError
from veritrail_graphrag.llm.client import LLMClient
from veritrail_graphrag.llm.completion import AnswerParseError, Completion
from veritrail_graphrag.llm.request import Prompt

log = logging.getLogger(__name__)

ProbabilitySource = Literal["auto", "logprobs", "sampling"]


class ProbeSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

    probability: ProbabilitySource = Field(
        default="auto", description="logprobs when the endpoint gives them, else sampling"
    )
    top_logprobs: int = Field(default=10, ge=1, le=20)
    samples: int = Field(default=80, ge=1, description="most answers sampled per question without logprobs")
    sample_round: int = Field(default=10, ge=1)
    sample_temperature: float = Field(default=1.0, gt=0, le=2)
    confidence: float = Field(default=0.95, gt=0, lt=1, description="of the Wilson intervals")
    max_tokens: int = Field(default=5, ge=1, description="a one-word answer, plus room for a stray token")


def _label(completion: Completion) -> Label:
    try:
        return answer_label(completion.text)
    except LabelError as exc:
        raise AnswerParseError(str(exc)) from None


def _scored(completion: Completion) -> Belief | None:
    """The belief read from logprobs, or None when the answer (a valid label) carries none."""
    label = _label(completion)
    if completion.logprobs is None:
        return None
    try:
        return belief_from_logprobs(completion.logprobs, completion.text)
    except LabelError as exc:
        raise AnswerParseError(f"{exc} (answer {label.value})") from None


class EntailmentProbe:
    """Asks entailment prompts through one client; safe to share between concurrent claims."""

    def __init__(self, client: LLMClient, settings: ProbeSettings, target: float) -> None:
        self.client = client
        self.settings = settings
        self.target = target
        self.sampling = settings.probability == "sampling"

    def describe(self) -> str:
        s = self.settings
        if self.sampling:
            why = " (the endpoint gave no log-probabilities)" if s.probability == "auto" else ""
            return (
                f"sampled: up to {s.samples} answers per question at temperature {s.sample_temperature}, "
                f"Wilson {s.confidence:.0%} intervals{why}"
            )
        return f"top-{s.top_logprobs} log-probabilities of the first answer token, temperature 0"

    async def belief(self, prompt: Prompt, claim_id: str) -> Belief:
        if not self.sampling:
            belief = await self.client.ask(
                prompt,
                _scored,
                temperature=0.0,
                logprobs=self.settings.top_logprobs,
                max_tokens=self.settings.max_tokens,
                usage_key=claim_id,
                claim_id=claim_id,
            )
            if belief is not None:
                return belief
            if self.settings.probability == "logprobs":
                raise LLMError(
                    f"model {self.client.config.model!r} at {self.client.config.base_url or 'the OpenAI API'} "
                    "gives no log-probabilities; use probability 'auto' or 'sampling'",
                    call_kind="entailment",
                    claim_id=claim_id,
                )
            if not self.sampling:
                log.warning("the endpoint gives no log-probabilities: estimating P(YES) from samples")
            self.sampling = True
        return await self._sampled(prompt, claim_id)

    async def _sampled(self, prompt: Prompt, claim_id: str) -> Belief:
        s = self.settings
        labels: list[Label] = []
        while len(labels) < s.samples:
            indices = range(len(labels), min(len(labels) + s.sample_round, s.samples))
            labels += await asyncio.gather(
                *(
                    self.client.ask(
                        prompt,
                        _label,
                        sample=i,
                        temperature=s.sample_temperature,
                        max_tokens=s.max_tokens,
                        usage_key=claim_id,
                        claim_id=claim_id,
                    )
                    for i in indices
                )
            )
            yes = wilson(labels.count(Label.YES), len(labels), s.confidence)
            if yes.max < self.target or yes.min >= self.target:
                break
        return belief_from_samples(labels, s.confidence)
