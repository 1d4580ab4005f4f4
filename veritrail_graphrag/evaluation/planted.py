"""The planted error-localization benchmark: one fact changed at one stage of a real GraphRAG run.

Start from the real *A Christmas Carol* index (text units -> entity/relationship descriptions ->
community reports, read with the GraphRAG adapter), keep six community reports and everything
they were built from, and add a hand-made global-search answer on top: three map answers that
restate report sentences (stage 5) and a final answer made of the map answers' sentences (stage
6). A case changes one fact (a name, a number, a negation, a relation or an attribute) at one
stage and carries the change into every node downstream of it, so the final answer holds a claim
whose error starts exactly there. The unchanged answer sentences are the supported claims.

Nothing is random: the cases are every fact at every stage, so the benchmark is the same on
every run; the dev/test split (by community, the cases' shared source) is seeded like the others.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import networkx as nx

from veritrail_graphrag.adapters.graphrag import locate, read_index
from veritrail_graphrag.dag import DAG, DagFile, Node
from veritrail_graphrag.errors import AdapterError, VeriTrailError
from veritrail_graphrag.evaluation.errors import BenchmarkDataError
from veritrail_graphrag.evaluation.items import BenchmarkItem, LabeledClaim, LoadedBenchmark
from veritrail_graphrag.evaluation.planted_facts import AnswerSentence, PlantedFact, PlantedFacts, load_planted_facts
from veritrail_graphrag.models import Claim

INDEX_FOLDER = "graphrag-verbs-data"
REPORT_STAGE, MAP_STAGE, FINAL_STAGE = 4, 5, 6
FINAL = "final_answer"
STAGE_NAMES = {
    2: "entity/relationship description (one chunk)",
    3: "summarized description",
    4: "community report",
    5: "map answer",
    6: "final answer",
}


def _report(community: int) -> str:
    return f"report:{community}"


def _map(group: int) -> str:
    return f"map_answer:{group}"


def find_index(data_dir: Path) -> Path:
    """`--data` when it is the index itself, else the index inside it or beside the benchmarks
    (`shared/fixtures/`). Nothing is looked up relative to the installed package."""
    candidates = [data_dir / INDEX_FOLDER, data_dir.parent / "fixtures" / INDEX_FOLDER]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    try:
        locate(data_dir)
    except AdapterError:
        raise BenchmarkDataError(
            f"planted: no GraphRAG index of A Christmas Carol at {data_dir}, "
            f"{' or '.join(map(str, candidates))}; pass --data with the index folder "
            "(in a checkout of this repository: sample_runs/graphrag-christmas-carol)"
        ) from None
    return data_dir


class _Source:
    """The kept part of the index: six reports and all their ancestors, plus the hand-made answers."""

    def __init__(self, index: DAG, facts: PlantedFacts) -> None:
        self.facts = facts
        communities = [c for group in facts.map_groups for c in group]
        kept: set[str] = set()
        for community in communities:
            report = _report(community)
            if report not in index:
                raise BenchmarkDataError(f"planted: the index has no {report!r}")
            ancestors = nx.ancestors(index.graph, report)
            others = sorted(a for a in ancestors if index.node(a).kind == "community_report")
            if others:
                raise BenchmarkDataError(f"planted: {report!r} is built from other reports: {others}")
            kept |= ancestors | {report}
        self.nodes = {n: index.node(n) for n in sorted(kept)}
        self.edges = [(u, v) for u, v in index.edges if u in kept and v in kept]
        self.edges += [(_report(c), _map(g)) for g, group in enumerate(facts.map_groups) for c in group]
        self.edges += [(_map(g), FINAL) for g in range(len(facts.map_groups))]
        self.sentences: list[AnswerSentence] = facts.sentences
        self._check()

    def _check(self) -> None:
        for sentence in self.sentences:
            report = self.nodes[_report(sentence.community)]
            if sentence.report_sentence not in report.text:
                raise BenchmarkDataError(f"planted: {sentence.id!r}: sentence not found in {report.id!r}")
        for fact in self.facts.facts:
            if fact.old not in fact.report_sentence or fact.old not in fact.answer:
                raise BenchmarkDataError(f"planted: {fact.id!r}: {fact.old!r} is not in its report sentence and answer")
            parents = set(nx.ancestors(nx.DiGraph(self.edges), _report(fact.community)))
            for edit in fact.descriptions:
                node = self.nodes.get(edit.node)
                if node is None or edit.node not in parents:
                    raise BenchmarkDataError(f"planted: {fact.id!r}: {edit.node!r} is not an input of its report")
                if edit.old not in node.text:
                    raise BenchmarkDataError(f"planted: {fact.id!r}: {edit.old!r} not found in {edit.node!r}")
            if len({self.nodes[e.node].stage for e in fact.descriptions}) != 1:
                raise BenchmarkDataError(f"planted: {fact.id!r}: its description nodes are at several stages")

    def description_stage(self, fact: PlantedFact) -> int:
        return self.nodes[fact.descriptions[0].node].stage

    def dag(self, texts: dict[str, str], answers: dict[str, str]) -> DagFile:
        """The DAG with some node texts replaced and the given answer sentences."""
        nodes = [n.model_copy(update={"text": texts[n.id]}) if n.id in texts else n for n in self.nodes.values()]
        for group, communities in enumerate(self.facts.map_groups):
            text = " ".join(answers[s.id] for s in self.sentences if s.community in communities)
            nodes.append(Node(id=_map(group), text=text, stage=MAP_STAGE, kind="map_answer"))
        final = " ".join(answers[s.id] for s in self.sentences)
        nodes.append(Node(id=FINAL, text=final, stage=FINAL_STAGE, kind="final_answer"))
        return DagFile(nodes=nodes, edges=self.edges, metadata={"benchmark": "planted"})

    def case(self, fact: PlantedFact, stage: int) -> BenchmarkItem:
        """`fact` changed at `stage` and in every node downstream of it."""
        changed = fact.answer.replace(fact.old, fact.new)
        texts: dict[str, str] = {}
        if stage <= REPORT_STAGE:
            report = self.nodes[_report(fact.community)]
            sentence = fact.report_sentence.replace(fact.old, fact.new)
            texts[report.id] = report.text.replace(fact.report_sentence, sentence)
        if stage < REPORT_STAGE:
            for edit in fact.descriptions:
                texts[edit.node] = texts.get(edit.node, self.nodes[edit.node].text).replace(edit.old, edit.new)
        answers = {s.id: s.answer for s in self.sentences}
        if stage <= MAP_STAGE:
            answers[fact.id] = changed
        dag = self.dag(texts, answers)
        if stage == FINAL_STAGE:
            final = dag.nodes[-1]
            dag.nodes[-1] = final.model_copy(update={"text": final.text.replace(fact.answer, changed)})
        return BenchmarkItem(
            id=f"planted:{fact.id}@{stage}",
            benchmark="planted",
            subset=fact.kind,
            document_id=f"planted:community-{fact.community}",
            dag=dag,
            terminal=FINAL,
            claims=[
                LabeledClaim(
                    claim=Claim(id=fact.id, text=changed), supported=False, planted_stage=stage, edit_kind=fact.kind
                )
            ],
            metadata={"fact": fact.id, "stage": stage, "stage_name": STAGE_NAMES[stage], "original": fact.answer},
        )

    def unchanged(self, community: int) -> BenchmarkItem:
        sentences = [s for s in self.sentences if s.community == community]
        return BenchmarkItem(
            id=f"unchanged:community-{community}",
            benchmark="planted",
            subset="unchanged",
            document_id=f"planted:community-{community}",
            dag=self.dag({}, {s.id: s.answer for s in self.sentences}),
            terminal=FINAL,
            claims=[LabeledClaim(claim=Claim(id=s.id, text=s.answer), supported=True) for s in sentences],
        )


def build_items(index: DAG, facts: PlantedFacts) -> list[BenchmarkItem]:
    """Every fact at every stage from its description up, then the unchanged claims per community."""
    source = _Source(index, facts)
    items: list[BenchmarkItem] = []
    for fact in facts.facts:
        stages: Iterable[int] = (source.description_stage(fact), REPORT_STAGE, MAP_STAGE, FINAL_STAGE)
        items.extend(source.case(fact, stage) for stage in stages)
    items.extend(source.unchanged(c) for group in facts.map_groups for c in group)
    return items


def load_planted(data_dir: Path) -> LoadedBenchmark:
    """The cases built from the index `find_index` finds under `data_dir` and the packaged facts."""
    facts = load_planted_facts()
    path = find_index(data_dir)
    try:
        index = read_index(path)
    except VeriTrailError as exc:
        raise BenchmarkDataError(f"planted: cannot read the GraphRAG index at {path}: {exc}") from None
    return LoadedBenchmark(
        name="planted",
        items=build_items(index, facts),
        notes=[
            f"Built from the GraphRAG index at {path} (read with veritrail_graphrag.adapters.graphrag): "
            f"{len(facts.map_groups)} map answers over community reports "
            f"{', '.join(str(c) for g in facts.map_groups for c in g)}, their descriptions and text units; the map "
            "and final answers are hand-made from report sentences.",
            f"{len(facts.facts)} facts, each changed at its description stage (2 or 3), the report (4), the map answer "
            f"(5) and the final answer (6); {len(facts.sentences)} unchanged answer sentences are the "
            "supported claims. Stages: " + "; ".join(f"{k} = {v}" for k, v in STAGE_NAMES.items()) + ".",
            "Localization: 'contains' = the reported error stages include the planted stage, 'exact' = they are "
            "exactly that stage.",
        ],
    )
