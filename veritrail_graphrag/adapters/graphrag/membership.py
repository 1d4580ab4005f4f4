"""Which entities, relationships and claims fed which community report, and which reports fed
which (a parent community's report may be written from its sub-communities' reports).

Each generation records this differently, so every answer says where it came from:
- entities: `communities.entity_ids`, else `create_final_nodes` (title + community per level);
- relationships: `communities.relationship_ids`, else both endpoints in the community; and the
  relationships a report cites (`[Data: Relationships (...)]`) that touch one of its entities;
- claims (covariates): through their subject entity;
- report hierarchy: `communities.parent` / `children`, else derived the way GraphRAG 0.x derived
  it (a community one level down whose entities are a subset of this one's is its sub-community).
Pure pandas, no I/O.
"""

from __future__ import annotations

import pandas as pd

from veritrail_graphrag.adapters.graphrag.citations import cited_ids, data_citations, record_id

MEMBERS = ["member", "community"]


def _empty() -> pd.DataFrame:
    return pd.DataFrame({"member": pd.Series(dtype="string"), "community": pd.Series(dtype="Int64")})


def _listed(communities: pd.DataFrame, column: str) -> pd.DataFrame:
    pairs = communities[["community", column]].explode(column).dropna(subset=[column])
    pairs = pairs.rename(columns={column: "member"})
    pairs["member"] = pairs["member"].astype("string")
    return pairs[MEMBERS]


def _report_levels(reports: pd.DataFrame, communities: pd.DataFrame) -> pd.DataFrame:
    """(community, level) of every report, taking the level from whichever table records it."""
    if "level" in reports.columns:
        return reports[["community", "level"]].drop_duplicates()
    if "level" in communities.columns:
        return reports[["community"]].merge(communities[["community", "level"]].drop_duplicates(), on="community")
    return reports[["community"]].assign(level=pd.NA)


def entity_members(
    communities: pd.DataFrame,
    reports: pd.DataFrame,
    entities: pd.DataFrame,
    nodes: pd.DataFrame | None,
) -> tuple[pd.DataFrame, str]:
    """(entity id, community) pairs for every report, and where they were read from.

    Communities listed with `entity_ids` use them; a report whose community is not listed there
    (0.x wrote a report for the unclustered "community -1") falls back to `create_final_nodes`.
    """
    parts = [_empty()]
    sources = []
    covered: set[int] = set()
    if "entity_ids" in communities.columns:
        parts.append(_listed(communities, "entity_ids"))
        covered = set(communities["community"].dropna().tolist())
        sources.append("communities.entity_ids")
    rest = reports[~reports["community"].isin(covered)]
    if len(rest) and nodes is not None:
        keyed = _report_levels(rest, communities)
        on = ["community", "level"] if keyed["level"].notna().all() else ["community"]
        placed = nodes.dropna(subset=["community"]).merge(keyed[on].drop_duplicates(), on=on)
        by_title = entities[["id", "title"]].drop_duplicates("title")
        found = placed.merge(by_title, on="title").rename(columns={"id": "member"})
        parts.append(found[MEMBERS])
        sources.append("nodes")
    members = pd.concat(parts, ignore_index=True).drop_duplicates()
    return members, "+".join(sources) or "none"


def text_unit_members(communities: pd.DataFrame) -> pd.DataFrame:
    """(text unit id, community) pairs: what a `fast`-method report was written from. That method
    extracts noun phrases without descriptions and shows the report prompt the community's text
    units instead of its entities and relationships."""
    if "text_unit_ids" not in communities.columns:
        return _empty()
    return _listed(communities, "text_unit_ids")


def _member_titles(entity_pairs: pd.DataFrame, entities: pd.DataFrame) -> pd.DataFrame:
    """(title, community) of each entity member: relationships name their ends by title."""
    return entity_pairs.merge(entities[["id", "title"]].rename(columns={"id": "member"}), on="member")[
        ["title", "community"]
    ]


def relationship_members(
    communities: pd.DataFrame,
    reports: pd.DataFrame,
    relationships: pd.DataFrame,
    entities: pd.DataFrame,
    entity_pairs: pd.DataFrame,
) -> tuple[pd.DataFrame, str]:
    """(relationship id, community) pairs: listed ids, else both endpoints in the community."""
    parts = [_empty()]
    sources = []
    covered: set[int] = set()
    if "relationship_ids" in communities.columns:
        parts.append(_listed(communities, "relationship_ids"))
        covered = set(communities["community"].dropna().tolist())
        sources.append("communities.relationship_ids")
    rest = set(reports["community"].dropna().tolist()) - covered
    if rest:
        titled = _member_titles(entity_pairs[entity_pairs["community"].isin(rest)], entities)
        ends = relationships[["id", "source", "target"]]
        both = ends.merge(titled.rename(columns={"title": "source"}), on="source").merge(
            titled.rename(columns={"title": "target"}), on=["target", "community"]
        )
        parts.append(both.rename(columns={"id": "member"})[MEMBERS])
        sources.append("endpoints")
    members = pd.concat(parts, ignore_index=True).drop_duplicates()
    return members, "+".join(sources) or "none"


def cited_relationship_members(
    reports: pd.DataFrame, relationships: pd.DataFrame, entities: pd.DataFrame, entity_pairs: pd.DataFrame
) -> pd.DataFrame:
    """(relationship id, community) pairs for the relationships a report cites by short id that
    touch one of its entities. GraphRAG shows a report's prompt every edge of each entity in it,
    also those to entities of other communities, while `relationship_ids` lists the edges inside
    the community only: without these, what the report says of such an edge (and cites) reaches
    the source by no path. Only the cited ones: the prompt is cut to fit its context window, so
    an uncited edge may never have been shown. A cited id whose edge touches no entity of the
    report names no input of it, and is left out."""
    if "human_readable_id" not in relationships.columns or not len(reports):
        return _empty()
    short = relationships["human_readable_id"].map(record_id)
    by_short = relationships.assign(short=short).dropna(subset=["short"]).drop_duplicates("short")
    cited = pd.DataFrame(
        [
            (community, record)
            for community, text in zip(reports["community"], reports["full_content"].fillna(""), strict=True)
            for record in cited_ids(data_citations(str(text)), "relationships")
        ],
        columns=["community", "short"],
    )
    if cited.empty:
        return _empty()
    edges = cited.merge(by_short[["short", "id", "source", "target"]], on="short")
    titles = _member_titles(entity_pairs, entities).groupby("community")["title"].agg(set)
    touches = [
        source in titles.get(community, ()) or target in titles.get(community, ())
        for community, source, target in zip(edges["community"], edges["source"], edges["target"], strict=True)
    ]
    found = edges[touches].rename(columns={"id": "member"})
    found = found.assign(member=found["member"].astype("string"), community=found["community"].astype("Int64"))
    return found[MEMBERS].drop_duplicates()


def subject_members(covariates: pd.DataFrame, entities: pd.DataFrame, entity_pairs: pd.DataFrame) -> pd.DataFrame:
    """(covariate id, community) pairs: a claim goes where its subject entity goes."""
    subjects = covariates[["id", "subject_id"]].merge(
        entities[["id", "title"]].rename(columns={"id": "entity", "title": "subject_id"}), on="subject_id"
    )
    placed = subjects.merge(entity_pairs.rename(columns={"member": "entity"}), on="entity")
    return placed.rename(columns={"id": "member"})[MEMBERS].drop_duplicates()


def derive_parents(entity_pairs: pd.DataFrame, levels: pd.DataFrame) -> pd.DataFrame:
    """(child, parent) community pairs, GraphRAG 0.x's rule: at the next level down, a community
    whose entities all belong to one community of this level is its sub-community."""
    placed = entity_pairs.merge(levels.dropna().drop_duplicates("community"), on="community")
    placed = placed[placed["community"] >= 0]
    ranks = {level: rank for rank, level in enumerate(sorted(placed["level"].unique()))}
    placed = placed.assign(rank=placed["level"].map(ranks))
    child = placed.rename(columns={"community": "child", "rank": "child_rank"})[["member", "child", "child_rank"]]
    parent = placed.rename(columns={"community": "parent", "rank": "parent_rank"})[["member", "parent", "parent_rank"]]
    pairs = child.merge(parent, on="member")
    pairs = pairs[pairs["parent_rank"] == pairs["child_rank"] - 1]
    shared = pairs.groupby(["child", "parent"]).size().rename("shared").reset_index()
    sizes = child.groupby("child").size().rename("size").reset_index()
    shared = shared.merge(sizes, on="child")
    return shared.loc[shared["shared"] == shared["size"], ["child", "parent"]].reset_index(drop=True)


def report_hierarchy(
    communities: pd.DataFrame, reports: pd.DataFrame, entity_pairs: pd.DataFrame
) -> tuple[pd.DataFrame, str]:
    """(child, parent) community pairs and where they came from."""
    parts = [pd.DataFrame({"child": pd.Series(dtype="Int64"), "parent": pd.Series(dtype="Int64")})]
    sources = []
    if "parent" in communities.columns:
        recorded = communities[["community", "parent"]].dropna()
        parts.append(recorded[recorded["parent"] >= 0].rename(columns={"community": "child"}))
        sources.append("parent")
    if "children" in communities.columns:
        listed = communities[["community", "children"]].explode("children").dropna(subset=["children"])
        listed = listed.rename(columns={"community": "parent", "children": "child"})
        listed["child"] = pd.to_numeric(listed["child"]).astype("Int64")
        parts.append(listed[["child", "parent"]])
        sources.append("children")
    if not sources:
        parts.append(derive_parents(entity_pairs, _report_levels(reports, communities)))
        sources.append("derived")
    pairs = pd.concat(parts, ignore_index=True).astype("Int64").drop_duplicates()
    return pairs[pairs["child"] != pairs["parent"]], "+".join(sources)
