"""What every property test of a reader shares: the two profiles, the outcome rule, and the
mutations of JSON documents and of raw bytes.

The rule (issue 42): whatever a user's file holds, a reader returns or raises one of our typed
errors (`VeriTrailError`), whose message is one short line naming the file; never another
exception, never a hang. `HYPOTHESIS_PROFILE=long` runs each reader on 10,000 examples instead of
the suite's few dozen (the manual's docs/development.md, "Bad input, property-tested", has the
figures of a long run).
"""

from __future__ import annotations

import json
import math
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from veritrail_graphrag.errors import VeriTrailError

_T = TypeVar("_T")

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]
settings.register_profile(
    "fast", deadline=None, derandomize=True, database=None, suppress_health_check=_QUIET, print_blob=True
)
LONG_EXAMPLES = int(os.environ.get("HYPOTHESIS_LONG_EXAMPLES", "10000"))
"""Examples a reader in the long profile: 10,000, or fewer per process when a slow property is
shared among processes with different `--hypothesis-seed`s (docs/development.md)."""
settings.register_profile(
    "long", max_examples=LONG_EXAMPLES, deadline=None, suppress_health_check=_QUIET, print_blob=True
)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "fast")


def reader_settings(fast_examples: int) -> settings:
    """The settings of one reader's property: `fast_examples` in the suite (derandomized, so CI
    runs the same examples every time), the long profile's 10,000 on demand."""
    profile = settings.get_profile(PROFILE)
    return profile if PROFILE != "fast" else settings(profile, max_examples=fast_examples)


HANG_SECONDS = 60
"""No example of a few kilobytes may take this long: a reader that does is taken to hang."""
MAX_LINE = 300
"""An error line's length, with the example's folder written as `<dir>`: a path, a column or
row, and a short excerpt of the bad value, never the value itself."""


class Hang(BaseException):
    """Raised by the alarm; a BaseException, so that no reader's `except Exception` swallows it."""


@contextmanager
def time_limit(seconds: float = HANG_SECONDS) -> Iterator[None]:
    def alarm(signum: int, frame: object) -> None:
        raise Hang(f"the reader ran for more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def check_line(exc: VeriTrailError, folder: Path | None) -> None:
    """One short line that names a file under `folder` (the file a user must open; None: a reader
    of objects, whose caller adds the file)."""
    line = str(exc)
    assert line.strip(), f"an empty error: {type(exc).__name__}"
    assert "\n" not in line and "\r" not in line, f"not one line: {line!r}"
    if folder is None:
        assert len(line) <= MAX_LINE, f"{len(line)} characters: {line!r}"
        return
    assert str(folder) in line, f"names no file of the input: {line!r}"
    short = line.replace(str(folder.resolve()), "<dir>").replace(str(folder), "<dir>")
    assert len(short) <= MAX_LINE, f"{len(short)} characters: {short!r}"


def outcome(read: Callable[[], _T], folder: Path) -> _T | VeriTrailError:
    """What `read` returned, or the typed error it raised (checked with `check_line`); any other
    exception, or a run past `HANG_SECONDS`, fails the example."""
    with time_limit():
        try:
            return read()
        except VeriTrailError as exc:
            check_line(exc, folder)
            return exc


# --- values a hand edit or another tool puts where a value belongs --------------------------------

ODD_TEXTS = [
    "",
    " ",
    "\n",
    "\x00",
    "\u202e\u2066reversed",
    "\ufeffBOM",
    "e\u0301\u0301\u0301",
    "\U0001f600\U0001f9d1\u200d\U0001f680",
    "line one\nline two\r\nline three",
    "\u2028\u2029\x85",
    "\t\x0b\x0c",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "日本語のテキスト",
    "[Data: Reports (1, 2, +more)]",
    "NaN",
    "null",
    "-1",
    "1e309",
]
HUGE_TEXT = "x" * 50_000 + "\n" + "ä" * 50_000
HUGE_NUMBERS: list[int | float] = [0, -1, -(2**63), 2**63 - 1, 2**64, 10**30, 1e308, -0.0, math.inf, -math.inf, math.nan]

texts = st.one_of(st.text(max_size=40), st.sampled_from(ODD_TEXTS), st.just(HUGE_TEXT))
"""Any text: short random ones, odd ones (controls, bidi, combining marks, emoji), or 100 kB."""
numbers = st.one_of(st.integers(-1000, 1000), st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(HUGE_NUMBERS))
scalars = st.one_of(st.none(), st.booleans(), numbers, texts)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4), max_leaves=12
)


# --- a JSON document, mutated where a user's edit or another tool would change it -----------------

Path_ = tuple[str | int, ...]


def _paths(value: Any, at: Path_ = ()) -> Iterator[Path_]:
    yield at
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*at, index))


def _get(value: Any, at: Path_) -> Any:
    for part in at:
        value = value[part]
    return value


def _number_as_text(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value if not isinstance(value, str) else (float(value) if _is_number(value) else len(value))
    return str(value)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


MAX_DOCUMENT = 2_000_000
"""Bytes a "huge" list may grow to: the long profile's first run repeated a list of 100 kB texts
500 times, then that list again, until the test process held 20 GB."""


def _repeats(value: list[Any]) -> int:
    return max(2, min(500, MAX_DOCUMENT // max(1, len(dump(value)))))


def _emptied(value: Any) -> Any:
    return {list: [], dict: {}, str: ""}.get(type(value), 0)


def _unwrapped(value: Any) -> Any:
    if isinstance(value, list):
        return value[0] if value else None
    if isinstance(value, dict):
        return next(iter(value.values()), None)
    return value


MUTATIONS = (
    "replace",
    "delete",
    "null",
    "empty",
    "wrap",
    "unwrap",
    "retype",
    "duplicate",
    "add_key",
    "huge",
    "odd",
    "number",
)


@st.composite
def mutated_json(draw: st.DrawFn, document: Any, max_mutations: int = 3) -> Any:
    """`document` (a JSON value) with 1 to `max_mutations` edits, each at any place in it: a value
    replaced, deleted, nulled, emptied, put in a list or taken out of one, turned from number to
    text and back, duplicated, a key added, or made huge, odd or extreme."""
    document = json.loads(json.dumps(document))
    for _ in range(draw(st.integers(1, max_mutations))):
        at = draw(st.sampled_from(list(_paths(document))))
        kind = draw(st.sampled_from(MUTATIONS))
        value = _get(document, at)
        new: Any
        if kind == "delete" and at:
            parent = _get(document, at[:-1])
            del parent[at[-1]]
            continue
        if kind == "duplicate" and at and isinstance(_get(document, at[:-1]), list):
            _get(document, at[:-1]).insert(int(at[-1]), json.loads(json.dumps(value)))
            continue
        if kind == "add_key" and isinstance(value, dict):
            value[draw(texts)] = draw(json_values)
            continue
        new = {
            "null": None,
            "empty": _emptied(value),
            "wrap": [value],
            "unwrap": _unwrapped(value),
            "retype": _number_as_text(value),
            "huge": HUGE_TEXT if not isinstance(value, list) else value * _repeats(value),
            "odd": draw(st.sampled_from(ODD_TEXTS)),
            "number": draw(st.sampled_from(HUGE_NUMBERS)),
        }.get(kind)
        if kind in ("replace", "delete", "duplicate", "add_key"):
            new = draw(json_values)
        if not at:
            document = new
        else:
            _get(document, at[:-1])[at[-1]] = new
    return document


def dump(document: Any) -> bytes:
    """JSON as Python writes it (NaN and Infinity included, as `json.loads` accepts them)."""
    return json.dumps(document, ensure_ascii=False).encode("utf-8", "surrogatepass")


@st.composite
def damaged_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """A file's bytes cut short, overwritten in places, prefixed with a BOM, re-encoded, or
    replaced by garbage: what a crash, a bad copy or the wrong encoding leaves."""
    kind = draw(st.sampled_from(["truncate", "overwrite", "bom", "latin1", "garbage", "empty", "crlf", "insert"]))
    if kind == "truncate":
        return data[: draw(st.integers(0, max(len(data) - 1, 0)))]
    if kind == "overwrite":
        data = bytearray(data)
        for _ in range(draw(st.integers(1, 8))):
            if data:
                data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        return bytes(data)
    if kind == "insert":
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.binary(min_size=1, max_size=16)) + data[at:]
    if kind == "bom":
        return b"\xef\xbb\xbf" + data
    if kind == "latin1":
        return data.decode("utf-8", "replace").encode("latin-1", "replace")
    if kind == "crlf":
        return data.replace(b"\n", b"\r\n")
    if kind == "empty":
        return b""
    return draw(st.binary(max_size=200))


@st.composite
def damaged_json(draw: st.DrawFn, documents: st.SearchStrategy[Any], lines: bool = False) -> bytes:
    """A document as JSON (or JSON lines), mutated and sometimes damaged as bytes."""
    document = draw(documents)
    if draw(st.integers(0, 4)):
        document = draw(mutated_json(document))
    if lines and isinstance(document, list) and draw(st.booleans()):
        raw = b"\n".join(dump(item) for item in document)
    else:
        raw = dump(document)
    return draw(damaged_bytes(raw)) if draw(st.integers(0, 4)) == 0 else raw


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path
