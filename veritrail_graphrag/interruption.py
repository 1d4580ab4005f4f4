"""Stopping a run on Ctrl-C or SIGTERM within moments, whatever it is doing, with all finished work kept.

asyncio's own Ctrl-C handling cancels the main task, and a cancellation lands only where a task
next waits. An offline verifier's claim waits for nothing, and one claim can read hundreds of
nodes (a minute on a loaded machine), so Ctrl-C waited for it, and for every claim already
scheduled. Here the first signal requests a stop instead: the engine checks for it before each
claim and each verifier call, long verifier loops check it too (`check`), and `wake` (the event
loop's main task cancelled) ends the calls that wait on a model. `StopRequested` or the
cancellation then unwinds through the `finally` blocks that close the checkpoint, which holds every
finished claim, and release the report's lock. A second signal raises `KeyboardInterrupt` wherever
the program is, for when the first is not enough.

The request is a flag of this process, set by its own signal handler. Claims verified in worker
processes (`engine/workers.py`) stop with the parent: the workers ignore both signals (Ctrl-C
reaches the terminal's whole process group), the parent's wait for their next result is cancelled
and it kills them; it appended each claim to the checkpoint as a worker sent it back.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)

_requested = threading.Event()


class StopRequested(BaseException):  # noqa: N818 (a request, as KeyboardInterrupt is one)
    """Raised where a requested stop is noticed. A BaseException, as asyncio's CancelledError, so
    that no `except Exception` (a verifier's fallback, a retry loop) takes it for a failed claim,
    and an asyncio TaskGroup stops its other tasks and raises it as itself."""


def requested() -> bool:
    return _requested.is_set()


def request() -> None:
    """Ask the run to stop at its next check, as a first Ctrl-C does."""
    _requested.set()


def check() -> None:
    """Raise `StopRequested` when a stop was requested: called between claims, before each verifier
    call, and in loops that may run long without awaiting anything."""
    if _requested.is_set():
        raise StopRequested


@contextmanager
def on_signals(wake: Callable[[], None]) -> Iterator[None]:
    """While inside, SIGINT and SIGTERM request a stop and call `wake` (which must only schedule
    work: it runs in a signal handler); a second one raises KeyboardInterrupt. On leaving, the
    previous handlers are back and the request is forgotten, so a next run starts afresh. Signal
    handlers can only be set in the main thread: elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handle(signum: int, frame: FrameType | None) -> None:
        if _requested.is_set():
            raise KeyboardInterrupt
        _requested.set()
        wake()

    previous = {number: signal.getsignal(number) for number in SIGNALS}
    for number in SIGNALS:
        signal.signal(number, handle)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
        _requested.clear()
