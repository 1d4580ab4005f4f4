"""Record every search GraphRAG makes, without changing how GraphRAG is called.

`recording()` attaches a fresh `QueryRecorder` to each call of the eight search functions of
`graphrag.api` (`global_search`, `local_search`, `drift_search`, `basic_search` and their
`_streaming` forms) while it is active. GraphRAG's own CLI calls them through the `graphrag.api`
module, so `veritrail graphrag query ...` runs `graphrag query` itself (same arguments, same
printed answer) and afterwards saves each search as a query run. GraphRAG's non-streaming
functions call the streaming ones inside `graphrag.api.query`, which is left alone, so each
search is recorded once.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veritrail_graphrag.adapters.graphrag import METHODS, Method
from veritrail_graphrag.adapters.graphrag_capture.extra import GraphRAGMissingError
from veritrail_graphrag.adapters.graphrag_capture.recorder import QueryRecorder


@dataclass
class Recorded:
    """One search heard while `recording()` was active: where it ran, its recorder, its answer."""

    root: Path
    method: Method
    recorder: QueryRecorder
    answer: str | None = None

    def save(self) -> Path:
        """Save the run beside the index (see `QueryRecorder.save`); returns its folder."""
        return self.recorder.save(self.root, final_answer=self.answer)


def _arguments(function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    bound = inspect.signature(function).bind(*args, **kwargs)
    return dict(bound.arguments)


def _recorded(method: Method, arguments: dict[str, Any], heard: list[Recorded]) -> Recorded:
    """A recorder for this call, added to its callbacks; the project root is the working directory
    GraphRAG's config loader changed into."""
    recorder = QueryRecorder(
        arguments["query"], method=method, community_level=arguments.get("community_level"), config=arguments["config"]
    )
    arguments["callbacks"] = [*(arguments.get("callbacks") or []), recorder]
    entry = Recorded(root=Path.cwd(), method=method, recorder=recorder)
    heard.append(entry)
    return entry


def _wrap_search(method: Method, search: Callable[..., Any], heard: list[Recorded]) -> Callable[..., Any]:
    async def recorded_search(*args: Any, **kwargs: Any) -> Any:
        arguments = _arguments(search, args, kwargs)
        entry = _recorded(method, arguments, heard)
        response, context = await search(**arguments)
        entry.answer = response if isinstance(response, str) else None
        return response, context

    return recorded_search


def _wrap_stream(method: Method, stream: Callable[..., Any], heard: list[Recorded]) -> Callable[..., Any]:
    def recorded_stream(*args: Any, **kwargs: Any) -> AsyncIterator[str]:
        arguments = _arguments(stream, args, kwargs)
        entry = _recorded(method, arguments, heard)
        chunks = stream(**arguments)

        async def relay() -> AsyncIterator[str]:
            pieces: list[str] = []
            async for chunk in chunks:
                pieces.append(chunk)
                yield chunk
            entry.answer = "".join(pieces)

        return relay()

    return recorded_stream


@contextlib.contextmanager
def recording() -> Iterator[list[Recorded]]:
    """While active, every `graphrag.api` search is recorded; yields the list of searches heard.

    with recording() as heard:
        graphrag_cli_app(["query", "Who is Scrooge?", "--method", "local"], standalone_mode=False)
    runs = [entry.save() for entry in heard]
    """
    try:
        import graphrag.api as api
    except ModuleNotFoundError as exc:
        raise GraphRAGMissingError(exc.name) from exc
    heard: list[Recorded] = []
    originals: dict[str, Any] = {}
    for method in METHODS:
        for name, wrap in ((f"{method}_search", _wrap_search), (f"{method}_search_streaming", _wrap_stream)):
            originals[name] = getattr(api, name)
            setattr(api, name, wrap(method, originals[name], heard))
    try:
        yield heard
    finally:
        for name, original in originals.items():
            setattr(api, name, original)
