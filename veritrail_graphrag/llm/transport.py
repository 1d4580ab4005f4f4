"""The wire side of a model call: one request sent under the concurrency semaphore and the
RPM/TPM limiter, transient failures retried with backoff (honouring Retry-After), the answer format
stepped down the ladder of `structured.py` when the endpoint rejects it, `logprobs` dropped when it
is rejected, and a local model's server started before the first request.

What is asked, how the answer is read and repaired, and what is cached is `client.py`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any

import openai

from veritrail_graphrag.errors import EndpointError, LLMError
from veritrail_graphrag.llm.completion import TokenLogprobs, read_logprobs
from veritrail_graphrag.llm.config import LLMConfig
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.llm.local_server import LocalServer, serve_local_model
from veritrail_graphrag.llm.providers import make_sdk_client
from veritrail_graphrag.llm.rate_limit import SlidingWindowLimiter
from veritrail_graphrag.llm.request import Prompt
from veritrail_graphrag.llm.retry import is_transient, is_unreachable, rejects_logprobs, retry_after_seconds
from veritrail_graphrag.llm.structured import Rung, RungMemory, rejects_format, response_format_for
from veritrail_graphrag.llm.usage import estimate_tokens

log = logging.getLogger(__name__)


class Reply:
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


class Request:
    """How to send one call, beyond its messages. `schema` replaces the prompt's answer schema (a
    repair turn that asks for some fields only)."""

    def __init__(
        self,
        prompt: Prompt,
        logprobs: int | None,
        max_tokens: int | None,
        temperature: float,
        seed: int | None,
        schema: dict[str, Any] | None = None,
    ) -> None:
        self.kind = prompt.kind
        self.schema = prompt.answer_schema if schema is None else schema
        self.logprobs = logprobs
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.seed = seed


class Transport:
    """Sends the requests of one `LLMConfig`. Safe to share between concurrent tasks; `config`
    gains the local server's address once it runs, `rung` is the answer format in use."""

    def __init__(
        self,
        config: LLMConfig,
        memory: RungMemory,
        *,
        limiter: SlidingWindowLimiter | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.config = config
        self.memory = memory
        self.memory_key = RungMemory.key(config.endpoint(), config.model)
        self.limiter = limiter or SlidingWindowLimiter(config.requests_per_minute, config.tokens_per_minute)
        self.rung = self._first_rung()
        self.logprobs_supported = True
        self._policy = config.retry_policy()
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._local = contextlib.ExitStack()
        self._local_started: asyncio.Lock | None = None
        self._server: LocalServer | None = None
        self._sdk: openai.AsyncOpenAI | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._semaphore: asyncio.Semaphore | None = None

    @property
    def local_server(self) -> LocalServer | None:
        """The local model's server this transport started, once it runs."""
        return self._server

    def _first_rung(self) -> Rung:
        """A configured rung, else the one remembered for this endpoint and model, else the top."""
        if self.config.structured_output != "auto":
            return Rung(self.config.structured_output)
        return self.memory.get(self.memory_key) or Rung.JSON_SCHEMA

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
            self._server = server
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

    async def send(self, messages: list[dict[str, str]], what: str, request: Request) -> Reply:
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
                if self._server is not None and (note := self._server.exit_note()) is not None:
                    raise EndpointError(f"{what}: {note}", call_kind=kind.value) from exc
                if not is_transient(exc):
                    raise self._fatal(exc, what, kind, attempt) from exc
                if attempt >= self._policy.max_attempts:
                    error = EndpointError if is_unreachable(exc) else LLMError
                    raise error(
                        f"{what}: gave up after {attempt} attempts to {self.where()}; last error: {describe(exc)}",
                        call_kind=kind.value,
                        status_code=getattr(exc, "status_code", None),
                    ) from exc
                headers = getattr(getattr(exc, "response", None), "headers", None)
                delay = self._policy.delay(attempt - 1, retry_after_seconds(headers), self._rng)
                reason = "rate limited" if getattr(exc, "status_code", None) == 429 else describe(exc)[:160]
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
            describe(exc)[:200],
            lower.value,
        )
        self.rung = lower

    def _reply(self, response: Any, prompt_chars: int, booking: list[float], rung: Rung) -> Reply:
        choices = getattr(response, "choices", None) or []
        text = (choices[0].message.content or "") if choices else ""
        logprobs = read_logprobs(choices[0]) if choices else None
        truncated = bool(choices) and getattr(choices[0], "finish_reason", None) == "length"
        usage = getattr(response, "usage", None)
        if usage is not None and (usage.prompt_tokens or usage.completion_tokens):
            details = getattr(usage, "prompt_tokens_details", None)
            cached = getattr(details, "cached_tokens", None) or 0
            reply = Reply(
                text, usage.prompt_tokens or 0, usage.completion_tokens or 0, False, logprobs, truncated, cached
            )
        else:
            reply = Reply(text, estimate_tokens(prompt_chars), estimate_tokens(len(text)), True, logprobs, truncated)
        self.limiter.settle(booking, reply.input_tokens + reply.output_tokens)
        reply.rung = rung
        return reply

    def where(self) -> str:
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
                f"{self.where()} refused {what} (attempt {attempts}): {describe(exc)}; {hints[status]}",
                call_kind=kind.value,
                status_code=status,
            )
        return LLMError(f"{what} failed: {describe(exc)}", call_kind=kind.value, status_code=status)

    async def aclose(self) -> None:
        """Close the HTTP client (when its loop is the running one) and stop a local model's server."""
        try:
            if self._sdk is not None and self._loop is asyncio.get_running_loop():
                await self._sdk.close()
            self._sdk = None
        finally:
            self._local.close()


def describe(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return f"{type(exc).__name__}" + (f" {status}" if status else "") + f": {message}"
