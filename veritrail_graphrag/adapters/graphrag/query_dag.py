"""The stages a saved search run adds on top of the index DAG, one wiring per search method.

An edge u -> v means u was in the prompt of the step that wrote v, and a node is one stage above
its highest input. The index (stages 1-4) is shared; what each method adds:

- global: map answers (5) fed by their batch's reports; the final answer (6) fed by the key
  points reduce read (score > 0, within its token budget).
- local and basic: the final answer fed by the records of its one context window that were in
  it (`in_context`): reports (4), entities and relationships (their final description: 3 when
  summarized, else 2), claims (2), text units (1). Local is usually 5, basic always 2.
- DRIFT: the primer's answer (5) fed by the reports it read; each follow-up query at the stage of
  the answer that proposed it, fed by that answer's inputs; each follow-up answer fed by its own
  context records and its query; the final answer fed by every answer reduce read.

Only what the final answer descends from is kept, so the final answer is the DAG's one terminal.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable
from typing import Any

from veritrail_graphrag.adapters.graphrag import ids
from veritrail_graphrag.adapters.graphrag.citations import CitationIndex
from veritrail_graphrag.adapters.graphrag.context_nodes import context_nodes
from veritrail_graphrag.adapters.graphrag.query_run import DriftAction, DriftRun, QueryRun, cited_reports
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.errors import AdapterError, excerpt, named

MAP_STAGE = 5
REDUCE_STAGE = 6


def ancestry(index: DAG, starts: set[str]) -> set[str]:
    """Every node the `starts` descend from, themselves included."""
    seen = set(starts)
    queue = deque(starts)
    graph = index.graph
    while queue:
        for parent in graph.predecessors(queue.popleft()):
            if parent not in seen:
                seen.add(parent)
                queue.append(parent)
    return seen


def above(index: DAG, inputs: Iterable[str], stages: dict[str, int] | None = None) -> int:
    """One stage above the highest input (index nodes, or new nodes given in `stages`)."""
    known = stages or {}
    return 1 + max(known[i] if i in known else index.stage(i) for i in inputs)


def on_top(
    index: DAG,
    nodes: list[Node],
    edges: list[tuple[str, str]],
    metadata: dict[str, Any],
    *,
    keep_unused: bool = False,
) -> DAG:
    """The index plus the query's nodes; by default only the index nodes they descend from."""
    new = {node.id for node in nodes}
    kept = {n.id for n in index} if keep_unused else ancestry(index, {u for u, _ in edges if u not in new})
    every = [n for n in index if n.id in kept] + nodes
    links = [(u, v) for u, v in index.edges if u in kept and v in kept] + list(dict.fromkeys(edges))
    summary = {
        **index.metadata,
        **metadata,
        "index_nodes_dropped": len(index) - len(kept),
        "counts": dict(sorted(Counter(n.kind for n in every).items())),
        "stages": {str(k): v for k, v in sorted(Counter(n.stage for n in every).items())},
    }
    return DAG.from_records(every, links, summary)


def _run_metadata(run: QueryRun) -> dict[str, Any]:
    return {
        "question": run.query,
        "query_run": {
            "run_id": run.run_id,
            "method": run.method,
            "community_level": run.community_level,
            "created": run.created.isoformat(),
            "settings_fingerprint": run.settings_fingerprint,
            "notes": run.notes,
        },
    }


def _final(run: QueryRun, stage: int, **metadata: Any) -> Node:
    return Node(
        id=ids.FINAL_ANSWER,
        text=run.final_answer,
        stage=stage,
        kind="final_answer",
        metadata={"run_id": run.run_id, "method": run.method, **metadata},
    )


def _global(index: DAG, run: QueryRun, keep_unused: bool) -> DAG:
    """Stage 5: one node per map answer, fed by every report of its batch; 6 the reduce answer."""
    answers: list[Node] = []
    edges: list[tuple[str, str]] = []
    for batch in run.batches:
        reports = [ids.report_id(community) for community in batch.report_ids]
        unknown = [r for r in reports if r not in index]
        if unknown:
            raise AdapterError(
                f"query run {excerpt(run.run_id, 40)}, batch {batch.index}: report(s) not in the index: {named(unknown)}"
            )
        for position, answer in enumerate(batch.answers):
            node_id = ids.map_answer_id(batch.index, position)
            metadata: dict[str, Any] = {
                "batch": batch.index,
                "score": answer.score,
                "report_ids": list(batch.report_ids),
                "cited_reports": cited_reports(answer.answer),
            }
            answers.append(Node(id=node_id, text=answer.answer, stage=MAP_STAGE, kind="map_answer", metadata=metadata))
            edges.extend((report, node_id) for report in reports)
    reduced = {n.id for n in answers if n.metadata["score"] > 0 and n.id not in run.not_in_reduce}
    if not reduced:
        raise AdapterError(
            f"query run {excerpt(run.run_id, 40)}: no map answer has a score above 0, so reduce had no input "
            "and the final answer cannot be traced"
        )
    unused = sorted(n.id for n in answers if n.id not in reduced)
    if not keep_unused:
        answers = [n for n in answers if n.id in reduced]
        edges = [(u, v) for u, v in edges if v in reduced]
    final = _final(run, REDUCE_STAGE, cited_reports=cited_reports(run.final_answer))
    edges += [(n.id, final.id) for n in answers if n.id in reduced]
    metadata = {
        **_run_metadata(run),
        "map_answers": len(reduced) + len(unused),
        "map_answers_reduced": len(reduced),
        "map_answers_unused": unused,
    }
    return on_top(index, [*answers, final], edges, metadata, keep_unused=keep_unused)


def _one_window(index: DAG, run: QueryRun, keep_unused: bool) -> DAG:
    """Local and basic search: one prompt, one context window, one answer."""
    assert run.context is not None  # guaranteed by QueryRun's validation
    window = context_nodes(index, run.context, f"query run {excerpt(run.run_id, 40)}")
    if not window.nodes:
        raise AdapterError(
            f"query run {excerpt(run.run_id, 40)}: no record of the context window is an index node, "
            "so the answer cannot be traced"
        )
    final = _final(run, above(index, window.nodes))
    metadata = {**_run_metadata(run), "context": window.summary()}
    return on_top(index, [final], [(n, final.id) for n in window.nodes], metadata, keep_unused=keep_unused)


def _primer_reports(index: DAG, run: QueryRun, drift: DriftRun) -> tuple[list[str], str]:
    """The primer's reports, or (not recorded) every report DRIFT could choose them from."""
    if drift.primer_report_ids is not None:
        reports = [ids.report_id(c) for c in drift.primer_report_ids]
        unknown = [r for r in reports if r not in index]
        if unknown:
            raise AdapterError(f"query run {excerpt(run.run_id, 40)}: primer report(s) not in the index: {named(unknown)}")
        return reports, "recorded"
    level = run.community_level
    reports = [
        n.id
        for n in index
        if n.kind == "community_report" and (level is None or (n.metadata.get("level") or 0) <= level)
    ]
    return reports, "not recorded: every report at or below the community level"


def _next_follow_up(pending: list[DriftAction], wired: dict[int, str]) -> DriftAction | None:
    """A follow-up whose proposing actions are all wired; if follow-ups proposed each other's
    queries (a cycle in the action graph), one that at least one wired action proposed."""
    ready = next((a for a in pending if all(p in wired for p in a.parents)), None)
    return ready or next((a for a in pending if any(p in wired for p in a.parents)), None)


def _drift(index: DAG, run: QueryRun, keep_unused: bool) -> DAG:
    drift = run.drift
    assert drift is not None  # guaranteed by QueryRun's validation
    citations = CitationIndex(index)
    reports, primer_inputs = _primer_reports(index, run, drift)
    if not reports:
        raise AdapterError(f"query run {excerpt(run.run_id, 40)}: the index has no report the DRIFT primer could have read")
    primer = drift.primer
    stages = {ids.DRIFT_PRIMER: above(index, reports)}
    nodes = [
        Node(
            id=ids.DRIFT_PRIMER,
            text=primer.answer or "",
            stage=stages[ids.DRIFT_PRIMER],
            kind="drift_primer",
            metadata={"action": primer.id, "score": primer.score, "report_ids": drift.primer_report_ids},
        )
    ]
    edges = [(r, ids.DRIFT_PRIMER) for r in reports]
    inputs = {primer.id: reports}
    answer_node = {primer.id: ids.DRIFT_PRIMER}
    pending = [a for a in drift.follow_ups if a.answered]
    while pending:
        action = _next_follow_up(pending, answer_node)
        if action is None:
            raise AdapterError(
                f"query run {excerpt(run.run_id, 40)}: DRIFT action(s) {named(a.id for a in pending)} descend from no answered action"
            )
        pending.remove(action)
        parents = [p for p in action.parents if p in answer_node]
        query = ids.drift_query_id(action.id)
        stages[query] = max(stages[answer_node[p]] for p in parents)
        nodes.append(
            Node(id=query, text=action.query, stage=stages[query], kind="drift_query", metadata={"action": action.id})
        )
        edges += [(n, query) for p in parents for n in inputs[p]]
        assert action.context is not None  # guaranteed by DriftRun's validation
        window = context_nodes(index, action.context, f"query run {excerpt(run.run_id, 40)}, DRIFT action {action.id}", citations)
        inputs[action.id] = [*window.nodes, query]
        answer = ids.drift_answer_id(action.id)
        answer_node[action.id] = answer
        stages[answer] = above(index, inputs[action.id], stages)
        nodes.append(
            Node(
                id=answer,
                text=action.answer or "",
                stage=stages[answer],
                kind="drift_answer",
                metadata={"action": action.id, "query": action.query, "score": action.score},
            )
        )
        edges += [(n, answer) for n in inputs[action.id]]
    read = list(answer_node.values())
    final = _final(run, above(index, read, stages))
    edges += [(n, final.id) for n in read]
    notes = (
        []
        if drift.primer_report_ids is not None
        else [
            "the reports DRIFT's primer read were not recorded: the primer is wired to every report it could have read"
        ]
    )
    metadata = {
        **_run_metadata(run),
        "notes": notes,
        "drift": {
            "primer_reports": primer_inputs,
            "follow_ups_answered": len(read) - 1,
            "follow_ups_unanswered": [a.id for a in drift.follow_ups if not a.answered],
        },
    }
    return on_top(index, [*nodes, final], edges, metadata, keep_unused=keep_unused)


def add_query_run(index: DAG, run: QueryRun, *, keep_unused: bool = False) -> DAG:
    """The index DAG plus the query stages of `run`, whatever its search method.

    By default only what the final answer descends from is kept, so that the final answer is the
    DAG's one terminal; `keep_unused=True` keeps the whole index (and, for global search, the map
    answers reduce did not read).
    """
    if ids.FINAL_ANSWER in index:
        raise AdapterError(f"query run {excerpt(run.run_id, 40)}: the DAG already holds a final answer")
    build = {"global": _global, "local": _one_window, "basic": _one_window, "drift": _drift}[run.method]
    return build(index, run, keep_unused)
