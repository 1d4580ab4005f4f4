"""One place where model calls happen: cache, limits, retries, structured output and usage.

A call is `complete(prompt, parse)` (the answer's text), or `ask(prompt, parse, logprobs=k)` when
the caller also needs the answer tokens' log-probabilities. The cache is asked first; on a miss
the request goes out under the concurrency semaphore and the RPM/TPM limiter, transient failures
are retried with backoff (honouring Retry-After), and the answer is parsed.

An answer that cannot be parsed (or was cut at `max_tokens`) is never asked for again as is: the
second attempt shows the model its answer, the problem and the schema (a repair turn); later
attempts ask the original question afresh at a nonzero temperature with another seed, because at
temperature 0 the same request gets the same answer back. Both are counted in the usage. Only an
answer that parsed is cached, under the key of the original request, so a re-run finds it.

The answer format walks the ladder in `structured.py` when the endpoint rejects it; `logprobs`
rejected with a 400 is dropped for the rest of the run (answers then carry none).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import openai

from veritrail_graphrag.errors import EndpointError, LLMError, PromptTooLongError
from veritrail_graphrag.llm.cache import CachedAnswer, ResponseCache, cache_key
from veritrail_graphrag.llm.completion import AnswerParseError, Completion, TokenLogprobs, read_logprobs
from veritrail_graphrag.llm.config import LLMConfig
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.llm.local_server import serve_local_model
from veritrail_graphrag.llm.providers import make_sdk_client
from veritrail_graphrag.llm.rate_limit import SlidingWindowLimiter
from veritrail_graphrag.llm.request import Prompt
from veritrail_graphrag.llm.retry import is_transient, is_unreachable, rejects_logprobs, retry_after_seconds
from veritrail_graphrag.llm.structured import Rung, RungMemory, rejects_format, response_format_for
from veritrail_graphrag.llm.usage import RetryReason, UsageLedger, current_usage_key, estimate_tokens

log = logging.getLogger(__name__)
_T = TypeVar("_T")
RESAMPLE_TEMPERATURE = 0.7
MEMORY_FILE = "structured_output.json"


class _Reply:
    """Text of one answered request, its logprobs if any, and what it cost."""

    def __init__(
        self,
        text: str,
        input_tokens: int,
        output_tokens: int,
        estimated: bool,
        logprobs: list[TokenLogprobs] | None = None,
        truncated: bool = False,
        cached_input_tokens: int = 0,
    ) -> None:
        self.text = text
        self.input_tokens = input_tokens
        self.cached_input_tokens = cached_input_tokens
        self.output_tokens = output_tokens
        self.estimated = estimated
        self.logprobs = logprobs
        self.truncated = truncated
        self.rung: Rung | None = None


class _Request:
    """How to send one call, beyond its messages."""

    def __init__(
        self, prompt: Prompt, logprobs: int | None, max_tokens: int | None, temperature: float, seed: int | None
    ) -> None:
        self.kind = prompt.kind
        self.schema = prompt.answer_schema
        self.logprobs = logprobs
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.seed = seed


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
        self.config = config
        self.cache = cache
        self.ledger = ledger or UsageLedger(config.prices)
        self.limiter = limiter or SlidingWindowLimiter(config.requests_per_minute, config.tokens_per_minute)
        self.memory = RungMemory(
            config.cache_path.with_name(MEMORY_FILE) if config.cache and config.cache_path else None
        )
        self._memory_key = RungMemory.key(config.endpoint(), config.model)
        self.rung = self._first_rung()
        self.logprobs_supported = True
        self._policy = config.retry_policy()
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._local = contextlib.ExitStack()
        self._local_started: asyncio.Lock | None = None
        self._sdk: openai.AsyncOpenAI | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._semaphore: asyncio.Semaphore | None = None

    def _first_rung(self) -> Rung:
        """A configured rung, else the one remembered for this endpoint and model, else the top."""
        if self.config.structured_output != "auto":
            return Rung(self.config.structured_output)
        return self.memory.get(self._memory_key) or Rung.JSON_SCHEMA

    async def _serve_local_model(self) -> None:
        """Start the configured local model's server before the first request (once)."""
        if self.config.local_model is None or self.config.base_url is not None:
            return
        self._local_started = self._local_started or asyncio.Lock()
        async with self._local_started:
            if self.config.base_url is not None:
                return
            server = await asyncio.to_thread(
                self._local.enter_context,
                serve_local_model(self.config.local_model, alias=self.config.model, n_ctx=self.config.local_context),
            )
            log.info("serving %s at %s", server.model_path, server.base_url)
            self.config = self.config.model_copy(update={"base_url": server.base_url})
            self._sdk = None

    def _bind(self) -> tuple[openai.AsyncOpenAI, asyncio.Semaphore]:
        """SDK client and semaphore belong to an event loop; make new ones when the loop changes."""
        loop = asyncio.get_running_loop()
        if self._sdk is None or self._semaphore is None or self._loop is not loop:
            self._sdk = make_sdk_client(self.config)
            self._semaphore = asyncio.Semaphore(self.config.concurrency)
            self.limiter.rebind()
            self._loop = loop
        return self._sdk, self._semaphore

    def cache_payload(
        self,
        prompt: Prompt,
        sample: int,
        temperature: float,
        structured: bool,
        *,
        logprobs: int | None = None,
        max_tokens: int | None = None,
    ) -> dict[str, Any]:
        """Everything that changes the answer, and nothing else (no key, timeout or retry setting).

        `structured` is the configured wish and the payload holds the answer's schema, not the rung
        the endpoint accepted: the question is the same either way, and a re-run must find the
        answers of a run that stepped down the ladder.
        The same holds for `logprobs`. It is left out when not asked for, so that the keys of
        answers cached before it existed stay valid.
        """
        payload = {
            "endpoint": self.config.endpoint(),
            "model": self.config.model,
            "messages": [m.model_dump() for m in prompt.messages],
            "response_format": prompt.answer_schema if structured else None,
            "temperature": temperature,
            "seed": self.config.seed,
            "max_output_tokens": max_tokens or self.config.max_output_tokens,
            "sample": sample,
        }
        if logprobs is not None:
            payload["logprobs"] = logprobs
        return payload

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
        payload = self.cache_payload(
            prompt, sample, temperature, self.config.uses_structured_output, logprobs=logprobs, max_tokens=max_tokens
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
        messages, request, retry = original, _Request(prompt, logprobs, limit, temperature, self.config.seed), None
        problem = ""
        for attempt in range(self.config.parse_attempts):
            reply = await self._send(messages, what, request)
            try:
                if reply.truncated:
                    raise AnswerParseError(
                        f"the answer was cut off at max_tokens={request.max_tokens} (finish_reason 'length')"
                    )
                result = parse(Completion(text=reply.text, logprobs=reply.logprobs))
            except AnswerParseError as exc:
                problem = str(exc)
                self._record(kind, reply, usage_key, subject, parsed=False, retry=retry)
                if attempt == 0:
                    retry = "repair"
                    log.info("%s: unreadable answer (%s); asking for a repair", what, problem)
                    messages = [*original, {"role": "assistant", "content": reply.text}, self._repair(prompt, problem)]
                else:
                    retry = "resample"
                    log.info("%s: unreadable answer (%s); asking afresh with another seed", what, problem)
                    messages = original
                    request = _Request(
                        prompt,
                        logprobs,
                        limit,
                        max(temperature, RESAMPLE_TEMPERATURE),
                        (self.config.seed or 0) + attempt,
                    )
                continue
            self._record(kind, reply, usage_key, subject, parsed=True, retry=retry)
            if request.schema is not None and reply.rung is not None and self.config.structured_output == "auto":
                self.memory.put(self._memory_key, reply.rung)
            if self.cache is not None:
                await self.cache.put(
                    CachedAnswer(
                        key=key,
                        kind=kind.value,
                        model=self.config.model,
                        answer=reply.text,
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
    def _repair(prompt: Prompt, problem: str) -> dict[str, str]:
        text = prompt.repair.format(problem=problem)
        if prompt.answer_schema is not None:
            text += "\nThe answer must be valid JSON for this schema:\n" + json.dumps(prompt.answer_schema)
        return {"role": "user", "content": text}

    def _record(
        self,
        kind: CallKind,
        reply: _Reply,
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

    async def _send(self, messages: list[dict[str, str]], what: str, request: _Request) -> _Reply:
        """One request, retried on transient failures; raises LLMError on anything else."""
        await self._serve_local_model()
        sdk, semaphore = self._bind()
        kind = request.kind
        prompt_chars = sum(len(m["content"]) for m in messages)
        booked_tokens = estimate_tokens(prompt_chars) + (request.max_tokens or 1000)
        attempt = 0
        while True:
            rung = self.rung
            arguments: dict[str, Any] = {
                "model": self.config.model,
                "messages": messages,
                "temperature": request.temperature,
            }
            if request.seed is not None:
                arguments["seed"] = request.seed
            if request.max_tokens is not None:
                arguments["max_tokens"] = request.max_tokens
            if request.schema is not None and (
                answer_format := response_format_for(
                    rung, kind.value, request.schema, strict_subset=self.config.strict_schema_subset
                )
            ):
                arguments["response_format"] = answer_format
            if request.logprobs is not None and self.logprobs_supported:
                arguments["logprobs"] = True
                arguments["top_logprobs"] = request.logprobs
            booking = await self.limiter.acquire(booked_tokens)
            try:
                async with semaphore:
                    response = await sdk.chat.completions.create(**arguments)
            except Exception as exc:
                self.limiter.settle(booking, 0)
                if "logprobs" in arguments and rejects_logprobs(exc):
                    log.warning("the endpoint rejects logprobs; asking without them from now on")
                    self.logprobs_supported = False
                    continue
                if "response_format" in arguments and rejects_format(exc) and rung.below() is not None:
                    self._step_down(rung, exc)
                    continue
                attempt += 1
                if not is_transient(exc):
                    raise self._fatal(exc, what, kind, attempt) from exc
                if attempt >= self._policy.max_attempts:
                    error = EndpointError if is_unreachable(exc) else LLMError
                    raise error(
                        f"{what}: gave up after {attempt} attempts to {self._where()}; last error: {_describe(exc)}",
                        call_kind=kind.value,
                        status_code=getattr(exc, "status_code", None),
                    ) from exc
                headers = getattr(getattr(exc, "response", None), "headers", None)
                delay = self._policy.delay(attempt - 1, retry_after_seconds(headers), self._rng)
                reason = "rate limited" if getattr(exc, "status_code", None) == 429 else _describe(exc)[:160]
                wait = f"{delay:.0f}" if delay >= 10 else f"{delay:.1f}"
                log.info(
                    "%s: %s; retrying in %s s (attempt %d/%d)",
                    what,
                    reason,
                    wait,
                    attempt + 1,
                    self._policy.max_attempts,
                )
                await self._sleep(delay)
                continue
            return self._reply(response, prompt_chars, booking, rung)

    def _step_down(self, rejected: Rung, exc: BaseException) -> None:
        """One rung down from the one this request used; concurrent rejections of it step once."""
        lower = rejected.below()
        if lower is None or self.rung is not rejected:
            return
        log.warning(
            "%s rejects response_format %r (%s); asking with %r from now on",
            self.config.base_url or "the endpoint",
            rejected.value,
            _describe(exc)[:200],
            lower.value,
        )
        self.rung = lower

    def _reply(self, response: Any, prompt_chars: int, booking: list[float], rung: Rung) -> _Reply:
        choices = getattr(response, "choices", None) or []
        text = (choices[0].message.content or "") if choices else ""
        logprobs = read_logprobs(choices[0]) if choices else None
        truncated = bool(choices) and getattr(choices[0], "finish_reason", None) == "length"
        usage = getattr(response, "usage", None)
        if usage is not None and (usage.prompt_tokens or usage.completion_tokens):
            details = getattr(usage, "prompt_tokens_details", None)
            cached = getattr(details, "cached_tokens", None) or 0
            reply = _Reply(
                text, usage.prompt_tokens or 0, usage.completion_tokens or 0, False, logprobs, truncated, cached
            )
        else:
            reply = _Reply(text, estimate_tokens(prompt_chars), estimate_tokens(len(text)), True, logprobs, truncated)
        self.limiter.settle(booking, reply.input_tokens + reply.output_tokens)
        reply.rung = rung
        return reply

    def _where(self) -> str:
        """The endpoint and model, as a user would look them up in their settings."""
        target = self.config.azure_deployment or self.config.model
        return f"{self.config.base_url or 'the OpenAI API'} (model {target!r})"

    def _fatal(self, exc: Exception, what: str, kind: CallKind, attempts: int) -> LLMError:
        """A refused key or an unknown model ends the run (`EndpointError`); any other refusal is
        this request's problem and fails its claim."""
        status = getattr(exc, "status_code", None)
        hints = {
            401: f"check the API key ({self.config.key_variable} or VERITRAIL_API_KEY)",
            403: "the key is not allowed to use this model or endpoint",
            404: "no such model or deployment there",
        }
        if status in hints:
            return EndpointError(
                f"{self._where()} refused {what} (attempt {attempts}): {_describe(exc)}; {hints[status]}",
                call_kind=kind.value,
                status_code=status,
            )
        return LLMError(f"{what} failed: {_describe(exc)}", call_kind=kind.value, status_code=status)

    async def aclose(self) -> None:
        """Close the HTTP client (when its loop is the running one), the cache, and stop a local
        model's server."""
        try:
            if self._sdk is not None and self._loop is asyncio.get_running_loop():
                await self._sdk.close()
            self._sdk = None
            if self.cache is not None:
                self.cache.close()
        finally:
            self._local.close()


def _describe(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return f"{type(exc).__name__}" + (f" {status}" if status else "") + f": {message}"
