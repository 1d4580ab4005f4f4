"""Model calls that failed for good while GraphRAG searched.

GraphRAG's global search catches a map call that failed, scores it 0 and answers from the rest:
when every call failed (no network, a wrong key) it prints a canned "I am sorry but I am unable to
answer..." and `graphrag query` exits 0. Local, basic and DRIFT search let the model's exception
through instead. Either way GraphRAG's model layer (`graphrag_llm`) logs each call it gave up on,
after the retries settings.yaml asks for; `watch_model_calls` listens to that log while a search
runs, so a search built on failed calls ends as a failure with its cause, and is never saved as a
run that would become the latest one to audit.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from veritrail_graphrag.errors import EndpointError

MODEL_LOGGER = "graphrag_llm"
"""GraphRAG's model layer. Listened to from the root logger: GraphRAG clears this logger's own
handlers each time a search sets up its log file."""


def root_cause(exc: BaseException) -> str:
    """What failed and why, in a few words: the exception's type and the innermost message of its
    chain ("InternalServerError: [Errno -2] Name or service not known"), where litellm's own
    message only says "Connection error"."""
    chain = [exc]
    while (inner := chain[-1].__cause__ or chain[-1].__context__) is not None and inner not in chain:
        chain.append(inner)
    said = [text for e in chain if (text := str(e).strip())]
    return f"{type(exc).__name__}: {said[-1]}" if said else type(exc).__name__


class ModelFailures(logging.Handler):
    """The failed calls heard, each as its cause."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.causes: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith(MODEL_LOGGER) or record.exc_info is None or record.exc_info[1] is None:
            return
        self.causes.append(root_cause(record.exc_info[1]))

    def check(self, what: str, outcome: str, log: Path | None) -> None:
        """Raise `EndpointError` (exit 4) when any model call failed: a search's answer was not made
        from what GraphRAG meant to show the model, so it is not kept; an index run stopped.
        `what` ran ("GraphRAG's local search"), `outcome` says what was not done."""
        if not self.causes:
            return
        where = f"; GraphRAG's log: {log}" if log is not None else ""
        calls = "a model call" if len(self.causes) == 1 else f"{len(self.causes)} model calls"
        raise EndpointError(
            f"{what} got no answer from {calls}, after the retries its settings ask for ({self.causes[-1]}); "
            f"{outcome}{where}"
        )


@contextmanager
def watch_model_calls() -> Iterator[ModelFailures]:
    """While active, every model call GraphRAG gives up on is recorded in the yielded handler."""
    failures = ModelFailures()
    root = logging.getLogger()
    root.addHandler(failures)
    try:
        yield failures
    finally:
        root.removeHandler(failures)
