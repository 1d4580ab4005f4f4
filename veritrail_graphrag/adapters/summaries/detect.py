"""`load_summary_run`: one entry point that recognises a summarization run's file by its content.

Users hand us whatever their summarizer left behind; the file name says little (BooookScore names
its outputs after the model). The first line decides: our log starts with its header, a saved
DAG names its format, and BooookScore writes one JSON object of books.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from veritrail_graphrag.adapters.summaries.booookscore import Mode, read_booookscore
from veritrail_graphrag.adapters.summaries.log_format import FORMAT_NAME
from veritrail_graphrag.adapters.summaries.log_reader import read_summary_log
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.dag import FORMAT_NAME as DAG_FORMAT_NAME
from veritrail_graphrag.errors import AdapterError, DagError, named

RunFormat = Literal["summary-log", "dag", "booookscore"]


def detect_format(path: str | Path) -> RunFormat:
    """Which reader fits the file, from its first line (BooookScore files are one line long)."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            first = handle.readline()
            rest = handle.read(1)
    except FileNotFoundError:
        raise AdapterError("no such file", file=path) from None
    value = _json_object(first)
    if value is None and rest:
        value = _json_object(path.read_bytes())
    if value is None:
        raise AdapterError(
            f"not a summarization run: expected a {FORMAT_NAME!r} log, a DAG JSON file or a BooookScore summary file",
            file=path,
        )
    if value.get("format") == FORMAT_NAME:
        return "summary-log"
    if value.get("format") == DAG_FORMAT_NAME or "nodes" in value:
        return "dag"
    if value and all(isinstance(v, list) or (isinstance(v, dict) and "summaries_dict" in v) for v in value.values()):
        return "booookscore"
    raise AdapterError(f"a JSON object of an unknown kind (keys: {named(sorted(value))})", file=path)


def _json_object(data: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return value if isinstance(value, dict) else None


def load_summary_run(
    path: str | Path,
    *,
    book: str | None = None,
    chunks_path: str | Path | None = None,
    max_context_len: int | None = None,
    chunk_size: int | None = None,
    mode: Mode = "auto",
) -> DAG:
    """Read a summary log, a saved DAG or a BooookScore file; BooookScore options apply to it only."""
    kind = detect_format(path)
    if kind == "booookscore":
        return read_booookscore(
            path,
            book,
            chunks_path=chunks_path,
            max_context_len=max_context_len,
            chunk_size=chunk_size,
            mode=mode,
        )
    given = {"book": book, "chunks_path": chunks_path, "max_context_len": max_context_len, "chunk_size": chunk_size}
    extra = [name for name, option in given.items() if option is not None] + (["mode"] if mode != "auto" else [])
    if extra:
        verb = "applies" if len(extra) == 1 else "apply"
        raise AdapterError(f"{', '.join(extra)} {verb} to BooookScore files only; this is a {kind}", file=path)
    if kind == "summary-log":
        return read_summary_log(path)
    try:
        return DAG.from_json(path)
    except DagError as exc:
        raise AdapterError(str(exc)) from None
