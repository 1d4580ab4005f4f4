"""What one GraphRAG search method is to the capture: the tables it reads, how `graphrag query`
calls it, how a recorder tells it was heard, and what of it becomes the saved `QueryRun`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pandas as pd

from veritrail_graphrag.adapters.graphrag import Method
from veritrail_graphrag.adapters.graphrag.query_run import Records
from veritrail_graphrag.errors import AdapterError

if TYPE_CHECKING:
    from veritrail_graphrag.adapters.graphrag_capture.recorder import QueryRecorder

Stream = Callable[[ModuleType, dict[str, Any], dict[str, Any]], AsyncIterator[str]]
"""(graphrag.api, the arguments every method takes, `graphrag query`'s options) -> the answer's chunks"""


@dataclass(frozen=True)
class Recorded:
    """A search's part of the `QueryRun` (field name -> value), and a note for the run, if any."""

    parts: dict[str, Any]
    note: str = ""


@dataclass(frozen=True)
class Search:
    name: Method
    tables: tuple[str, ...]
    stream: Stream
    heard: Callable[[QueryRecorder], bool]
    """Whether the recorder's callbacks are this method's (asked in `SEARCHES` order)."""
    record: Callable[[QueryRecorder], Recorded]
    optional_tables: tuple[str, ...] = ()
    """Read when the index has them, else passed as None, as `graphrag query` does."""
    prepare: Callable[[], None] | None = None
    """Run once before a recorder listens (e.g. to hear what no callback reports)."""


def streaming(function: str, dropped: tuple[str, ...] = ()) -> Stream:
    """`graphrag.api.<function>` called as `graphrag query` calls it: the options it takes."""

    def stream(api: ModuleType, common: dict[str, Any], options: dict[str, Any]) -> AsyncIterator[str]:
        return getattr(api, function)(**common, **{k: v for k, v in options.items() if k not in dropped})

    return stream


def records_of(context: Any) -> Records:
    """GraphRAG's context records (dataset -> DataFrame) as plain JSON values; NaN becomes None."""
    if not isinstance(context, dict):
        raise AdapterError(f"GraphRAG's context records are a {type(context).__name__}, not a dict of tables")
    records: Records = {}
    for name, frame in context.items():
        if not isinstance(frame, pd.DataFrame):
            raise AdapterError(f"context records {name!r} are a {type(frame).__name__}, not a table")
        records[str(name)] = json.loads(frame.to_json(orient="records"))
    return records


def one_search(heard: int) -> None:
    if heard != 1:
        raise AdapterError(f"one recorder heard {heard} searches; use one QueryRecorder per query")
