"""Exit codes of every `veritrail` command, and the one place where exceptions become them.

A user's mistake or environment gets one line on stderr and its code, never a traceback. An
exception that none of our typed errors describes is a bug in veritrail (or in a verifier): it
gets its traceback and code 70 (sysexits' EX_SOFTWARE), so it is neither blamed on the input nor
passed off as a claim to retry.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import IntEnum
from typing import ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from veritrail_graphrag.cli.console import console_messages
from veritrail_graphrag.errors import LLMConfigError, LLMError, OutputError, VeriTrailError

_P = ParamSpec("_P")
_R = TypeVar("_R")

stderr = Console(stderr=True)


class ExitCode(IntEnum):
    OK = 0
    UNSUPPORTED = 1
    """A gate failed: a claim is not Fully Supported (or flagged) and `--fail-on-unsupported` was
    given, a `--max-unsupported-rate` or `--max-stage-rate` threshold is exceeded, or `compare
    --fail-on-regression` found a regression. `NOT_VERIFIED` goes first: the verdicts are not all in."""
    BAD_INPUT = 2
    NOT_VERIFIED = 3
    """Some claims could not be verified (model answers, transport); re-running retries only them."""
    ENDPOINT = 4
    NOT_WRITABLE = 5
    BUG = 70
    INTERRUPTED = 130


def fail(message: str, code: ExitCode = ExitCode.BAD_INPUT) -> typer.Exit:
    """Print `Error: message` on stderr, as click prints its own usage errors; the caller raises the
    returned exit."""
    stderr.print(f"[red]Error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code=code)


def exit_code(exc: BaseException) -> tuple[ExitCode, str]:
    """The code and the one-line message for an exception that ends a command."""
    if isinstance(exc, KeyboardInterrupt):
        return ExitCode.INTERRUPTED, str(exc) or "interrupted: run the same command to resume (finished work is kept)"
    if isinstance(exc, OutputError):
        return ExitCode.NOT_WRITABLE, f"cannot write the report: {exc}"
    if isinstance(exc, LLMError) and not isinstance(exc, LLMConfigError):
        return ExitCode.ENDPOINT, f"the model endpoint cannot be used: {exc}"
    if isinstance(exc, VeriTrailError):
        return ExitCode.BAD_INPUT, str(exc)
    return ExitCode.BUG, (
        f"unexpected {type(exc).__name__}: this is a bug, not a problem with your input; "
        "please report it with the traceback above"
    )


_ends_process = False


def end_process_when_interrupted() -> None:
    """Called by the `veritrail` command itself (`__main__`), not by code that runs the app in its
    own process (tests, a notebook): an interrupted command then ends the process as soon as its
    line is printed. Unwinding instead frees an index audit's objects one by one, for a second or
    more, after everything to keep is kept (the checkpoint closed, the lock released)."""
    global _ends_process
    _ends_process = True


@contextmanager
def _signals_ignored() -> Iterator[None]:
    """Ctrl-C and SIGTERM ignored while an interrupted command says what it saved: they have
    nothing left to stop. Only the main thread can set handlers; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.signal(number, signal.SIG_IGN) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)


def guarded(command: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run a command so that whatever it raises ends with the right exit code (see `exit_code`)."""

    @functools.wraps(command)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            with console_messages():
                return command(*args, **kwargs)
        except (typer.Exit, typer.Abort, typer.TyperException):  # typer's own ends: usage errors, exits
            raise
        except (Exception, KeyboardInterrupt) as exc:
            code, message = exit_code(exc)
            if code is ExitCode.BUG:
                stderr.print(traceback.format_exc(), highlight=False, markup=False, soft_wrap=True)
            if code is ExitCode.INTERRUPTED:
                with _signals_ignored():  # a second Ctrl-C would cut the line and end through click's "Aborted!"
                    stderr.print(message, highlight=False, markup=False)
                    if _ends_process:
                        sys.stdout.flush()
                        sys.stderr.flush()
                        os._exit(code)
                raise typer.Exit(code=code) from None
            raise fail(message, code) from None

    return run
