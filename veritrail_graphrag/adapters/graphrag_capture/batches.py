"""Which community reports each map call of a global search was shown.

GraphRAG hands the map step one context string per batch: a `|`-separated table written with
pandas' `to_csv` (quoted where a report's text holds the delimiter or a newline), whose `id`
column is the report's community number. The same rows, batch after batch, also reach
`on_context` as one concatenated `reports` frame. The table is read back with pandas, and its
ids are checked against that frame when it is available, so a change in GraphRAG's context
format fails loudly instead of wiring map answers to the wrong reports.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence

import pandas as pd

from veritrail_graphrag.errors import AdapterError

_SECTION_TITLE = re.compile(r"\A-----[^\n]*-----\n")


def context_report_ids(context: str, *, batch: int, delimiter: str = "|") -> list[int]:
    """Community numbers of the reports in one batch's context table, in table order."""
    table = _SECTION_TITLE.sub("", context.lstrip("\n"), count=1)
    try:
        frame = pd.read_csv(
            io.StringIO(table), sep=delimiter, dtype=str, keep_default_na=False, quoting=csv.QUOTE_MINIMAL
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        raise AdapterError(
            f"map batch {batch}: the context is not a {delimiter!r}-separated report table ({exc})"
        ) from None
    if "id" not in frame.columns:
        raise AdapterError(f"map batch {batch}: the context table has no 'id' column (columns: {list(frame.columns)})")
    ids: list[int] = []
    for value in frame["id"]:
        try:
            ids.append(int(value))
        except ValueError:
            raise AdapterError(f"map batch {batch}: report id {value!r} is not a community number") from None
    if not ids:
        raise AdapterError(f"map batch {batch}: the context table holds no report")
    return ids


def batch_report_ids(
    contexts: Sequence[str], records: pd.DataFrame | None = None, *, delimiter: str = "|"
) -> list[list[int]]:
    """Report ids per batch; `records` is the `reports` frame GraphRAG passed to `on_context`."""
    batches = [context_report_ids(context, batch=i, delimiter=delimiter) for i, context in enumerate(contexts)]
    if records is not None and "id" in records.columns:
        recorded = [int(value) for value in records["id"]]
        parsed = [community for ids in batches for community in ids]
        if parsed != recorded:
            raise AdapterError(
                f"the map contexts name reports {parsed} but GraphRAG's context records name {recorded}; "
                "the context format of this GraphRAG version is not understood"
            )
    return batches
