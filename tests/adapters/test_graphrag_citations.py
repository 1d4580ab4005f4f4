"""GraphRAG's `[Data: ...]` citations and the DAG nodes they name."""

from __future__ import annotations

import pytest

from veritrail_graphrag.adapters.graphrag.citations import (
    CitationIndex,
    DataCitation,
    cited_ids,
    data_citations,
    read_data_group,
)
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.markers import strip_markers


def test_every_dataset_with_more_markers() -> None:
    text = (
        "Scrooge is a miser [Data: Reports (2, 7, 34, +more)]. Marley is dead "
        "[Data: Entities (5); Relationships (12, 40); Sources (3)] and [Data: Reports (1), Entities(6), Claims (7)]."
    )
    assert data_citations(text) == [
        DataCitation(dataset="reports", ids=[2, 7, 34], more=True),
        DataCitation(dataset="entities", ids=[5]),
        DataCitation(dataset="relationships", ids=[12, 40]),
        DataCitation(dataset="sources", ids=[3]),
        DataCitation(dataset="reports", ids=[1]),
        DataCitation(dataset="entities", ids=[6]),
        DataCitation(dataset="claims", ids=[7]),
    ]
    assert cited_ids(data_citations(text), "reports") == [2, 7, 34, 1]
    assert strip_markers("Marley is dead [Data: Entities (5)].") == "Marley is dead."


@pytest.mark.parametrize(
    ("marker", "labels"),
    [
        ("[records: Entities (1292)]", ["entities:1292"]),
        ("[data: entities (3); relationships (5, +more)]", ["entities:3", "relationships:5", "relationships:+more"]),
        ("[DATA: Reports (2)]", ["reports:2"]),
        ("[Relationships (2052)]", ["relationships:2052"]),
        ("[Relationship 424]", ["relationships:424"]),
        ("[Relationships 24, 25]", ["relationships:24", "relationships:25"]),
        ("[Daten: Berichte (3)]", []),  # a marker, of a dataset we do not know
        ("[+more]", []),
        ("[Illustration: A LANTERN]", None),  # words: not a marker
        ("[sic]", None),
    ],
)
def test_markers_in_any_form_are_read(marker: str, labels: list[str] | None) -> None:
    assert read_data_group(marker[1:-1], keep_more=True) == labels
    if labels is not None:
        assert strip_markers(f"Marley is dead {marker}.") == "Marley is dead."


@pytest.mark.parametrize(
    ("text", "labels"),
    [  # three published indexes write some of their markers in round brackets
        ("(Data: Relationships (334))", [("relationships", [334])]),
        ("(Data: Relationships(483))", [("relationships", [483])]),
        ("(data: Entities (3); Relationships (5, +more))", [("entities", [3]), ("relationships", [5])]),
    ],
)
def test_markers_in_round_brackets_are_read(text: str, labels: list[tuple[str, list[int]]]) -> None:
    assert [(c.dataset, c.ids) for c in data_citations(f"Marley is dead {text}.")] == labels
    assert strip_markers(f"Marley is dead {text}.") == "Marley is dead."


def test_a_full_stop_after_a_marker_that_follows_the_end_is_dropped_with_it() -> None:
    assert strip_markers("The mill closed. [Data: Entities (58)].") == "The mill closed."
    assert strip_markers("It closed! [Data: Reports (1)] (Data: Entities (2)).") == "It closed!"
    assert strip_markers("磨坊关闭了。[Data: Entities (3)]。") == "磨坊关闭了。"
    assert strip_markers("Wait... [Data: Reports (1)] what") == "Wait... what"


def test_round_brackets_of_words_and_numbers_are_text() -> None:
    for text in ("(data: 5 samples)", "(see Entities 3)", "(Relationships (3))", "(1921)"):
        assert data_citations(f"The mill closed {text}.") == []
        assert strip_markers(f"The mill closed {text}.") == f"The mill closed {text}."


def test_unknown_datasets_and_words_are_skipped() -> None:
    assert data_citations("[Data: Tables (3); Reports (x, 4, +more)]") == [
        DataCitation(dataset="reports", ids=[4], more=True)
    ]
    assert data_citations("Reports (3) outside a marker, [S0], [Data: ]") == []


def test_cited_records_resolve_to_nodes_by_short_id() -> None:
    nodes = [
        Node(id="text_unit:3", text="t", stage=1, kind="text_unit", metadata={"human_readable_id": 9, "row": 3}),
        Node(id="entity:MARLEY@text_unit:3", text="e", stage=2, kind="entity", metadata={"human_readable_id": 5}),
        Node(id="entity:MARLEY", text="e", stage=3, kind="entity_summary", metadata={"human_readable_id": 5}),
        Node(id="relationship:A->B", text="r", stage=2, kind="relationship", metadata={"human_readable_id": "12"}),
        Node(id="report:7", text="r", stage=4, kind="community_report", metadata={"community": 7.0}),
    ]
    edges = [
        ("text_unit:3", "entity:MARLEY@text_unit:3"),
        ("entity:MARLEY@text_unit:3", "entity:MARLEY"),
        ("text_unit:3", "relationship:A->B"),
        ("entity:MARLEY", "report:7"),
        ("relationship:A->B", "report:7"),
    ]
    index = CitationIndex(DAG.from_records(nodes, edges))
    found, unknown = index.resolve(
        data_citations("[Data: Entities (5); Relationships (12, 40); Sources (3, 9); Reports (7)]")
    )
    assert found == ["entity:MARLEY", "relationship:A->B", "text_unit:3", "report:7"]
    assert unknown == ["relationships:40", "sources:9"]  # Sources are row numbers, not human_readable_ids
