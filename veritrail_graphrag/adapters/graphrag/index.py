"""Build the stage 1-4 DAG of a GraphRAG index (the paper's section 2).

Stage 1 text units; 2 what one chunk's extraction said about an entity, a relationship or a
claim; 3 an entity's or relationship's description summarized from several chunks; 4 community
reports. Every text is copied from a table, never composed: when the run did not keep the
per-chunk descriptions (`snapshots.raw_graph`), text units feed the stage-3 summary directly and
`metadata["stage2"]` says "not_recorded". A `fast`-method index (NLP extraction) has no
descriptions at all: its reports were written from text units, which feed them directly
(`metadata["report_inputs"]` says "text_units").

The work is columnar (explode/merge/groupby) because a paper-scale index has ~100K nodes.
Stages 2-3 of entities and relationships live in `descriptions`, report membership in
`membership`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from veritrail_graphrag.adapters.graphrag import ids
from veritrail_graphrag.adapters.graphrag.collect import NODE_COLUMNS, Parts
from veritrail_graphrag.adapters.graphrag.descriptions import ENTITY, RELATIONSHIP, items
from veritrail_graphrag.adapters.graphrag.layout import cache_folder, locate
from veritrail_graphrag.adapters.graphrag.membership import (
    cited_relationship_members,
    entity_members,
    relationship_members,
    report_hierarchy,
    subject_members,
    text_unit_members,
)
from veritrail_graphrag.adapters.graphrag.tables import ROW, IndexTables, Table, load_tables
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.errors import AdapterError


def _text_units(table: Table, parts: Parts) -> pd.Series:
    """Stage 1. Returns GraphRAG text unit id -> node id."""
    frame = table.frame
    readable = frame["human_readable_id"] if "human_readable_id" in frame.columns else None
    usable = readable is not None and readable.notna().all() and readable.is_unique
    label = readable.astype("string") if usable else frame["id"]
    frame = frame.assign(node=ids.labelled(ids.TEXT_UNIT, label, frame["id"]))
    parts.add_nodes(
        frame,
        stage=1,
        kind="text_unit",
        meta={"id": "id", "human_readable_id": "human_readable_id", "row": ROW, "n_tokens": "n_tokens"},
    )
    return pd.Series(frame["node"].to_numpy(), index=frame["id"].to_numpy())


def _covariates(table: Table, text_units: pd.Series, parts: Parts) -> pd.Series:
    """Stage 2 claims: each row is already what one chunk's extraction said."""
    frame = table.frame
    readable = frame["human_readable_id"] if "human_readable_id" in frame.columns else frame["id"]
    frame = frame.assign(node=ids.labelled(ids.COVARIATE, readable.astype("string"), frame["id"]))
    empty = frame["description"].str.strip() == ""
    parts.skip(table.path, "rows with an empty description", empty.sum())
    frame = frame[~empty].assign(text=lambda f: f["description"], tu=lambda f: f["text_unit_id"].map(text_units))
    parts.skip(table.path, "rows naming an unknown text unit", frame["tu"].isna().sum())
    frame = frame.dropna(subset=["tu"])
    meta = {
        "id": "id",
        "human_readable_id": "human_readable_id",
        "subject_id": "subject_id",
        "object_id": "object_id",
        "type": "type",
        "status": "status",
    }
    parts.add_nodes(frame, stage=2, kind="covariate", meta=meta)
    parts.add_edges(frame["tu"], frame["node"])
    return pd.Series(frame["node"].to_numpy(), index=frame["id"].to_numpy())


def _reports(table: Table) -> pd.DataFrame:
    """Stage-4 nodes (added later, once their inputs are known). Returns the keyed report frame."""
    frame = table.frame
    repeated = frame["community"][frame["community"].duplicated()]
    if len(repeated) or frame["community"].isna().any():
        shown = repeated.iloc[0] if len(repeated) else "<missing>"
        raise AdapterError(f"column 'community' must name each report once; {shown} does not", file=table.path)
    return frame.assign(node=frame["community"].map(ids.report_id), text=frame["full_content"])


def _linked(pairs: pd.DataFrame, members: pd.Series, reports: pd.Series) -> tuple[pd.Series, pd.Series]:
    sources = pairs["member"].map(members)
    targets = pairs["community"].map(reports)
    keep = sources.notna() & targets.notna()
    return sources[keep], targets[keep]


def _written_from_text_units(tables: IndexTables) -> bool:
    """A `fast`-method index (`graphrag index --method fast`): no entity has a description, and
    its reports were written from their communities' text units."""
    descriptions = tables.entities.frame["description"].fillna("").astype(str).str.strip()
    return bool(len(descriptions)) and bool((descriptions == "").all())


def _link_reports(
    tables: IndexTables, reports: pd.DataFrame, members: Mapping[str, pd.Series], parts: Parts
) -> dict[str, Any]:
    """Edges into the reports: from their communities' members and from their sub-communities'
    reports. Returns where membership and hierarchy were read from, for the DAG's metadata."""
    communities = tables.communities.frame
    entities = tables.entities.frame
    report_nodes = pd.Series(reports["node"].to_numpy(), index=reports["community"].to_numpy())
    nodes = tables.nodes.frame if tables.nodes is not None else None
    entity_pairs, entity_source = entity_members(communities, reports, entities, nodes)
    relationship_pairs, relationship_source = relationship_members(
        communities, reports, tables.relationships.frame, entities, entity_pairs
    )
    cited = cited_relationship_members(reports, tables.relationships.frame, entities, entity_pairs)
    with_cited = pd.concat([relationship_pairs, cited], ignore_index=True).drop_duplicates()
    if len(with_cited) > len(relationship_pairs):
        relationship_pairs, relationship_source = with_cited, f"{relationship_source}+cited"
    report_inputs = "descriptions"
    if _written_from_text_units(tables):
        report_inputs = "text_units"
        parts.add_edges(*_linked(text_unit_members(communities), members["text_unit"], report_nodes))
    parts.add_edges(*_linked(entity_pairs, members["entity"], report_nodes))
    parts.add_edges(*_linked(relationship_pairs, members["relationship"], report_nodes))
    if tables.covariates is not None:
        claims = subject_members(tables.covariates.frame, entities, entity_pairs)
        parts.add_edges(*_linked(claims, members["covariate"], report_nodes))
    hierarchy, hierarchy_source = report_hierarchy(communities, reports, entity_pairs)
    parts.add_edges(hierarchy["child"].map(report_nodes), hierarchy["parent"].map(report_nodes))
    return {
        "report_inputs": report_inputs,
        "membership": {"entities": entity_source, "relationships": relationship_source},
        "hierarchy": hierarchy_source,
    }


def _add_reports(table: Table, reports: pd.DataFrame, parts: Parts) -> list[str]:
    """Stage 4, leaving out reports nothing feeds (not even a sub-report): a node without inputs
    would be taken for source material. Returns the ids left out."""
    edges = pd.concat(parts.edges, ignore_index=True).dropna().drop_duplicates()
    dropped: set[str] = set()
    while True:
        fed = set(edges.loc[~edges["u"].isin(dropped), "v"])
        newly = set(reports["node"]) - fed - dropped
        if not newly:
            break
        dropped |= newly
    parts.skip(table.path, "reports with no input (no member and no sub-report found)", len(dropped))
    parts.edges = [edges[~edges["u"].isin(dropped) & ~edges["v"].isin(dropped)]]
    meta = {key: key for key in ("id", "human_readable_id", "community", "level", "title", "rank")}
    parts.add_nodes(reports[~reports["node"].isin(dropped)], stage=4, kind="community_report", meta=meta)
    return sorted(dropped)


def build_index(tables: IndexTables) -> DAG:
    """The stage 1-4 DAG of already loaded tables; `read_index` is the usual entry point."""
    parts = Parts()
    text_units = _text_units(tables.text_units, parts)
    members = {
        "text_unit": text_units,
        "entity": items(tables.entities, tables.raw_entities, ENTITY, text_units, parts),
        "relationship": items(tables.relationships, tables.raw_relationships, RELATIONSHIP, text_units, parts),
    }
    if tables.covariates is not None:
        members["covariate"] = _covariates(tables.covariates, text_units, parts)
    reports = _reports(tables.community_reports)
    provenance = _link_reports(tables, reports, members, parts)
    dropped = _add_reports(tables.community_reports, reports, parts)

    frame = pd.concat(parts.nodes, ignore_index=True)
    nodes = [
        Node(id=i, text=t, stage=s, kind=k, metadata=m)
        for i, t, s, k, m in zip(*(frame[c].tolist() for c in NODE_COLUMNS), strict=True)
    ]
    edges = parts.edges[0]
    titles = set(tables.entities.frame["title"])
    relationships = tables.relationships.frame
    dangling = ~relationships["source"].isin(titles) | ~relationships["target"].isin(titles)
    orphaned = ~tables.community_reports.frame["community"].isin(tables.communities.frame["community"])
    metadata = {
        "adapter": "graphrag",
        "layout": tables.layout.name,
        "source": str(tables.layout.directory),
        "project_root": str(tables.layout.project_root) if tables.layout.project_root else None,
        "stage2": _stage2(tables),
        **provenance,
        "dangling_relationships": int(dangling.sum()),
        "reports_of_missing_communities": int(orphaned.sum()),
        "reports_without_inputs": dropped,
        "counts": {str(k): int(v) for k, v in frame["kind"].value_counts().sort_index().items()},
        "stages": {str(k): int(v) for k, v in frame["stage"].value_counts().sort_index().items()},
        "skipped": dict(sorted(parts.skipped.items())),
    }
    note = _stage2_note(tables)
    if note:
        metadata["stage2_note"] = note
    return DAG.from_records(nodes, list(zip(edges["u"].tolist(), edges["v"].tolist(), strict=True)), metadata)


def tolerated_notes(metadata: Mapping[str, Any]) -> list[str]:
    """One terminal note per irregularity of the index that was tolerated rather than refused
    (real indexes have them): how many rows, and what became of them. The counts are in the DAG's
    metadata too, but a user reads the terminal."""
    notes = []
    if dangling := metadata.get("dangling_relationships"):
        notes.append(
            f"{dangling} relationship(s) name an endpoint that is not an entity; kept, with their own description"
        )
    if orphaned := metadata.get("reports_of_missing_communities"):
        notes.append(f"{orphaned} community report(s) belong to a community the communities table does not list")
    for where, count in (metadata.get("skipped") or {}).items():
        table, _, reason = where.partition(": ")
        notes.append(f"{table}: {count} {reason} left out of the DAG")
    return notes


def _stage2(tables: IndexTables) -> str:
    kept = [tables.raw_entities is not None, tables.raw_relationships is not None]
    return "raw_graph" if all(kept) else "partial" if any(kept) else "not_recorded"


def _stage2_note(tables: IndexTables) -> str | None:
    if _stage2(tables) == "raw_graph":
        return None
    cache = cache_folder(tables.layout)
    if cache is None:
        return None
    return (
        f"{cache} holds the extraction model's answers, but GraphRAG stores each under a hash of the "
        "whole request and without the request itself, so they cannot be matched to chunks here; "
        "re-index with snapshots.raw_graph: true to get stage 2."
    )


def read_index(path: str | Path, *, include_covariates: bool = True) -> DAG:
    """Read a GraphRAG index (project root, `output/` folder or folder of parquet files) as a DAG."""
    layout = locate(path)
    return build_index(load_tables(layout, include_covariates=include_covariates))
