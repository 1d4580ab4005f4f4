"""The garbage collector's pace while claims are verified.

An offline verifier caches what it has read (analysed texts, sentence terms, batch indexes): a few
hundred thousand live objects once an index audit is under way, most of them never garbage. With
CPython's default first threshold (700 allocations) the collector promotes short-lived verdict
work into the older generations, and each full collection walks every cached object: on 15 reports
of the fixture index, 22 full collections of 0.6 s each, 17 s of an 85 s audit with the `facts`
verifier (lexical: 12 of 56 s), none of them freeing anything the caches hold. With a first
threshold of 20,000 the temporaries die before a collection sees them: one or two full
collections, 4-5 s of collection in all (timed with `gc.callbacks`).

The threshold is raised for the duration of the verification and restored after, so a program
that calls the Python API keeps its own settings; overlapping verifications in one process (the
API's coroutines) restore it when the last one ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

FIRST_THRESHOLD = 20_000
"""Allocations between two collections of the youngest generation while claims are verified."""

_active = 0
_saved: tuple[int, ...] = ()


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the collector's first threshold to `FIRST_THRESHOLD` (never lower it) until the
    outermost of overlapping verifications ends. Worker processes forked inside inherit it."""
    global _active, _saved
    if _active == 0:
        _saved = gc.get_threshold()
        gc.set_threshold(max(_saved[0], FIRST_THRESHOLD), *_saved[1:])
    _active += 1
    try:
        yield
    finally:
        _active -= 1
        if _active == 0:
            gc.set_threshold(*_saved)
