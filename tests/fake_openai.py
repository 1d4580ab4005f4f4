"""A real HTTP server that speaks the OpenAI chat-completions protocol, for tests and benchmarks.

It listens on 127.0.0.1 (a free port), answers from a Python callable keyed on the request, and
can misbehave on purpose: latency, 429 with Retry-After, 5xx, hangs past the client's timeout,
dropped connections, truncated or malformed bodies, answers cut at `max_tokens` (`Cut`), and
refusals of answer formats it does not take (`formats`, refused with `format_status`: 400, 422,
or 500 as llama-cpp-python does for `json_schema`). Going
through a real socket is the point: the retry code sees exactly the exceptions the openai SDK
raises in production, not mocks of them.

Rules are written against `PromptView`, which reads our prompts back (task, claim, sentence
labels, excerpts), so a test says "if the claim mentions X, answer Fully Supported" without
knowing the prompt layout.

Log-probabilities: a responder may return `Scored(text, top)`, the first answer token's
distribution. A request with `logprobs: true` then gets `choices[0].logprobs` with the `top`
tokens (at most `top_logprobs` of them), as OpenAI sends them; at temperature > 0 the answer is
drawn from `top`, deterministically (the n-th identical request takes the n-th point of an
equidistributed sequence), so k samples show the distribution. `logprobs=False` plays an
endpoint that ignores the parameter (`logprobs: null`), `reject_logprobs=True` one that refuses
it with a 400.

Prompt caching: with `prompt_cache=True` the usage says, as OpenAI does in
`usage.prompt_tokens_details.cached_tokens`, how many prompt tokens an earlier request already
held: its longest common prefix with any earlier prompt (message contents joined), at chars/4.
Real endpoints cache in blocks (OpenAI: from 1,024 tokens, by 128), so they report less.

Test modules load the `fake_openai` fixture with `pytest_plugins = ["fake_openai"]`; the module
asks pytest not to rewrite it (PYTEST_DONT_REWRITE) because they import it before that happens.
"""

from __future__ import annotations

import json
import math
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

import pytest


@dataclass(frozen=True)
class Scored:
    """An answer token with the distribution it was drawn from (token -> probability)."""

    text: str
    top: dict[str, float] = field(default_factory=dict)

    def distribution(self) -> dict[str, float]:
        return self.top or {self.text: 1.0}


@dataclass(frozen=True)
class Cut:
    """An answer the server stopped at `max_tokens`: sent with finish_reason "length"."""

    text: str


Answer = str | dict[str, Any] | list[Any] | Scored | Cut
Responder = Callable[[dict[str, Any]], Answer]
_GOLDEN = (math.sqrt(5) - 1) / 2
FaultKind = Literal["rate_limit", "server_error", "hang", "drop", "truncate", "malformed_json", "bad_request"]

_AZURE_PATH = re.compile(r"^/openai/deployments/(?P<deployment>[^/]+)/chat/completions$")
_TASK = re.compile(r"^Task: (?P<task>[a-z -]+)\.", re.MULTILINE)
_BLOCK = re.compile(r'<(data-[0-9a-f]+) name="(?P<name>[^"]+)"[^>]*>\n(?P<body>.*?)\n</\1>', re.DOTALL)
_LABELLED = re.compile(r"^\[(S\d+)\] (.*)$", re.MULTILINE)
_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_STOPWORDS = frozenset(
    "a an the of in on at to for from by with and or but is are was were be been being has have "
    "had it its this that these those as than then so such not no into over under about also".split()
)


@dataclass(frozen=True)
class Fault:
    """One misbehaviour. `retry_after` is sent verbatim (seconds or an HTTP date)."""

    kind: FaultKind
    retry_after: str | None = None
    status: int = 500
    seconds: float = 5.0


@dataclass
class RecordedRequest:
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: dict[str, Any]
    fault: Fault | None
    deployment: str | None = None


@dataclass
class PromptView:
    """Our prompt read back: which task, the claim, labelled sentences, other data blocks."""

    task: str
    system: str
    user: str
    blocks: dict[str, str] = field(default_factory=dict)
    sentences: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, request: dict[str, Any]) -> PromptView:
        messages = request.get("messages", [])
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        user = next((m["content"] for m in messages if m["role"] == "user"), "")
        task = _TASK.search(system)
        blocks: dict[str, str] = {}
        sentences: dict[str, str] = {}
        for match in _BLOCK.finditer(user):
            blocks[match["name"]] = match["body"]
            if match["name"].startswith("excerpt"):
                sentences.update(_LABELLED.findall(match["body"]))
        return cls(task["task"] if task else "", system, user, blocks, sentences)

    @property
    def claim(self) -> str:
        return self.blocks.get("claim", self.blocks.get("target", ""))

    @property
    def paper(self) -> bool:
        """Whether the prompt asks for the paper profile's answer (its steps' fields)."""
        return '"overview"' in self.system or '"clarified_claim"' in self.system

    @property
    def excerpts(self) -> list[str]:
        return [body for name, body in self.blocks.items() if name.startswith("excerpt")]


def _common_prefix(a: str, b: str) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS and len(w) > 1}


def overlap_oracle(view: PromptView, share: float = 0.6) -> Answer:
    """A deterministic stand-in for a model, good enough to drive the whole method.

    Evidence: sentences sharing at least `share` of the claim's content words. Verdict: Fully
    Supported when every content word of the claim appears in the excerpts. Decomposition: split
    on " and ". Extraction: the target sentence itself, unless it is a heading or a question.
    Evidence Selection and verdicts are answered in the shape the prompt asks for: the paper
    profile's steps (`paper_answer`) or the compact fields.
    """
    words = content_words(view.claim)
    if view.task == "evidence selection":
        picked = [
            label
            for label, text in view.sentences.items()
            if words and len(words & content_words(text)) >= share * len(words)
        ]
        summary = " ".join(view.sentences[label] for label in picked)
        if view.paper:
            return paper_evidence(view, picked, summary)
        return {
            "sub_claims": [view.claim],
            "review": "lexical",
            "selected": picked,
            "context": [],
            "summary": summary,
            "gaps": "N/A",
        }
    if view.task == "verdict generation":
        seen = set().union(*(content_words(e) for e in view.excerpts)) if view.excerpts else set()
        verdict = "Fully Supported" if words and words <= seen else "Not Fully Supported"
        if view.paper:
            return paper_verdict(view, verdict, bool(words & seen))
        return {
            "interpretation": "literal",
            "relevant_evidence": "",
            "conflicting_evidence": "none",
            "debatable_evidence": "none",
            "clear_evidence": "",
            "reasoning": f"words covered: {verdict}",
            "verdict": verdict,
        }
    if view.task == "sub-claim decomposition":
        parts = [p.strip() for p in view.claim.split(" and ") if p.strip()]
        return {"parts": parts}
    if view.task == "claim extraction":
        target = view.blocks.get("target", "").strip()
        keep = bool(target) and not target.startswith("#") and not target.endswith("?")
        return {
            "selection": "",
            "has_verifiable_content": keep,
            "disambiguation": "",
            "can_be_disambiguated": keep,
            "claims": [target] if keep else [],
        }
    raise AssertionError(f"unknown task in prompt: {view.task!r}")


def paper_evidence(view: PromptView, picked: list[str], summary: str) -> dict[str, Any]:
    """The paper profile's Evidence Selection answer for the oracle's selection: one test per
    selected sentence (at most six), or the overview's "nothing relevant" exit."""
    tests = [
        {"sentences": label, "sub_claim": view.claim, "quote": view.sentences[label], "context_quote": "N/A",
         "reading": "It states the sub-claim's words.", "strong": True}
        for label in picked[:6]
    ]  # fmt: skip
    return {
        "sub_claims": [view.claim],
        "overview": "; ".join(f"{label} states it" for label in picked) or "No sentence bears on the claim.",
        "relevant": bool(picked),
        "tests": tests,
        "selected": picked,
        "context": [],
        "summary": summary,
        "gaps": "N/A",
    }


def paper_verdict(view: PromptView, verdict: str, relevant: bool) -> dict[str, Any]:
    return {
        "interpretation": "literal",
        "clarified_claim": view.claim,
        "relevant_sentences": " ".join(f"[{label}] {text}" for label, text in view.sentences.items()),
        "relevant": relevant,
        "conflicting_evidence": "none",
        "debatable_evidence": "none",
        "clear_evidence": ", ".join(view.sentences),
        "reasoning": f"words covered: {verdict}",
        "verdict": verdict,
    }


def default_responder(request: dict[str, Any]) -> Answer:
    return overlap_oracle(PromptView.of(request))


def _token(text: str, probability: float) -> dict[str, Any]:
    return {
        "token": text,
        "logprob": math.log(probability) if probability > 0 else -9999.0,
        "bytes": list(text.encode()),
    }


def logprobs_body(scored: Scored, text: str, top_k: int) -> dict[str, Any]:
    """`choices[0].logprobs` for a one-token answer `text` drawn from `scored`'s distribution."""
    ranked = sorted(scored.distribution().items(), key=lambda kv: -kv[1])[:top_k]
    chosen = _token(text, scored.distribution().get(text, 0.0))
    chosen["top_logprobs"] = [_token(token, p) for token, p in ranked]
    return {"content": [chosen], "refusal": None}


def draw(scored: Scored, position: int) -> str:
    """The `position`-th deterministic draw from the distribution (golden-ratio sequence)."""
    point = (0.5 + position * _GOLDEN) % 1.0
    total = 0.0
    items = sorted(scored.distribution().items())
    mass = sum(p for _, p in items)
    for token, p in items:
        total += p / mass
        if point < total:
            return token
    return items[-1][0]


def completion_body(
    request: dict[str, Any], text: str, logprobs: dict[str, Any] | None = None, finish_reason: str = "stop"
) -> dict[str, Any]:
    """A chat.completion object; token counts are chars/4 so tests can predict them."""
    prompt_chars = sum(len(str(m.get("content", ""))) for m in request.get("messages", []))
    choice: dict[str, Any] = {
        "index": 0,
        "finish_reason": finish_reason,
        "message": {"role": "assistant", "content": text},
    }
    choice["logprobs"] = logprobs
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "fake"),
        "choices": [choice],
        "usage": {
            "prompt_tokens": prompt_chars // 4,
            "completion_tokens": len(text) // 4,
            "total_tokens": prompt_chars // 4 + len(text) // 4,
        },
    }


class _Server(ThreadingHTTPServer):
    """A listen backlog above the default 5: more simultaneous connections would wait for the
    client's SYN retry (a second) and measure the kernel instead of the code under test."""

    request_queue_size = 256
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (a cancelled or timed-out request, a test's cut connection) is
        what tests do on purpose: not a traceback on stderr for each. Anything else is printed."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class FakeOpenAI:
    """The server. Use as a context manager, or through the `fake_openai` pytest fixture.

    `faults` is consumed one entry per request in arrival order (None = behave); after it runs
    out every request is answered normally. Everything is thread-safe.
    """

    def __init__(
        self,
        responder: Responder = default_responder,
        *,
        latency: float = 0.0,
        faults: Iterable[Fault | None] = (),
        reject_response_format: bool = False,
        formats: Iterable[str] | None = None,
        format_status: int = 400,
        report_usage: bool = True,
        logprobs: bool = True,
        reject_logprobs: bool = False,
        prompt_cache: bool = False,
    ) -> None:
        self.responder = responder
        self.latency = latency
        self.reject_response_format = reject_response_format
        self.formats = None if formats is None else frozenset(formats)
        self.format_status = format_status
        self.report_usage = report_usage
        self.logprobs = logprobs
        self.reject_logprobs = reject_logprobs
        self.prompt_cache = prompt_cache
        self._prompts: list[str] = []
        self._draws: dict[str, int] = {}
        self.in_flight = 0
        self.max_in_flight = 0
        self.requests: list[RecordedRequest] = []
        self.errors: list[str] = []
        self._faults: deque[Fault | None] = deque(faults)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = _Server(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """Base URL for OpenAI-style clients (ends in /v1)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def azure_endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def schedule(self, faults: Iterable[Fault | None]) -> None:
        with self._lock:
            self._faults.extend(faults)

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.errors.clear()
            self._faults.clear()
            self._draws.clear()
            self.max_in_flight = 0

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def cached_tokens(self, body: dict[str, Any]) -> int:
        """Tokens of this prompt's longest common prefix with an earlier one (chars/4); remembers it."""
        text = "".join(str(m.get("content", "")) for m in body.get("messages", []))
        with self._lock:
            shared = max((_common_prefix(text, earlier) for earlier in self._prompts), default=0)
            self._prompts.append(text)
        return shared // 4

    def views(self) -> list[PromptView]:
        with self._lock:
            return [PromptView.of(r.body) for r in self.requests]

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next_fault(self, record: RecordedRequest) -> Fault | None:
        with self._lock:
            fault = self._faults.popleft() if self._faults else None
            record.fault = fault
            self.requests.append(record)
        if fault is None and "response_format" in record.body and not self.takes(record.body["response_format"]):
            return Fault("bad_request", status=self.format_status)
        if fault is None and self.reject_logprobs and record.body.get("logprobs"):
            return Fault("bad_request", status=400)
        return fault

    def takes(self, answer_format: dict[str, Any]) -> bool:
        """Whether this server accepts `response_format`: by its kind, "json_object_schema" being
        `{"type": "json_object", "schema": ...}` (llama-cpp-python's grammar-constrained JSON)."""
        if self.reject_response_format:
            return False
        kind = answer_format.get("type", "")
        if kind == "json_object" and "schema" in answer_format:
            kind = "json_object_schema"
        return self.formats is None or kind in self.formats

    def _answer(self, body: dict[str, Any]) -> tuple[str, dict[str, Any] | None, str]:
        """The answer's text, its `logprobs` object when asked for and this server gives them, and
        the finish reason."""
        try:
            answer = self.responder(body)
        except Exception as exc:  # surfaced to the test through `errors`
            with self._lock:
                self.errors.append(f"{type(exc).__name__}: {exc}")
            raise
        if isinstance(answer, Cut):
            return answer.text, None, "length"
        if not isinstance(answer, Scored):
            text = answer if isinstance(answer, str) else json.dumps(answer)
            answer = Scored(text)
        text = answer.text
        if (body.get("temperature") or 0) > 0:
            key = json.dumps(body.get("messages", []), sort_keys=True)
            with self._lock:
                position = self._draws.get(key, 0)
                self._draws[key] = position + 1
            text = draw(answer, position)
        if not (self.logprobs and body.get("logprobs")):
            return text, None, "stop"
        return text, logprobs_body(answer, text, int(body.get("top_logprobs") or 1)), "stop"

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms stalls

            def log_message(self, format: str, *args: Any) -> None:
                """Silence the default stderr access log."""

            def do_POST(self) -> None:
                parts = urlsplit(self.path)
                azure = _AZURE_PATH.match(parts.path)
                if parts.path not in ("/v1/chat/completions", "/chat/completions") and not azure:
                    self._json(404, {"error": {"message": f"no route {parts.path}"}})
                    return
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                record = RecordedRequest(
                    path=parts.path,
                    query=parse_qs(parts.query),
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                    fault=None,
                    deployment=azure["deployment"] if azure else None,
                )
                fault = server._next_fault(record)
                server._enter()
                try:
                    self._respond(fault, body)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up (timeout, cancelled claim)
                finally:
                    server._leave()

            def _respond(self, fault: Fault | None, body: dict[str, Any]) -> None:
                if server.latency:
                    server._stopping.wait(server.latency)
                if fault is not None and self._misbehave(fault, body):
                    return
                try:
                    text, logprobs, finish_reason = server._answer(body)
                except Exception as exc:
                    self._json(500, {"error": {"message": f"responder failed: {exc}"}})
                    return
                payload = completion_body(body, text, logprobs, finish_reason)
                if server.prompt_cache:
                    payload["usage"]["prompt_tokens_details"] = {"cached_tokens": server.cached_tokens(body)}
                if not server.report_usage:
                    del payload["usage"]
                self._json(200, payload)

            def _misbehave(self, fault: Fault, body: dict[str, Any]) -> bool:
                """Act out the fault; False when the request should then be answered normally."""
                if fault.kind == "rate_limit":
                    headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
                    self._json(429, {"error": {"message": "slow down", "type": "rate_limit"}}, headers)
                elif fault.kind == "server_error":
                    self._json(fault.status, {"error": {"message": "boom", "type": "server_error"}})
                elif fault.kind == "bad_request":
                    param = "logprobs" if server.reject_logprobs and body.get("logprobs") else "response_format"
                    detail = f" type {body[param].get('type')!r}" if param == "response_format" else ""
                    self._json(
                        fault.status,
                        {
                            "error": {
                                "message": f"{param}{detail} is not supported",
                                "type": "invalid_request_error",
                                "param": param,
                            }
                        },
                    )
                elif fault.kind == "hang":
                    server._stopping.wait(fault.seconds)
                    self.close_connection = True
                elif fault.kind == "drop":
                    self.close_connection = True
                elif fault.kind == "truncate":
                    payload = json.dumps(completion_body(body, *server._answer(body))).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload[: len(payload) // 2])
                    self.close_connection = True
                elif fault.kind == "malformed_json":
                    payload = b'{"id": "chatcmpl-fake", "choices": [{"message": '
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                return True

            def _json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

        return Handler


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A started server with the overlap oracle; set `.responder`, `.latency`, `.schedule(...)`."""
    with FakeOpenAI() as server:
        yield server
