"""Which relationships feed a community report beyond its community's own: the ones it cites that
touch one of its entities (`membership.cited_relationship_members`)."""

from __future__ import annotations

import pandas as pd

from veritrail_graphrag.adapters.graphrag.membership import cited_relationship_members

ENTITIES = pd.DataFrame({"id": ["e1", "e2", "e3", "e4"], "title": ["MILL", "FERRY", "HARBOUR", "COUNCIL"]})
RELATIONSHIPS = pd.DataFrame(
    {
        "id": ["r1", "r2", "r3"],
        "human_readable_id": [10, 11, 12],
        "source": ["MILL", "HARBOUR", "FERRY"],
        "target": ["COUNCIL", "COUNCIL", "MILL"],
    }
)
MEMBERS = pd.DataFrame({"member": pd.array(["e1", "e2"], dtype="string"), "community": pd.array([7, 7], dtype="Int64")})


def pairs(*texts: str) -> set[tuple[str, int]]:
    reports = pd.DataFrame({"community": pd.array([7] * len(texts), dtype="Int64"), "full_content": list(texts)})
    found = cited_relationship_members(reports, RELATIONSHIPS, ENTITIES, MEMBERS)
    return set(zip(found["member"], found["community"], strict=True))


def test_a_cited_edge_that_leaves_the_community_is_an_input() -> None:
    """MILL is in community 7, COUNCIL is not: GraphRAG showed the report the edge, and it cites
    it. HARBOUR -> COUNCIL touches none of its entities; 99 is no relationship of the index."""
    text = "The mill answers to the council [Data: Entities (1); Relationships (10, 11, 99, +more)]."
    assert pairs(text) == {("r1", 7)}


def test_citations_in_any_marker_form_and_none_at_all() -> None:
    assert pairs("The ferry reaches the mill [records: Relationships (12)].") == {("r3", 7)}
    assert pairs("The ferry reaches the mill.", "") == set()


def test_an_index_without_short_ids_links_nothing_by_citation() -> None:
    reports = pd.DataFrame({"community": pd.array([7], dtype="Int64"), "full_content": ["[Data: Relationships (10)]"]})
    found = cited_relationship_members(reports, RELATIONSHIPS.drop(columns="human_readable_id"), ENTITIES, MEMBERS)
    assert found.empty
