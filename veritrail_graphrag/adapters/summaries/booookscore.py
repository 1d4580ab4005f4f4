"""Read BooookScore's summary files (lilakk/BooookScore, the summarizer behind FABLES) into DAGs.

Hierarchical files hold `{book: {"summaries_dict": {"0": [...], "1": [...]}, "final_summary":
...}}`: level 0 has one summary per source chunk, level L+1 merges consecutive runs of level L.
The grouping is not stored; we rebuild it by replaying BooookScore's packing rule when the run's
settings are given (`packing.py`, exact) or else by aligning texts (`alignment.py`, a best guess).
`dag.metadata["edges_from"]` says which. Each merge after the first of its level also read the
previous summary of that level as context; that is a real input, kept as a same-stage edge.
Incremental files hold `{book: [running summary after chunk 0, ...]}`: a chain in which summary i
was written from chunk i and summary i-1.

Stages follow the FABLES+ DAGs of the VeriTrail paper: chunks 1, level-L summaries L + 2 (for
incremental runs, running summary i is stage i + 2). Stages are the same with or without chunks,
so error-stage statistics compare across both. Without chunks (none are public for these books)
the lowest summaries are the roots and an audit can only check the merges against them.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Mapping, Sequence
from difflib import get_close_matches
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from veritrail_graphrag.adapters.summaries.alignment import align_groups
from veritrail_graphrag.adapters.summaries.packing import (
    PackingError,
    PackingParams,
    level_budgets,
    pack_level,
)
from veritrail_graphrag.adapters.summaries.tokenizer import Tokenizer, load_cl100k
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.errors import AdapterError, DagError, excerpt, named, validation_problem
from veritrail_graphrag.files import read_json

Mode = Literal["auto", "hier", "inc"]
_MODE_NAMES = {"hier": "hierarchical", "inc": "incremental", "auto": "any"}
_SHOWN_BOOKS = 5
CHUNK_STAGE = 1


def read_booookscore_file(path: str | Path) -> dict[str, Any]:
    """The whole file as `{book: value}`; a clear error when it is not a BooookScore output."""
    path = Path(path)
    data = read_json(path, AdapterError)
    if not isinstance(data, dict) or not data:
        raise AdapterError("expected an object mapping book ids to summaries", file=path)
    return data


def list_books(path: str | Path) -> list[str]:
    """The book ids in a BooookScore summary file, in file order."""
    return list(read_booookscore_file(path))


def read_booookscore(
    path: str | Path,
    book: str | None = None,
    *,
    chunks_path: str | Path | None = None,
    max_context_len: int | None = None,
    chunk_size: int | None = None,
    mode: Mode = "auto",
    max_summary_len: int = 900,
    tokenizer: Tokenizer | None = None,
) -> DAG:
    """One book of a BooookScore hierarchical (`hier`) or incremental (`inc`) file as a DAG.

    `book` may be left out when the file holds a single book. `max_context_len` and `chunk_size`
    (and `max_summary_len` if the run changed it) switch the hierarchical edges from text
    alignment to an exact replay of BooookScore's packing with tiktoken's cl100k_base (or
    `tokenizer`). The summaries BooookScore released in 2023 were made by an earlier script that
    counted GPT-2 tokens: replay those with a GPT-2 `tokenizer`, or align them.

    `chunks_path` names the chunk file the run read (`{book: [chunk, ...]}`) so the source text
    becomes the roots. A `.json` file is read as JSON; anything else is unpickled, and unpickling
    runs code chosen by whoever wrote the file: it is only done for a path you pass explicitly,
    so only pass pickles you trust.
    """
    path = Path(path)
    data = read_booookscore_file(path)
    book = _choose_book(path, data, book)
    value = data[book]
    shape = _shape(path, book, value)
    if mode != "auto" and mode != shape:
        raise AdapterError(f"book {excerpt(book)} holds {_MODE_NAMES[shape]} summaries, not {_MODE_NAMES[mode]}", file=path)
    chunks = _load_chunks(Path(chunks_path), book) if chunks_path is not None else None
    if shape == "inc":
        if max_context_len is not None or chunk_size is not None:
            raise AdapterError("max_context_len/chunk_size apply to hierarchical runs only", file=path)
        return _incremental(path, book, _strings(path, book, value, "the running summaries"), chunks)
    params = None
    if max_context_len is not None or chunk_size is not None:
        if max_context_len is None or chunk_size is None:
            raise AdapterError("replaying the packing needs both max_context_len and chunk_size", file=path)
        try:
            params = PackingParams(
                max_context_len=max_context_len, chunk_size=chunk_size, max_summary_len=max_summary_len
            )
        except ValidationError as exc:
            raise AdapterError(f"bad packing settings: {validation_problem(exc)}", file=path) from None
    return _hierarchical(path, book, value, chunks, params, tokenizer)


def _choose_book(path: Path, data: Mapping[str, Any], book: str | None) -> str:
    books = list(data)
    if book is None:
        if len(books) == 1:
            return books[0]
        raise AdapterError(f"holds {len(books)} books, choose one with book=...: {named(books)}", file=path)
    if book not in data:
        close = get_close_matches(book, books, n=_SHOWN_BOOKS)
        hint = f"; close matches: {named(close)}" if close else ""
        raise AdapterError(f"no book {excerpt(book)} among its {len(books)} books{hint}", file=path)
    return book


def _shape(path: Path, book: str, value: Any) -> Literal["hier", "inc"]:
    if isinstance(value, list):
        return "inc"
    if isinstance(value, dict) and "summaries_dict" in value:
        return "hier"
    found = f"[{named(sorted(value))}]" if isinstance(value, dict) else type(value).__name__
    raise AdapterError(
        f"book {excerpt(book)} is neither hierarchical ({{'summaries_dict': ..., 'final_summary': "
        f"...}}) nor incremental (a list of running summaries); found {found}",
        file=path,
    )


def _strings(path: Path, book: str, value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not value:
        raise AdapterError(f"book {excerpt(book)}: {what} should be a non-empty list of texts", file=path)
    for index, text in enumerate(value):
        if not isinstance(text, str) or not text.strip():
            raise AdapterError(f"book {excerpt(book)}: {what}, item {index}, is empty or not a text", file=path)
    return value


def _levels(path: Path, book: str, value: dict[str, Any]) -> list[list[str]]:
    raw = value["summaries_dict"]
    if not isinstance(raw, dict) or not raw:
        raise AdapterError(f"book {excerpt(book)}: 'summaries_dict' should map levels to lists", file=path)
    try:
        numbers = sorted(int(level) for level in raw)
    except ValueError:
        raise AdapterError(f"book {excerpt(book)}: level keys must be integers, found {named(sorted(raw))}", file=path) from None
    if numbers != list(range(len(numbers))):
        raise AdapterError(f"book {excerpt(book)}: levels must be 0..{len(numbers) - 1}, found [{named(numbers, shown=5)}]", file=path)
    by_number = {int(level): texts for level, texts in raw.items()}
    levels = [_strings(path, book, by_number[n], f"level {n}") for n in numbers]
    for n in range(1, len(levels)):
        if len(levels[n]) > len(levels[n - 1]):
            raise AdapterError(
                f"book {excerpt(book)}: level {n} has more summaries ({len(levels[n])}) than "
                f"level {n - 1} ({len(levels[n - 1])})",
                file=path,
            )
    return levels


def _load_chunks(chunks_path: Path, book: str) -> list[str]:
    try:
        if chunks_path.suffix == ".json":
            data = json.loads(chunks_path.read_text(encoding="utf-8"))
        else:
            with chunks_path.open("rb") as handle:
                # Runs code from the file: only ever for a path the user named (see the docstring).
                data = pickle.load(handle)
    except FileNotFoundError:
        raise AdapterError("no such file", file=chunks_path) from None
    except Exception as exc:  # a bad pickle can raise almost anything
        raise AdapterError(f"cannot read the chunks: {type(exc).__name__}: {exc}", file=chunks_path) from None
    if not isinstance(data, dict) or book not in data:
        raise AdapterError(f"no chunks for book {excerpt(book)}", file=chunks_path)
    return _strings(chunks_path, book, data[book], "the chunks")


def _chunk_nodes(chunks: Sequence[str]) -> list[Node]:
    return [
        Node(id=f"chunk-{i}", text=text, stage=CHUNK_STAGE, kind="chunk", metadata={"index": i})
        for i, text in enumerate(chunks)
    ]


def _check_chunk_count(path: Path, book: str, chunks: Sequence[str], expected: int, what: str) -> None:
    if len(chunks) != expected:
        raise AdapterError(
            f"book {excerpt(book)} has {expected} {what} but the chunk file gives {len(chunks)} "
            "chunks; is it the chunk file of this run?",
            file=path,
        )


def _incremental(path: Path, book: str, running: list[str], chunks: list[str] | None) -> DAG:
    nodes: list[Node] = []
    edges: list[tuple[str, str]] = []
    last = len(running) - 1
    for i, text in enumerate(running):
        kind = "final_summary" if i == last else "summary"
        nodes.append(Node(id=f"running-{i}", text=text, stage=i + 2, kind=kind, metadata={"chunk": i}))
        if i > 0:
            edges.append((f"running-{i - 1}", f"running-{i}"))
    if chunks is not None:
        _check_chunk_count(path, book, chunks, len(running), "running summaries")
        nodes += _chunk_nodes(chunks)
        edges += [(f"chunk-{i}", f"running-{i}") for i in range(len(running))]
    metadata = {
        "source_format": "booookscore",
        "mode": "inc",
        "book": book,
        "edges_from": "chain",
        "edges_certain": True,
        "roots": "source chunks" if chunks is not None else "running summary after chunk 0 (no source chunks given)",
    }
    return _dag(path, book, nodes, edges, metadata)


def _hierarchical(
    path: Path,
    book: str,
    value: dict[str, Any],
    chunks: list[str] | None,
    params: PackingParams | None,
    tokenizer: Tokenizer | None,
) -> DAG:
    levels = _levels(path, book, value)
    groups = _groups(path, book, levels, params, tokenizer)
    nodes: list[Node] = []
    edges: list[tuple[str, str]] = []
    context_edges: list[tuple[str, str]] = []
    for level, texts in enumerate(levels):
        for index, text in enumerate(texts):
            nodes.append(
                Node(
                    id=_summary_id(level, index),
                    text=text,
                    stage=level + 2,
                    kind="summary",
                    metadata={"level": level, "index": index},
                )
            )
        if level == 0:
            continue
        for index, children in enumerate(groups[level - 1]):
            edges += [(_summary_id(level - 1, child), _summary_id(level, index)) for child in children]
            if index > 0:
                context_edges.append((_summary_id(level, index - 1), _summary_id(level, index)))
    edges += context_edges
    top = _final_node(path, book, value, levels, nodes, edges)
    if chunks is not None:
        _check_chunk_count(path, book, chunks, len(levels[0]), "level-0 summaries")
        nodes += _chunk_nodes(chunks)
        edges += [(f"chunk-{i}", _summary_id(0, i)) for i in range(len(levels[0]))]
    replayed = params is not None
    metadata: dict[str, Any] = {
        "source_format": "booookscore",
        "mode": "hier",
        "book": book,
        "edges_from": "packing replay" if replayed else "text alignment",
        "edges_certain": replayed or all(len(texts) == 1 for texts in levels[1:]),
        "context_edges": [list(edge) for edge in context_edges],
        "roots": "source chunks" if chunks is not None else "level-0 summaries (no source chunks given)",
        "final": top,
    }
    if params is not None:
        metadata["packing"] = params.model_dump()
    return _dag(path, book, nodes, edges, metadata)


def _summary_id(level: int, index: int) -> str:
    return f"summary-{level}-{index}"


def _groups(
    path: Path,
    book: str,
    levels: list[list[str]],
    params: PackingParams | None,
    tokenizer: Tokenizer | None,
) -> list[list[range]]:
    """groups[L - 1][k]: the level L-1 indices merged into summary k of level L."""
    if params is None:
        return [align_groups(levels[n], levels[n - 1]) for n in range(1, len(levels))]
    tokens = tokenizer or load_cl100k()
    try:
        budgets = level_budgets(len(levels[0]), params)
        return [pack_level(n, levels[n - 1], levels[n], budgets, params, tokens) for n in range(1, len(levels))]
    except PackingError as exc:
        raise AdapterError(
            f"book {excerpt(book)}: {exc}; check max_context_len/chunk_size/max_summary_len, or "
            "leave them out to align by text",
            file=path,
        ) from None


def _final_node(
    path: Path,
    book: str,
    value: dict[str, Any],
    levels: list[list[str]],
    nodes: list[Node],
    edges: list[tuple[str, str]],
) -> str:
    """Mark the terminal. The top level should hold one summary equal to `final_summary`."""
    top = levels[-1]
    final = value.get("final_summary")
    if len(top) != 1:
        raise AdapterError(
            f"book {excerpt(book)}: the top level ({len(levels) - 1}) has {len(top)} summaries; "
            "the run did not finish merging",
            file=path,
        )
    top_id = _summary_id(len(levels) - 1, 0)
    if final is None or final == top[0]:
        nodes[-1] = nodes[-1].model_copy(update={"kind": "final_summary"})
        return top_id
    if not isinstance(final, str) or not final.strip():
        raise AdapterError(f"book {excerpt(book)}: 'final_summary' is empty or not a text", file=path)
    nodes.append(Node(id="final-summary", text=final, stage=len(levels) + 2, kind="final_summary"))
    edges.append((top_id, "final-summary"))
    return "final-summary"


def _dag(path: Path, book: str, nodes: list[Node], edges: list[tuple[str, str]], metadata: dict[str, Any]) -> DAG:
    try:
        return DAG.from_records(nodes, edges, metadata)
    except DagError as exc:
        raise AdapterError(f"book {excerpt(book)}: {exc}", file=path) from None
