"""Read GraphRAG's parquet tables into one column vocabulary, whatever generation wrote them.

Generations renamed and retyped columns (`name` -> `title`, `raw_community` -> `community`,
community numbers stored as strings and, in GraphRAG 0.3/0.4, kept in the communities' `id`,
optional `parent`/`children`); everything after this module
sees the 3.x names and types. Only the columns the DAG needs are read: early outputs carry
1536-float embeddings per entity that would otherwise dominate memory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from veritrail_graphrag.adapters.graphrag.layout import Layout, arrow_problem, columns_of
from veritrail_graphrag.errors import AdapterError, excerpt, named

Kind = Literal["str", "int", "number", "list", "scalar"]
ROW = "row"
"""A text unit's label in its table's index (its row number unless the parquet stores an index):
the id local, basic and DRIFT search show for it as `Sources (n)`, not its `human_readable_id`."""


@dataclass(frozen=True)
class Column:
    """A column under its 3.x name, the older names it went by, its type, and whether a run must
    have it (`nonempty`: and a text in every row; `unique`: and a different value in every row)."""

    name: str
    kind: Kind = "str"
    aliases: tuple[str, ...] = ()
    required: bool = True
    nonempty: bool = False
    unique: bool = False
    of_integers: bool = False
    """For a list column: every item is an integer (a community number)."""


def _optional(name: str, kind: Kind = "str") -> Column:
    return Column(name, kind, required=False)


SCHEMAS: dict[str, tuple[Column, ...]] = {
    "text_units": (
        Column("id", unique=True),
        Column("text", nonempty=True),
        _optional("human_readable_id", "scalar"),
        _optional("n_tokens", "scalar"),
    ),
    "entities": (
        Column("id", unique=True),
        Column("title", aliases=("name",)),
        Column("description"),
        Column("text_unit_ids", "list"),
        _optional("human_readable_id", "scalar"),
        _optional("type"),
        _optional("degree", "number"),
    ),
    "relationships": (
        Column("id", unique=True),
        Column("source"),
        Column("target"),
        Column("description"),
        Column("text_unit_ids", "list"),
        _optional("human_readable_id", "scalar"),
        _optional("combined_degree", "number"),
    ),
    "communities": (
        Column("community", "int", aliases=("raw_community", "id")),
        _optional("level", "int"),
        _optional("parent", "int"),
        Column("children", "list", required=False, of_integers=True),
        _optional("entity_ids", "list"),
        _optional("relationship_ids", "list"),
        _optional("text_unit_ids", "list"),
    ),
    "community_reports": (
        Column("community", "int"),
        Column("full_content", nonempty=True),
        _optional("level", "int"),
        _optional("id"),
        _optional("human_readable_id", "scalar"),
        _optional("title"),
        _optional("rank", "number"),
    ),
    "covariates": (
        Column("id", unique=True),
        Column("description"),
        Column("subject_id"),
        Column("text_unit_id"),
        _optional("human_readable_id", "scalar"),
        _optional("object_id"),
        _optional("type"),
        _optional("status"),
    ),
    "nodes": (Column("title"), Column("community", "int"), Column("level", "int")),
    "raw_entities": (Column("title"), Column("description", "list"), Column("text_unit_ids", "list")),
    "raw_relationships": (
        Column("source"),
        Column("target"),
        Column("description", "list"),
        Column("text_unit_ids", "list"),
    ),
}


@dataclass(frozen=True)
class Table:
    """One normalised table and the file it came from (for error messages)."""

    path: Path
    frame: pd.DataFrame


@dataclass(frozen=True)
class IndexTables:
    """Every table the DAG is built from; optional ones are None when the run did not write them."""

    layout: Layout
    text_units: Table
    entities: Table
    relationships: Table
    communities: Table
    community_reports: Table
    covariates: Table | None
    nodes: Table | None
    raw_entities: Table | None
    raw_relationships: Table | None


_READ_AS = {("communities", "id"): "the community number of GraphRAG 0.3/0.4"}
"""Columns read under another name than their own, and what they hold there: an error names the
column as the file has it."""


def _numbers(frame: pd.DataFrame, column: str, path: Path, integers: bool, shown: str) -> pd.Series:
    """The column as numbers (Int64 for integers), or an error naming the first row that is none
    and the column as `shown` (its name in the file)."""
    values = pd.to_numeric(frame[column], errors="coerce")
    bad = values.isna() & frame[column].notna()
    if integers:
        bad |= values.notna() & ((values % 1 != 0) | (values.abs() >= 2**63))
    if bad.any():
        position = int(bad.to_numpy().nonzero()[0][0])
        raise _wrong_type(frame, column, position, "integers" if integers else "numbers", path, shown)
    return values.astype("Int64") if integers else values.astype("float64")


def _row_name(frame: pd.DataFrame, position: int) -> str:
    for key in ("id", "community", "title"):
        if key in frame.columns:
            return f"{key}={excerpt(frame[key].iloc[position], 40)}"
    return f"row {position}"


_HOLDS: dict[Kind, tuple[str, tuple[type, ...]]] = {
    "str": ("texts", (str,)),
    "list": ("lists", (list, tuple, np.ndarray)),
    "scalar": ("texts or numbers", (str, int, float, np.generic)),
}
"""What a column of each kind holds besides missing values. A list column stored as text (a CSV
round trip or a hand-edited table) would otherwise be read as one list of characters and every
link in it silently lost; a number in an id or text column would match nothing; a list or bytes
in an id column would reach the report's JSON and tables, which cannot hold them."""


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _wrong_type(
    frame: pd.DataFrame, column: str, position: int, expected: str, path: Path, name: str | None = None
) -> AdapterError:
    """`name`: the column as the file calls it, when it was read under another (`column`)."""
    value = frame[column].iloc[position]
    shown = excerpt(value if not isinstance(value, np.ndarray) else value.tolist())
    where = _row_name(frame, position)
    return AdapterError(
        f"column {name or repr(column)} should hold {expected}, but row {position} ({where}) holds a "
        f"{type(value).__name__}: {shown}",
        file=path,
        row=position,
    )


def _check_kind(frame: pd.DataFrame, column: Column, path: Path) -> None:
    if column.kind not in _HOLDS:
        return
    expected, types = _HOLDS[column.kind]
    for position, value in enumerate(frame[column.name]):
        if not isinstance(value, types) and not _missing(value):
            raise _wrong_type(frame, column.name, position, expected, path)


def _check_items(frame: pd.DataFrame, column: str, path: Path) -> None:
    """Every item of the list column is an integer: a child community written as text (' ')
    would otherwise fail deep in the hierarchy's arithmetic, with no file named."""
    for position, value in enumerate(frame[column]):
        if _missing(value):
            continue
        items = pd.to_numeric(pd.Series(list(value), dtype=object), errors="coerce")
        if items.isna().any() or (items % 1 != 0).any():
            raise _wrong_type(frame, column, position, "lists of integers", path)


def _normalise(frame: pd.DataFrame, schema: tuple[Column, ...], path: Path, shown: dict[str, str]) -> pd.DataFrame:
    """`shown`: how errors name a column read under another name (`'id' (the community ...)`)."""
    for column in schema:
        if column.name not in frame.columns:
            continue
        _check_kind(frame, column, path)
        if column.of_integers:
            _check_items(frame, column.name, path)
        if column.kind == "str":
            frame[column.name] = frame[column.name].astype("string").fillna("")
        elif column.kind in ("int", "number"):
            name = shown.get(column.name, repr(column.name))
            frame[column.name] = _numbers(frame, column.name, path, integers=column.kind == "int", shown=name)
        if column.unique and frame[column.name].duplicated().any():
            repeated = frame[column.name][frame[column.name].duplicated()].iloc[0]
            raise AdapterError(f"column {column.name!r} repeats the value {excerpt(repeated)}", file=path)
        if column.nonempty:
            empty = (frame[column.name].str.strip() == "").to_numpy().nonzero()[0]
            if len(empty):
                raise AdapterError(
                    f"column {column.name!r} is empty in {len(empty)} row(s), first at "
                    f"{_row_name(frame, int(empty[0]))}",
                    file=path,
                    row=int(empty[0]),
                )
    return frame


def read_table(name: str, path: Path) -> Table:
    """Read the columns of `SCHEMAS[name]` from `path`, renamed to their 3.x names."""
    names = columns_of(path)
    present = set(names)
    selected: dict[str, str] = {}
    for column in SCHEMAS[name]:
        source = next((c for c in (column.name, *column.aliases) if c in present), None)
        if source is not None:
            selected[source] = column.name
        elif column.required:
            has = named(sorted(present), shown=12, limit=30)
            raise AdapterError(f"missing column {column.name!r} (has: {has})", file=path)
    repeated = [c for c in selected if names.count(c) > 1]
    if repeated:
        raise AdapterError(f"column {excerpt(repeated[0])} appears {names.count(repeated[0])} times", file=path)
    try:
        table = pq.read_table(path, columns=list(selected))
        table.validate(full=True)  # texts that are not UTF-8 (a damaged file) fail here, not when read later
        frame = table.to_pandas()
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise AdapterError(f"cannot be read ({arrow_problem(exc)})", file=path) from None
    frame = frame.rename(columns=selected)
    if name == "text_units":
        frame[ROW] = _row_labels(frame.index)
    frame = frame.reset_index(drop=True)
    shown = {
        target: f"{source!r} ({_READ_AS[name, source]})"
        for source, target in selected.items()
        if (name, source) in _READ_AS
    }
    return Table(path=path, frame=_normalise(frame, SCHEMAS[name], path, shown))


def _row_labels(index: pd.Index) -> pd.Series:
    """The text units' index as GraphRAG's query side reads it: integers when they are."""
    labels = pd.Series(index.to_numpy(), dtype=object)
    numbers = pd.to_numeric(labels, errors="coerce")
    if numbers.notna().all() and (numbers % 1 == 0).all():
        return numbers.astype("int64")
    return labels.astype(str)


def load_tables(layout: Layout, *, include_covariates: bool = True) -> IndexTables:
    """Read every table of the index; optional tables the run did not write come back as None."""

    def optional(name: str) -> Table | None:
        return read_table(name, layout.file(name)) if layout.has(name) else None

    return IndexTables(
        layout=layout,
        text_units=read_table("text_units", layout.file("text_units")),
        entities=read_table("entities", layout.file("entities")),
        relationships=read_table("relationships", layout.file("relationships")),
        communities=read_table("communities", layout.file("communities")),
        community_reports=read_table("community_reports", layout.file("community_reports")),
        covariates=optional("covariates") if include_covariates else None,
        nodes=optional("nodes"),
        raw_entities=optional("raw_entities"),
        raw_relationships=optional("raw_relationships"),
    )
