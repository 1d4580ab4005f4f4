"""Reading the JSON object a model wrote, however it wrote it.

Models without structured output wrap JSON in code fences, add prose around it, leave trailing
commas or use single quotes. The verifier's answer readers start here, and so does the client when
it reads a repair turn's reply together with the fields the first answer already gave (`merged`).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from typing import Any

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _json_literals_to_python(text: str) -> str:
    """Turn true/false/null into Python names outside string literals, for `ast.literal_eval`."""
    out: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(text):
        char = text[i]
        if quote:
            out.append(char)
            if char == "\\" and i + 1 < len(text):
                out.append(text[i + 1])
                i += 1
            elif char == quote:
                quote = None
        elif char in "\"'":
            quote = char
            out.append(char)
        else:
            word = re.match(r"(true|false|null)\b", text[i:])
            if word and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
                out.append({"true": "True", "false": "False", "null": "None"}[word.group(1)])
                i += len(word.group(1))
                continue
            out.append(char)
        i += 1
    return "".join(out)


def _balanced(text: str, start: int) -> str | None:
    """The bracketed span opening at `start`, honouring string literals; None if never closed."""
    opening = text[start]
    closing = "}" if opening == "{" else "]"
    depth = 0
    quote: str | None = None
    i = start
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
        i += 1
    return None


def _loads(candidate: str) -> Any:
    """`strict=False` takes raw line breaks and tabs inside strings: small models write them, even
    under llama.cpp's grammar for the schema (SmolLM2-135M did in 2 of 4 Evidence Selection answers)."""
    try:
        return json.loads(candidate, strict=False)
    except json.JSONDecodeError:
        pass
    cleaned = _TRAILING_COMMA.sub(r"\1", candidate)
    try:
        return json.loads(cleaned, strict=False)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(_json_literals_to_python(candidate))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def extract_json(text: str, *, allow_list: bool = False) -> Any:
    """The first JSON object (or list) in the text: fenced blocks first, then the raw text."""
    sources = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    openers = "{[" if allow_list else "{"
    for source in sources:
        for start, char in enumerate(source):
            if char not in openers:
                continue
            span = _balanced(source, start)
            if span is None:
                continue
            value = _loads(span)
            if isinstance(value, dict) or (allow_list and isinstance(value, list)):
                return value
    return None


def merged(kept: Mapping[str, Any], reply: str) -> str:
    """A reply that was asked only for the fields an answer lacked, as one JSON answer with the
    fields it already had (the reply's win); the reply as it is when it holds no JSON object."""
    data = extract_json(reply)
    return json.dumps({**kept, **data}, ensure_ascii=False) if isinstance(data, dict) else reply
