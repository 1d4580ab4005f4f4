"""Stages 2 and 3 for entities and relationships: what each chunk's extraction said, and the
description GraphRAG summarized from several chunks.

GraphRAG summarizes only when an item has more than one distinct description; a single one is
kept as it is. With the raw graph (`raw_entities` / `raw_relationships`, written when
`snapshots.raw_graph: true`; `description[i]` came from `text_unit_ids[i]`) that rule is applied
exactly and each chunk's description becomes a stage-2 node. Without it, an item listed in more
than one text unit is taken as summarized and its text units feed the stage-3 node directly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from veritrail_graphrag.adapters.graphrag import ids
from veritrail_graphrag.adapters.graphrag.collect import Parts
from veritrail_graphrag.adapters.graphrag.tables import Table
from veritrail_graphrag.errors import AdapterError


@dataclass(frozen=True)
class ItemKind:
    """What differs between entities and relationships."""

    kind: str
    key: tuple[str, ...]
    meta: Mapping[str, str]

    def labels(self, frame: pd.DataFrame) -> pd.Series:
        if self.kind == "entity":
            return ids.labelled(ids.ENTITY, frame["title"], frame["id"])
        return ids.labelled(ids.RELATIONSHIP, frame["source"] + ids.ARROW + frame["target"], frame["id"])


ENTITY = ItemKind(
    "entity",
    ("title",),
    {"id": "id", "human_readable_id": "human_readable_id", "title": "title", "type": "type", "degree": "degree"},
)
RELATIONSHIP = ItemKind(
    "relationship",
    ("source", "target"),
    {
        "id": "id",
        "human_readable_id": "human_readable_id",
        "source": "source",
        "target": "target",
        "combined_degree": "combined_degree",
    },
)
"""Each record's metadata: GraphRAG's ids, and the degrees a report's writer was shown, which
reports quote (`references.py`)."""


def _sources(frame: pd.DataFrame, column: str, text_units: pd.Series) -> pd.DataFrame:
    """(node, text unit node) pairs from a list column of text unit ids; unknown ids are dropped."""
    pairs = frame[["node", column]].explode(column).dropna(subset=[column])
    pairs["tu"] = pairs[column].astype("string").map(text_units)
    return pairs


def _raw_records(raw: Table, item: ItemKind, keyed: pd.DataFrame, text_units: pd.Series, parts: Parts) -> pd.DataFrame:
    """One row per (item, chunk, description) of the raw graph, matched to the final items."""
    frame = raw.frame
    try:
        records = frame.explode(["description", "text_unit_ids"], ignore_index=True)
    except ValueError:
        raise AdapterError(
            "columns 'description' and 'text_unit_ids' must be lists of the same length in every row",
            file=raw.path,
        ) from None
    records = records.dropna(subset=["text_unit_ids"])
    records["description"] = records["description"].astype("string").fillna("")
    records = records.merge(keyed, on=list(item.key), how="left")
    parts.skip(raw.path, f"rows whose {item.kind} is not in the final table", records["node"].isna().sum())
    records["tu"] = records["text_unit_ids"].astype("string").map(text_units)
    parts.skip(raw.path, "rows naming an unknown text unit", (records["node"].notna() & records["tu"].isna()).sum())
    empty = records["description"].str.strip() == ""
    parts.skip(raw.path, "rows with an empty description", (records["node"].notna() & empty).sum())
    return records[records["node"].notna() & records["tu"].notna() & ~empty]


def _per_chunk_nodes(records: pd.DataFrame, item: ItemKind, parts: Parts) -> None:
    """Stage 2 from the raw graph: one node per (item, chunk), with that chunk's description(s)."""
    records = records.drop_duplicates(["node", "tu", "description"])
    several = records.duplicated(["node", "tu"], keep=False)
    joined = records[several].groupby(["node", "tu"], sort=False)["description"].agg("\n".join)
    texts = pd.concat([records.loc[~several, ["node", "tu", "description"]], joined.reset_index()], ignore_index=True)
    texts = texts.rename(columns={"description": "text"})
    first = records.drop_duplicates(["node", "tu"]).set_index(["node", "tu"])
    texts = texts.join(first.drop(columns=["description"]), on=["node", "tu"])
    texts["item"] = texts["node"]
    texts["node"] = ids.chunk_ids(texts["item"], texts["tu"])
    meta = {key: key for key in item.key} | {"text_unit_id": "text_unit_ids"}
    parts.add_nodes(texts, stage=2, kind=item.kind, meta=meta)
    parts.add_edges(texts["tu"], texts["node"])
    parts.add_edges(texts["node"], texts["item"])


def items(table: Table, raw: Table | None, item: ItemKind, text_units: pd.Series, parts: Parts) -> pd.Series:
    """Stages 2-3 for entities or relationships. Returns GraphRAG id -> node id of the final description."""
    frame = table.frame.assign(node=lambda f: item.labels(f))
    empty = frame["description"].str.strip() == ""
    parts.skip(table.path, "rows with an empty description", empty.sum())
    frame = frame[~empty].assign(text=lambda f: f["description"])

    pairs = _sources(frame, "text_unit_ids", text_units)
    parts.skip(table.path, "text_unit_ids naming an unknown text unit", pairs["tu"].isna().sum())
    pairs = pairs.dropna(subset=["tu"]).drop_duplicates(["node", "tu"])
    unsourced = ~frame["node"].isin(pairs["node"])
    parts.skip(table.path, "rows with no known text unit", unsourced.sum())
    frame = frame[~unsourced]

    if raw is None:
        summarized = pairs.groupby("node").size().pipe(lambda n: set(n[n > 1].index))
        records = None
    else:
        keyed = frame[[*item.key, "node"]].drop_duplicates(list(item.key))
        records = _raw_records(raw, item, keyed, text_units, parts)
        distinct = records.groupby("node")["description"].nunique()
        summarized = set(distinct[distinct > 1].index)
        records = records[records["node"].isin(summarized)]
        _per_chunk_nodes(records, item, parts)

    is_summary = frame["node"].isin(summarized)
    meta = dict(item.meta)
    parts.add_nodes(frame[is_summary], stage=3, kind=f"{item.kind}_summary", meta=meta)
    parts.add_nodes(frame[~is_summary], stage=2, kind=item.kind, meta=meta)
    direct = pairs if records is None else pairs[~pairs["node"].isin(summarized)]
    parts.add_edges(direct["tu"], direct["node"])
    return pd.Series(frame["node"].to_numpy(), index=frame["id"].to_numpy())
