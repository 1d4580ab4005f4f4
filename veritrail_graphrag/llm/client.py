"""One place where model calls are asked: the cache, the conversation and the usage.

A call is `complete(prompt, parse)` (the answer's text), or `ask(prompt, parse, logprobs=k)` when
the caller also needs the answer tokens' log-probabilities. The cache is asked first (keyed by
`cache.request_payload`); on a miss `transport.py` sends the request (limits, retries, the answer
format's ladder) and the answer is parsed.

An answer that cannot be parsed (or was cut at `max_tokens`) is never asked for again as is: the
second attempt shows the model its answer, the problem and the schema (a repair turn); later
attempts ask the original question afresh at a nonzero temperature with another seed, because at
temperature 0 the same request gets the same answer back. Both are counted in the usage. When the
parser could read part of a JSON answer (`AnswerParseError.kept`), the repair turn asks only for the
fields it lacked, under a schema of those fields, and reads the reply together with the kept ones:
a small model that skips one field is not made to write (and pay for) its whole answer again. Only
an answer that parsed is cached, whole, under the key of the original request, so a re-run finds it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from veritrail_graphrag.errors import LLMError, PromptTooLongError
from veritrail_graphrag.llm.cache import CachedAnswer, ResponseCache, cache_key, request_payload
from veritrail_graphrag.llm.completion import AnswerParseError, Completion
from veritrail_graphrag.llm.config import LLMConfig
from veritrail_graphrag.llm.json_text import merged
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.llm.rate_limit import SlidingWindowLimiter
from veritrail_graphrag.llm.request import JSON_COMPLETE, Prompt
from veritrail_graphrag.llm.structured import Rung, RungMemory
from veritrail_graphrag.llm.transport import Reply, Request, Transport
from veritrail_graphrag.llm.usage import RetryReason, UsageLedger, current_usage_key, estimate_tokens

log = logging.getLogger(__name__)
_T = TypeVar("_T")
RESAMPLE_TEMPERATURE = 0.7
MEMORY_FILE = "structured_output.json"


class LLMClient:
    """Async chat client for one `LLMConfig`. Safe to share between concurrent tasks."""

    def __init__(
        self,
        config: LLMConfig,
        *,
        cache: ResponseCache | None = None,
        ledger: UsageLedger | None = None,
        limiter: SlidingWindowLimiter | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.cache = cache
        self.ledger = ledger or UsageLedger(config.prices)
        memory = RungMemory(config.cache_path.with_name(MEMORY_FILE) if config.cache and config.cache_path else None)
        self.transport = Transport(config, memory, limiter=limiter, sleep=sleep, rng=rng)

    @property
    def config(self) -> LLMConfig:
        """The settings, with the local server's address once it runs."""
        return self.transport.config

    @property
    def rung(self) -> Rung:
        """The answer format the endpoint accepts (see `structured.py`)."""
        return self.transport.rung

    async def complete(
        self,
        prompt: Prompt,
        parse: Callable[[str], _T],
        *,
        sample: int = 0,
        temperature: float | None = None,
        usage_key: str | None = None,
        subject: str | None = None,
        claim_id: str | None = None,
    ) -> _T:
        """Answer `prompt` and return `parse(answer text)`; LLMError if impossible.

        `sample` distinguishes repeated samples of one prompt in the cache; `usage_key` and
        `subject` attribute the usage (see `usage.py`); `claim_id` names the claim in errors.
        """
        return await self.ask(
            prompt,
            lambda completion: parse(completion.text),
            sample=sample,
            temperature=temperature,
            usage_key=usage_key,
            subject=subject,
            claim_id=claim_id,
        )

    async def ask(
        self,
        prompt: Prompt,
        parse: Callable[[Completion], _T],
        *,
        sample: int = 0,
        temperature: float | None = None,
        usage_key: str | None = None,
        subject: str | None = None,
        claim_id: str | None = None,
        logprobs: int | None = None,
        max_tokens: int | None = None,
    ) -> _T:
        """Like `complete`, but `parse` sees the whole `Completion`: with `logprobs=k` it carries
        the top-k log-probabilities of each answer token (None if the endpoint gives none).
        `max_tokens` caps this call's answer (one-word answers need a handful)."""
        kind = prompt.kind
        temperature = self.config.temperature if temperature is None else temperature
        # Retry and failure lines name the claim: given, attributed, or linked to the text asked about.
        named = claim_id or usage_key or current_usage_key.get() or (self.ledger.key_of(subject) if subject else None)
        what = f"{kind.label} call" + (f" for claim {named!r}" if named else "")
        payload = request_payload(
            self.config,
            prompt,
            sample,
            temperature,
            self.config.uses_structured_output,
            logprobs=logprobs,
            max_tokens=max_tokens,
        )
        key = cache_key(payload)
        if self.cache is not None and (hit := await self.cache.get(key)) is not None:
            try:
                result = parse(Completion(text=hit.answer, logprobs=hit.logprobs))
            except AnswerParseError:
                log.warning("ignoring a cached %s answer that no longer parses", kind.label)
            else:
                self.ledger.record(kind, self.config.model, usage_key=usage_key, subject=subject, cached=True)
                return result

        self._check_length(prompt, what)
        original = [m.model_dump() for m in prompt.messages]
        limit = max_tokens or self.config.max_output_tokens or prompt.max_tokens
        messages, request, retry = original, Request(prompt, logprobs, limit, temperature, self.config.seed), None
        kept: dict[str, Any] = {}
        problem = ""
        for attempt in range(self.config.parse_attempts):
            reply = await self.transport.send(messages, what, request)
            text = merged(kept, reply.text) if kept else reply.text
            try:
                if reply.truncated:
                    raise AnswerParseError(
                        f"the answer was cut off at max_tokens={request.max_tokens} (finish_reason 'length')"
                    )
                result = parse(Completion(text=text, logprobs=reply.logprobs))
            except AnswerParseError as exc:
                problem = str(exc)
                self._record(kind, reply, usage_key, subject, parsed=False, retry=retry)
                if attempt == 0:
                    retry = "repair"
                    narrowed = self._narrowed(prompt, exc)
                    repair = self._repair(prompt, problem, narrowed)
                    messages = [*original, {"role": "assistant", "content": reply.text}, repair]
                    if narrowed is None:
                        log.info("%s: unreadable answer (%s); asking for a repair", what, problem)
                    else:
                        log.info("%s: %s; asking for %s only", what, problem, ", ".join(exc.missing))
                        kept = exc.kept
                        request = Request(prompt, logprobs, limit, temperature, self.config.seed, schema=narrowed)
                else:
                    retry = "resample"
                    log.info("%s: unreadable answer (%s); asking afresh with another seed", what, problem)
                    kept = {}
                    messages = original
                    request = Request(
                        prompt,
                        logprobs,
                        limit,
                        max(temperature, RESAMPLE_TEMPERATURE),
                        (self.config.seed or 0) + attempt,
                    )
                continue
            self._record(kind, reply, usage_key, subject, parsed=True, retry=retry)
            if request.schema is not None and reply.rung is not None and self.config.structured_output == "auto":
                self.transport.memory.put(self.transport.memory_key, reply.rung)
            if self.cache is not None:
                await self.cache.put(
                    CachedAnswer(
                        key=key,
                        kind=kind.value,
                        model=self.config.model,
                        answer=text,
                        logprobs=reply.logprobs,
                        input_tokens=reply.input_tokens,
                        output_tokens=reply.output_tokens,
                        estimated=reply.estimated,
                        created_at=time.time(),
                    )
                )
            return result
        raise LLMError(
            f"{what}: the model's answer could not be read after {self.config.parse_attempts} "
            f"attempts ({problem}); model {self.config.model!r}",
            call_kind=kind.value,
            claim_id=claim_id,
        )

    def _check_length(self, prompt: Prompt, what: str) -> None:
        """Refuse a prompt over the input limit before paying for it: the server would reject it or
        silently drop its beginning. The engine packs prompts to fit, so this catches what cannot
        be packed (a huge claim or answer sentence)."""
        tokens = estimate_tokens(sum(len(m.content) for m in prompt.messages))
        if tokens > self.config.input_limit:
            raise PromptTooLongError(
                f"{what}: the prompt is about {tokens:,} tokens, over the limit of {self.config.input_limit:,} "
                "(max_input_tokens under [llm] in veritrail.toml, or VERITRAIL_MAX_INPUT_TOKENS); not sent",
                call_kind=prompt.kind.value,
            )

    @staticmethod
    def _narrowed(prompt: Prompt, exc: AnswerParseError) -> dict[str, Any] | None:
        """The answer schema cut down to the fields the answer lacked, when it had others that were
        read; None when the whole answer is to be asked again."""
        schema = prompt.answer_schema
        if schema is None or not exc.kept or not exc.missing or not set(exc.missing) <= set(schema["properties"]):
            return None
        return {
            **schema,
            "properties": {name: schema["properties"][name] for name in exc.missing},
            "required": list(exc.missing),
        }

    @staticmethod
    def _repair(prompt: Prompt, problem: str, narrowed: dict[str, Any] | None) -> dict[str, str]:
        if narrowed is not None:
            fields = " and ".join(f'"{name}"' for name in narrowed["required"])
            text = JSON_COMPLETE.format(problem=problem, fields=fields)
        else:
            text = prompt.repair.format(problem=problem)
        schema = narrowed or prompt.answer_schema
        if schema is not None:
            text += "\nThe answer must be valid JSON for this schema:\n" + json.dumps(schema)
        return {"role": "user", "content": text}

    def _record(
        self,
        kind: CallKind,
        reply: Reply,
        usage_key: str | None,
        subject: str | None,
        parsed: bool,
        retry: RetryReason | None,
    ) -> None:
        self.ledger.record(
            kind,
            self.config.model,
            usage_key=usage_key,
            subject=subject,
            input_tokens=reply.input_tokens,
            cached_input_tokens=reply.cached_input_tokens,
            output_tokens=reply.output_tokens,
            estimated=reply.estimated,
            parsed=parsed,
            truncated=reply.truncated,
            retry=retry,
        )

    async def aclose(self) -> None:
        """Close the HTTP client, the cache, and stop a local model's server."""
        try:
            await self.transport.aclose()
        finally:
            if self.cache is not None:
                self.cache.close()
