"""Dev/test splits: deterministic, by document, and never sharing a document."""

from __future__ import annotations

from samples import SHARED, require_shared

from veritrail_graphrag.dag import DagFile, Node
from veritrail_graphrag.evaluation.items import BenchmarkItem, LabeledClaim
from veritrail_graphrag.evaluation.splits import Split, assign_splits, balanced, has_unsupported, select
from veritrail_graphrag.evaluation.summedits import load_summedits
from veritrail_graphrag.models import Claim

BENCHMARKS = SHARED / "benchmarks"


def _item(item_id: str, document: str) -> BenchmarkItem:
    nodes = [Node(id="d", text="Some source text.", stage=1), Node(id="s", text="A summary sentence here.", stage=2)]
    return BenchmarkItem(
        id=item_id,
        benchmark="toy",
        subset="all",
        document_id=document,
        dag=DagFile(nodes=nodes, edges=[("d", "s")]),
        terminal="s",
        claims=[LabeledClaim(claim=Claim(id="c", text="A summary sentence here."), supported=True)],
    )


def test_assignment_is_deterministic_and_order_free() -> None:
    documents = [f"doc-{i}" for i in range(20)]
    first = assign_splits(documents)
    assert first == assign_splits(reversed(documents))
    assert first == assign_splits(documents + documents[:5])
    assert sum(s is Split.DEV for s in first.values()) == 6  # round(0.3 * 20)


def test_seed_and_fraction_change_the_assignment() -> None:
    documents = [f"doc-{i}" for i in range(40)]
    assert assign_splits(documents, seed="a") != assign_splits(documents, seed="b")
    assert sum(s is Split.DEV for s in assign_splits(documents, dev_fraction=0.5).values()) == 20


def test_small_benchmarks_still_get_a_dev_document() -> None:
    assert list(assign_splits(["a", "b"]).values()).count(Split.DEV) == 1
    assert assign_splits(["only"]) == {"only": Split.TEST}


def test_select_keeps_documents_on_one_side_and_a_fixed_order() -> None:
    items = [_item(f"{d}-{k}", d) for d in ("a", "b", "c", "d", "e", "f", "g") for k in range(3)]
    dev, test = select(items, Split.DEV), select(items, Split.TEST)
    assert {i.document_id for i in dev}.isdisjoint({i.document_id for i in test})
    assert len(dev) + len(test) == len(items)
    assert [i.id for i in select(list(reversed(items)), Split.TEST)] == [i.id for i in test]


def test_summedits_split_is_document_disjoint() -> None:
    require_shared(BENCHMARKS / "summedits-subset")
    items = load_summedits(BENCHMARKS).items
    dev, test = select(items, Split.DEV), select(items, Split.TEST)
    assert {i.document_id for i in dev}.isdisjoint({i.document_id for i in test})
    assert len(dev) + len(test) == len(items) == 1564
    assert 0.2 < len(dev) / len(items) < 0.45
    assert {i.subset for i in dev} == {i.subset for i in test} == {"sales_call", "sales_email", "qmsumm"}


def _labeled(item_id: str, supported: bool, per_claim: bool = False) -> BenchmarkItem:
    """An item labeled as a whole (SummEdits) or through its claim (planted)."""
    item = _item(item_id, item_id)
    claim = LabeledClaim(
        claim=Claim(id="c", text="A summary sentence here."), supported=supported if per_claim else None
    )
    return item.model_copy(update={"claims": [claim], "supported": None if per_claim else supported})


def test_a_limited_slice_takes_both_classes_in_turn_and_tops_up() -> None:
    items = [_labeled(f"u{i}", False) for i in range(5)] + [_labeled(f"s{i}", True) for i in range(2)]
    assert [i.id for i in balanced(items, 4)] == ["u0", "s0", "u1", "s1"]
    assert [i.id for i in balanced(items, 6)] == ["u0", "s0", "u1", "s1", "u2", "u3"]  # supported ran out
    assert [i.id for i in balanced(items[:3], 2)] == ["u0", "u1"]  # one class only: eval warns


def test_a_planted_item_is_unsupported_through_its_claims() -> None:
    assert has_unsupported(_labeled("p", False, per_claim=True)) and not has_unsupported(
        _labeled("s", True, per_claim=True)
    )
    assert has_unsupported(_labeled("x", False)) and not has_unsupported(_labeled("y", True))
