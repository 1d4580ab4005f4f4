"""The engine's pure parts on their own: the decomposition queue, evidence and the verdict input."""

from __future__ import annotations

from veritrail_graphrag import DAG, TrailConfig
from veritrail_graphrag.engine.decomposition import DecompositionQueue
from veritrail_graphrag.engine.evidence import Evidence
from veritrail_graphrag.engine.verdict_input import VerdictInput


def test_decomposition_queue_splits_again_until_parts_come_back_whole() -> None:
    queue = DecompositionQueue("A and B", max_calls=20)
    answers = {"A and B": ["A", "B and C", "a"], "A": ["A"], "B and C": ["B", "C"], "B": ["B"], "C": [" C "]}
    asked = []
    while (part := queue.next()) is not None:
        asked.append(part)
        queue.answer(part, answers[part])
    assert asked == ["A and B", "A", "B and C", "B", "C"]  # "a" repeats "A": skipped
    assert queue.sub_claims() == ["A", "B", "C"]


def test_decomposition_queue_keeps_undecomposed_parts_when_calls_run_out() -> None:
    queue = DecompositionQueue("A and B", max_calls=1)
    part = queue.next()
    assert part == "A and B"
    queue.answer(part, ["A", "B"])
    assert queue.next() is None
    assert queue.sub_claims() == ["A", "B"]


def test_decomposition_queue_never_returns_the_claim_itself() -> None:
    queue = DecompositionQueue("One fact.", max_calls=3)
    queue.answer(queue.next() or "", [" one fact. "])
    assert queue.next() is None and queue.sub_claims() == []
    assert DecompositionQueue("x", max_calls=0).sub_claims() == []


def test_decomposition_queue_ends_a_branch_that_repeats_its_parent_or_a_part_seen() -> None:
    queue = DecompositionQueue("A and B", max_calls=20)
    answers = {"A and B": ["A", "B", "a and b."], "A": ["A, ", "B"], "B": ["b", "A"]}
    asked = []
    while (part := queue.next()) is not None:
        asked.append(part)
        queue.answer(part, answers[part])
    assert asked == ["A and B", "A", "B"]  # "A, " restates A, "B" and "A" were seen: nothing new
    assert queue.sub_claims() == ["A", "B"]


def test_a_part_the_model_returns_unchanged_is_final_as_written() -> None:
    queue = DecompositionQueue("Acme, Inc. sells tools.", max_calls=20)
    queue.answer(queue.next() or "", ["acme inc sells tools"])
    assert queue.next() is None and queue.sub_claims() == []


def test_decomposition_depth_bounds_the_rounds() -> None:
    def run(depth: int | None) -> tuple[list[str], list[str]]:
        queue = DecompositionQueue("P", max_calls=20, max_depth=depth)
        asked = []
        while (part := queue.next()) is not None:
            asked.append(part)
            queue.answer(part, [f"{part}.1", f"{part}.2"])  # a model that always finds two new parts
        return asked, queue.sub_claims()

    assert run(1) == (["P"], ["P.1", "P.2"])
    assert run(2) == (["P", "P.1", "P.2"], ["P.1.1", "P.1.2", "P.2.1", "P.2.2"])
    asked, parts = run(None)
    assert len(asked) == 20 and len(parts) == 21  # the paper's recursion: only the cap ends it


def dag() -> DAG:
    nodes = [
        {"id": "r1", "stage": 1, "text": "One. Two. Three."},
        {"id": "r2", "stage": 1, "text": "Only one."},
        {"id": "s1", "stage": 2, "text": "Alpha. Beta."},
        {"id": "s2", "stage": 2, "text": "Gamma."},
        {"id": "t", "stage": 3, "text": "Final."},
    ]
    return DAG.from_records(nodes, [("r1", "s1"), ("r2", "s2"), ("s1", "t"), ("s2", "t"), ("r1", "t")])


def evidence_of(graph: DAG, picks: dict[str, str]) -> Evidence:
    """All sentences of each node, with the given summary."""
    evidence = Evidence()
    for node_id, summary in picks.items():
        for sentence in graph.sentences(node_id):
            evidence.add(sentence, summary)
    return evidence


def test_excerpts_give_roots_in_full_and_shared_summaries_once() -> None:
    graph = dag()
    excerpts = VerdictInput(graph, TrailConfig()).excerpts(
        evidence_of(graph, {"s1": "Both. Said.", "s2": "Both. Said.", "r1": "ignored"})
    )
    assert [(e.node_id, e.is_root, e.nodes) for e in excerpts] == [("s1", False, ["s1", "s2"]), ("r1", True, ["r1"])]
    assert excerpts[1].text == "One. Two. Three."


def test_largest_fitting_keeps_the_most_excerpts_per_budget_and_always_one() -> None:
    graph = dag()
    verdict_input = VerdictInput(graph, TrailConfig(max_verdict_sentences=2, max_verdict_root_sentences=2))
    evidence = evidence_of(graph, {"s1": "A. B.", "s2": "C.", "r1": "", "r2": ""})
    excerpts = verdict_input.excerpts(evidence)
    assert [verdict_input.size(e) for e in excerpts] == [2, 1, 3, 1]
    assert verdict_input.summaries_too_long(excerpts)
    shown, omitted = verdict_input.largest_fitting(excerpts)
    assert [e.node_id for e in shown] == ["s2", "r2"] and omitted == ["s1", "r1"]

    alone = VerdictInput(graph, TrailConfig(max_verdict_root_sentences=1)).largest_fitting(
        VerdictInput(graph, TrailConfig()).excerpts(evidence_of(graph, {"r1": ""}))
    )
    assert [e.node_id for e in alone[0]] == ["r1"] and alone[1] == []


def test_reselected_evidence_replaces_only_the_non_root_part() -> None:
    graph = dag()
    first = evidence_of(graph, {"r1": "", "s1": "long", "s2": "other"})
    first.context = [graph.sentences("r2")[0], graph.sentences("s2")[0]]
    narrowed = Evidence()
    narrowed.add(graph.sentences("s1")[1], "short")
    narrowed.context = [graph.sentences("s1")[0]]

    merged = first.reselected(narrowed, graph.is_root)
    assert merged.nodes == ["r1", "s1"]
    assert [s.id for s in merged.flat()] == ["r1#0", "r1#1", "r1#2", "s1#1"]
    assert merged.summaries["s1"] == ["short"]
    assert [s.id for s in merged.context] == ["r2#0", "s1#0"]
    assert [[s.node_id for s in group] for group in first.non_roots(graph.is_root)] == [["s1", "s1"], ["s2"]]


def test_a_root_longer_than_its_share_of_the_prompt_limit_is_shown_by_its_selected_sentences() -> None:
    text = " ".join(f"Sentence number {i} of the long root." for i in range(40))
    graph = DAG.from_records(
        [{"id": "r", "stage": 1, "text": text}, {"id": "t", "stage": 2, "text": "Final."}], [("r", "t")]
    )
    evidence = Evidence()
    evidence.add(graph.sentences("r")[20], "")
    limited = VerdictInput(graph, TrailConfig(max_prompt_chars=400))
    (excerpt,) = limited.excerpts(evidence)
    assert excerpt.abridged and len(excerpt.text) <= 400
    assert excerpt.text == (
        "[...] Sentence number 19 of the long root. Sentence number 20 of the long root. "
        "Sentence number 21 of the long root. [...]"
    )
    assert limited.size(excerpt) == 3
    (full,) = VerdictInput(graph, TrailConfig()).excerpts(evidence)
    assert full.text == text and not full.abridged


def test_the_one_excerpt_always_shown_is_cut_at_the_prompt_limit() -> None:
    graph = dag()
    verdict_input = VerdictInput(graph, TrailConfig(max_prompt_chars=12))
    shown, omitted = verdict_input.largest_fitting(verdict_input.excerpts(evidence_of(graph, {"s1": "x" * 50})))
    assert [(e.text, e.abridged) for e in shown] == [("x" * 6 + " [...]", True)]
    assert omitted == []
