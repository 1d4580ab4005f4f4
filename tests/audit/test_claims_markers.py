"""One claim per sentence of an output: its citation markers, in any form, are never a claim and
never a sentence "too short to check"."""

from __future__ import annotations

from veritrail_graphrag.audit.claims import split_claims
from veritrail_graphrag.dag import DAG, Node

REPORT = (
    "# The Ouse mill\n\n"
    "The mill ground wheat for the village until 1921. [records: Entities (12)]\n"
    "Ada Pell kept its ledgers [Data: Entities (3); Relationships (9, +more)].\n\n"
    "[DATA: Relationships (4)]\n\n"
    "The bakery in Selby bought its flour. [Relationships (7)] [Relationship 8]\n"
    "It closed. [Data: Reports (1)]\n\n"
    "The miller sold it in 1930. (Data: Relationships (334)).\n"
    "(Data: Entities (2))"
)


def test_markers_in_any_form_belong_to_their_sentence_and_are_never_claims() -> None:
    dag = DAG.from_records(
        [Node(id="unit", text="The mill closed.", stage=1), Node(id="report", text=REPORT, stage=4)],
        [("unit", "report")],
    )
    claims, skipped = split_claims(dag, "report")
    assert [c.text for c in claims] == [
        "The mill ground wheat for the village until 1921.",
        "Ada Pell kept its ledgers.",
        "The bakery in Selby bought its flour.",
        "The miller sold it in 1930.",
    ]
    assert [(s.text, s.reason) for s in skipped] == [
        ("# The Ouse mill", "a heading"),
        ("It closed. [Data: Reports (1)]", "too short to check (fewer than 3 words)"),
    ]
    assert [c.sentence for c in claims] == [1, 2, 3, 5]
