"""Structured output on the servers people run: a ladder of `response_format`s, and its memory.

Servers differ in what they accept. OpenAI, Azure, vLLM, Ollama, llama.cpp's own `llama-server`
and LM Studio take `{"type": "json_schema", ...}`; llama-cpp-python's server refuses it (with an
HTTP 500) but constrains decoding with `{"type": "json_object", "schema": ...}`; others know only
`json_object`; some nothing. `structured_output = "auto"` starts at the top and steps down one
rung each time the endpoint rejects the format, down to plain text read by the tolerant parser.
The rung that worked is remembered per endpoint and model in a small file beside the answer cache,
so the next run starts there and spends no request finding it again.

Answer schemas bound every string and list (`maxLength`, `maxItems`): grammar-constrained decoding
honours them, which stops a small model rambling inside one string until `max_tokens`. OpenAI's
and Azure's strict mode reject length keywords, so the `json_schema` rung drops them there.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
from enum import StrEnum
from pathlib import Path
from typing import Any

import openai

log = logging.getLogger(__name__)

_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "schema", "structured", "grammar")
_PROMPT_PROBLEMS = ("context length", "context_length", "maximum context", "too many tokens", "max_tokens")
_LENGTH_KEYWORDS = frozenset({"maxLength", "minLength", "maxItems", "minItems"})


class Rung(StrEnum):
    JSON_SCHEMA = "json_schema"
    JSON_OBJECT_SCHEMA = "json_object_schema"
    JSON_OBJECT = "json_object"
    TEXT = "text"

    def below(self) -> Rung | None:
        order = list(Rung)
        position = order.index(self)
        return order[position + 1] if position + 1 < len(order) else None


def without_length_bounds(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: without_length_bounds(v) for k, v in node.items() if k not in _LENGTH_KEYWORDS}
    if isinstance(node, list):
        return [without_length_bounds(item) for item in node]
    return node


def response_format_for(rung: Rung, name: str, schema: dict[str, Any], *, strict_subset: bool) -> dict[str, Any] | None:
    """The `response_format` argument for this rung, or None for plain text."""
    if rung is Rung.JSON_SCHEMA:
        body = without_length_bounds(schema) if strict_subset else schema
        return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": body}}
    if rung is Rung.JSON_OBJECT_SCHEMA:
        return {"type": "json_object", "schema": schema}
    if rung is Rung.JSON_OBJECT:
        return {"type": "json_object"}
    return None


def _error_text(exc: openai.APIStatusError) -> str:
    body = exc.body if isinstance(exc.body, dict | str) else ""
    return f"{getattr(exc, 'param', '') or ''} {exc.message} {json.dumps(body) if isinstance(body, dict) else body}"


def rejects_format(exc: BaseException) -> bool:
    """The endpoint refused the answer format we asked for (and not the prompt or the server itself).

    400 and 422 are request errors: they step down unless they blame the prompt's length. A 500
    steps down only when its body names the format (llama-cpp-python's way of refusing
    `json_schema`); a plain 500 is a server fault, retried as such.
    """
    if not isinstance(exc, openai.APIStatusError):
        return False
    text = _error_text(exc).lower()
    if exc.status_code in (400, 422):
        return not any(word in text for word in _PROMPT_PROBLEMS)
    if exc.status_code == 500:
        return any(word in text for word in _FORMAT_WORDS)
    return False


class RungMemory:
    """Which rung worked, per endpoint and model: a JSON file written atomically, shared by runs."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()

    @staticmethod
    def key(endpoint: dict[str, Any], model: str) -> str:
        return json.dumps({**endpoint, "model": model}, sort_keys=True)

    def _read(self) -> dict[str, str]:
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("%s: ignoring an unreadable structured-output memory (%s)", self.path, exc)
            return {}
        return {k: v for k, v in data.items() if isinstance(v, str) and v in Rung.__members__.values()}

    def get(self, key: str) -> Rung | None:
        value = self._read().get(key)
        return Rung(value) if value else None

    def put(self, key: str, rung: Rung) -> None:
        if self.path is None:
            return
        with self._lock:
            data = self._read()
            if data.get(key) == rung.value:
                return
            data[key] = rung.value
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                handle, temp = tempfile.mkstemp(dir=self.path.parent, prefix=".structured-", suffix=".json")
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    json.dump(data, out, indent=1, sort_keys=True)
                os.replace(temp, self.path)
            except OSError as exc:
                log.warning("%s: cannot remember the structured-output rung (%s)", self.path, exc)
