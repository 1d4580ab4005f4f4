"""Issue 37: a report's prose names the index's own records by their short ids ("entity 12
describes ...", "MILL POND (12)"); where the id resolves to a record, it is a reference, and the
claim carries its characters for offline verifiers to leave unchecked. (Records written for these
tests, in the shapes the translated wild indexes show.)"""

from __future__ import annotations

import pytest
from samples import SAMPLES

from veritrail_graphrag.adapters.graphrag import read_index
from veritrail_graphrag.adapters.graphrag.references import record_references
from veritrail_graphrag.audit.claims import split_claims
from veritrail_graphrag.dag import DAG, Node

ENTITIES = {12: "MILL POND", 13: "K46.1", 14: "ПЕКАРНЯ", 20: "FLOUR TRADE (1900 REVISION)"}
RELATIONSHIPS = {40: ("MILL POND", "K46.1"), 41: ("ПЕКАРНЯ", "MILL POND"), 42: ("K46.1", "ПЕКАРНЯ")}


def _index(report: str = "The pond feeds the mill.") -> DAG:
    nodes = [Node(id="unit", text="Мельница стоит у пруда.", stage=1, kind="text_unit", metadata={"row": 0})]
    nodes += [
        Node(id=f"entity:{title}", text="A pond.", stage=3, kind="entity_summary", metadata={"title": title, "human_readable_id": n})
        for n, title in ENTITIES.items()
    ]
    nodes += [
        Node(
            id=f"relationship:{a}->{b}",
            text="They meet.",
            stage=3,
            kind="relationship_summary",
            metadata={"source": a, "target": b, "human_readable_id": n},
        )
        for n, (a, b) in RELATIONSHIPS.items()
    ]
    nodes.append(Node(id="report:3", text=report, stage=4, kind="community_report", metadata={"community": 3}))
    records = [n.id for n in nodes if n.stage == 3]
    return DAG.from_records(nodes, [*(("unit", r) for r in records), *((r, "report:3") for r in records)])


def _referenced(dag: DAG, text: str) -> list[str]:
    return [text[start:end] for start, end in record_references(dag, text)]


@pytest.mark.parametrize(
    ("text", "references"),
    [
        ("Entity 12 describes the pond.", ["Entity 12"]),
        ("The pond (entity 12) feeds the mill via relationship 40.", ["entity 12", "relationship 40"]),
        ("Relationships 40, 41, and 42 tie them together.", ["Relationships 40, 41, and 42"]),
        ("Relationships 40‑42 connect each trade (entities 12‑14) with the pond.", ["Relationships 40‑42", "entities 12‑14"]),
        ("The relationship ID 41 links ПЕКАРНЯ to the pond.", ["relationship ID 41"]),
        ("It links the bakery to MILL POND (record 12).", ["record 12"]),
        ("Records 40 (MILL POND) and 41 (ПЕКАРНЯ) both join the pond.", ["Records 40"]),
        ("The code K46.1 (13) and the pond (12) are linked.", ["(13)"]),  # "the pond" is not its title
        ("MILL POND (12) feeds ПЕКАРНЯ (14).", ["(12)", "(14)"]),
        ("The Flour Trade (20) sets the price.", ["(20)"]),  # the title's own parenthesis left aside
        ("The pond and the bakery (entities 12,14) trade.", ["entities 12,14"]),
        ("Entity 99 describes the pond.", []),  # no record 99: a number to check
        ("Relationships 41 and 99 join the pond.", ["41"]),  # the keyword stays: 99 is checked
        ("The entity grew by 12 percent.", []),
        ("MILL POND (1900) was dug by hand.", []),  # no entity 1900
        ("MILL POND (ID 12) feeds ПЕКАРНЯ (id: 14).", ["(ID 12)", "(id: 14)"]),  # the id's label written
        ("K46.1 (ID #13) codes it.", ["(ID #13)"]),
        ("MILL POND (ID 13) feeds the mill.", []),  # record 13 is K46.1: a wrong id stays a number to check
        ("The pond (ID 12) feeds the mill.", []),  # "the pond" is not its title
        ("The well (ID 12A) is dry.", []),
    ],
)
def test_ids_of_records_the_index_holds_are_references(text: str, references: list[str]) -> None:
    assert _referenced(_index(), text) == references


def test_split_claims_carry_their_references() -> None:
    report = "# The pond\n\nEntity 12 describes the pond that feeds ПЕКАРНЯ (14).\n\nThe pond froze in 1900."
    claims, _ = split_claims(_index(report), "report:3")
    assert [[c.text[a:b] for a, b in c.references] for c in claims] == [["Entity 12", "(14)"], []]


def test_a_dag_without_records_has_no_references() -> None:
    dag = DAG.from_records(
        [Node(id="unit", text="Entity 12 of the ledger.", stage=1), Node(id="out", text="Entity 12 is a pond.", stage=2)],
        [("unit", "out")],
    )
    assert record_references(dag, "Entity 12 is a pond.") == []


def _graph_index() -> DAG:
    """A report over two entities (degrees 3 and 2) and their relationship (combined degree 5),
    and another community's entity of degree 7."""
    unit = Node(id="unit", text="The pond feeds the mill.", stage=1, kind="text_unit", metadata={"row": 0})
    pond = Node(
        id="entity:MILL POND", text="A pond.", stage=2, kind="entity", metadata={"title": "MILL POND", "degree": 3.0}
    )
    mill = Node(id="entity:MILL", text="A mill.", stage=2, kind="entity", metadata={"title": "MILL", "degree": 2.0})
    edge = Node(
        id="relationship:MILL POND->MILL",
        text="The pond feeds the mill.",
        stage=2,
        kind="relationship",
        metadata={"source": "MILL POND", "target": "MILL", "combined_degree": 5.0},
    )
    other = Node(
        id="entity:BAKERY", text="A bakery.", stage=2, kind="entity", metadata={"title": "BAKERY", "degree": 7.0}
    )
    report = Node(id="report:3", text="The pond feeds the mill.", stage=4, kind="community_report", metadata={})
    inputs = [pond.id, mill.id, edge.id]
    return DAG.from_records(
        [unit, pond, mill, edge, other, report],
        [*(("unit", n.id) for n in (pond, mill, edge, other)), *((n, report.id) for n in inputs)],
    )


@pytest.mark.parametrize(
    ("text", "references"),
    [
        ("The pond's degree of connectivity within the network (degree: 3) is moderate.", ["3"]),
        ("The mill has a degree of 2, and their link a combined degree of 5.", ["2", "5"]),
        ("Its degree 2 implies a more isolated role.", ["2"]),
        ("The pond has a degree of 7.", []),  # another community's record: a number to check
        ("The link has a combined degree of 3.", []),  # 3 is an entity's degree, not a link's
        ("The pond lies 3 degrees north of the mill.", []),
        ("The pond has a degree of 4.", []),
    ],
)
def test_a_degree_the_reports_own_records_give_is_a_reference(text: str, references: list[str]) -> None:
    """GraphRAG shows a report's writer each entity's degree and each relationship's combined
    degree; reports quote them ("(degree: 3)"), and no description holds them. A degree that one
    of the report's own records has is a reference; any other is a number to check."""
    dag = _graph_index()
    assert [text[s:e] for s, e in record_references(dag, text, terminal="report:3")] == references


def test_a_report_claims_carry_their_degree_references() -> None:
    dag = _graph_index()
    text = "The mill has a degree of 2 in this community."
    dag = DAG.from_records(
        [*(dag.node(n.id) for n in dag if n.id != "report:3"), dag.node("report:3").model_copy(update={"text": text})],
        dag.edges,
    )
    [claim], _ = split_claims(dag, "report:3")
    assert [claim.text[s:e] for s, e in claim.references] == ["2"]


def test_the_index_keeps_the_degrees_its_reports_were_shown() -> None:
    dag = read_index(SAMPLES / "graphrag-christmas-carol")
    entities = [n for n in dag if n.kind in ("entity", "entity_summary")]
    relationships = [n for n in dag if n.kind in ("relationship", "relationship_summary")]
    assert entities and all(isinstance(n.metadata.get("degree"), float) for n in entities)
    assert relationships and all(isinstance(n.metadata.get("combined_degree"), float) for n in relationships)
