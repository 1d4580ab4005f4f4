"""The runner on a toy benchmark with a rule-based verifier: units, reference points, cost, errors."""

from __future__ import annotations

import pytest

from veritrail_graphrag.dag import DagFile, Node
from veritrail_graphrag.evaluation.counting import counting
from veritrail_graphrag.evaluation.items import BenchmarkItem, LabeledClaim, LoadedBenchmark
from veritrail_graphrag.evaluation.render import render_markdown, tables
from veritrail_graphrag.evaluation.runner import evaluate
from veritrail_graphrag.evaluation.splits import Split, select
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.llm.usage import UsageLedger
from veritrail_graphrag.models import Agreement, Claim, EvidenceSelection, Excerpt, Sentence, Verdict, VerdictResult
from veritrail_graphrag.verifiers import base
from veritrail_graphrag.verifiers.base import LocatesInventions, ReadsLanguages, Verifier
from veritrail_graphrag.verifiers.facts.verifier import FactsVerifier
from veritrail_graphrag.verifiers.lexical import LexicalVerifier

SOURCE = "The mill opened in 1850. The river powers the mill."


class KeywordVerifier:
    """Selects every sentence; the verdict comes from a keyword in the claim. Meters 10 tokens a call."""

    def __init__(self) -> None:
        self.usage = UsageLedger()

    def _meter(self, kind: CallKind) -> None:
        self.usage.record(kind, "keyword", usage_key=None, input_tokens=6, output_tokens=4)

    async def decompose(self, claim_text: str) -> list[str]:
        self._meter(CallKind.DECOMPOSITION)
        return [claim_text]

    async def select_evidence(self, claim: Claim, sentences: list[Sentence]) -> EvidenceSelection:
        self._meter(CallKind.EVIDENCE_SELECTION)
        return EvidenceSelection(selected=[s.id for s in sentences], summary="all")

    async def judge(self, claim: Claim, excerpts: list[Excerpt]) -> VerdictResult:
        self._meter(CallKind.VERDICT)
        if "boom" in claim.text:
            raise ConnectionError("model unavailable")
        if "fake" in claim.text:
            return VerdictResult(verdict=Verdict.NOT_FULLY_SUPPORTED, score=0.1)
        if "unsure" in claim.text:
            return VerdictResult(verdict=Verdict.INCONCLUSIVE, score=0.5)
        return VerdictResult(verdict=Verdict.FULLY_SUPPORTED, score=0.9)


def _item(item_id: str, document: str, claims: list[tuple[str, bool | None]], supported: bool | None = None):
    nodes = [
        Node(id="source", text=SOURCE, stage=1),
        Node(id="answer", text=" ".join(text for text, _ in claims), stage=2),
    ]
    return BenchmarkItem(
        id=item_id,
        benchmark="toy",
        subset=document,
        document_id=document,
        dag=DagFile(nodes=nodes, edges=[("source", "answer")]),
        terminal="answer",
        claims=[
            LabeledClaim(claim=Claim(id=f"c{i}", text=text), supported=label) for i, (text, label) in enumerate(claims)
        ],
        supported=supported,
    )


def _benchmark() -> LoadedBenchmark:
    items = []
    for d in range(6):
        doc = f"doc{d}"
        items += [
            _item(f"{doc}-true", doc, [("The mill opened in 1850.", True)]),
            _item(f"{doc}-caught", doc, [("The fake mill opened in 1990.", False)]),
            _item(f"{doc}-missed", doc, [("The mill opened in 1851.", False)]),
            _item(f"{doc}-unsure", doc, [("The unsure river powers the mill.", True)]),
            _item(f"{doc}-summary", doc, [("The river powers the mill.", None), ("A fake claim.", None)], False),
        ]
    return LoadedBenchmark(name="toy", items=items, notes=["toy data"])


def test_verifier_and_reference_points_are_scored_on_the_same_units() -> None:
    benchmark = _benchmark()
    report = evaluate(benchmark, "keyword", KeywordVerifier(), Split.TEST, command="veritrail eval toy")
    test_items = select(benchmark.items, Split.TEST)
    documents = len({i.document_id for i in test_items})
    assert report.items == len(test_items) == 5 * documents
    assert report.units == report.items and report.claims == 6 * documents and report.errors == 0
    verifier, always, overlap = report.systems
    assert [s.name for s in report.systems] == ["keyword", "always Fully Supported", "token overlap"]
    # Per document: true -> FS (tn), caught -> NFS (tp), missed -> FS (fn), unsure -> Inconclusive = flagged (fp),
    # summary (item label False, one fake sentence) -> flagged (tp).
    c = verifier.overall.confusion
    assert (c.tp, c.fp, c.fn, c.tn) == (2 * documents, documents, documents, documents)
    assert verifier.inconclusive_rate == pytest.approx(0.2)
    assert verifier.overall.not_supported.recall == pytest.approx(2 / 3)
    assert always.overall.confusion.tn == 2 * documents and always.overall.not_supported.recall == 0.0
    assert always.overall.auroc == pytest.approx(0.5)
    assert overlap.threshold is not None and "dev units" in overlap.description
    summary = next(o for o in report.outcomes if o.item_id.endswith("-summary"))
    assert summary.claims == 2 and summary.verdict is Verdict.NOT_FULLY_SUPPORTED and summary.score == 0.1
    assert set(verifier.by_subset) == {i.document_id for i in test_items}


def test_cost_counts_engine_calls_and_metered_tokens() -> None:
    report = evaluate(_benchmark(), "keyword", KeywordVerifier(), Split.TEST)
    cost = report.cost
    assert cost.calls_by_kind["judge"] == cost.claims
    assert cost.calls == sum(cost.calls_by_kind.values())
    assert cost.tokens == 10 * cost.calls
    assert cost.tokens_per_claim == pytest.approx(10 * cost.calls / cost.claims)
    names = {"decompose": "decomposition", "select_evidence": "evidence_selection", "judge": "verdict"}
    assert cost.model_calls_by_kind == {
        **{names[kind]: n for kind, n in cost.calls_by_kind.items()},
        "repair": 0,
        "resample": 0,
    }
    assert "Model calls: decomposition" in render_markdown(report)
    assert cost.nodes_read_per_claim == pytest.approx(1.0)


def test_failing_items_are_counted_and_left_out_of_every_system() -> None:
    benchmark = _benchmark()
    doc = select(benchmark.items, Split.TEST)[0].document_id
    benchmark.items.append(_item(f"{doc}-boom", doc, [("The boom mill.", True)]))
    report = evaluate(benchmark, "keyword", KeywordVerifier(), Split.TEST)
    assert report.errors == 1
    failed = [o for o in report.outcomes if o.error]
    assert len(failed) == 1 and "model unavailable" in (failed[0].error or "")
    assert all(s.overall.units == report.units - 1 for s in report.systems)


def test_limit_and_rendering() -> None:
    report = evaluate(_benchmark(), "keyword", KeywordVerifier(), Split.DEV, limit=3)
    assert report.items == 3 and report.limit == 3
    assert any("dev split" in note for note in report.notes)
    markdown = render_markdown(report)
    assert "| keyword |" in markdown and "## By slice" in markdown and "toy data" in markdown
    assert "Positive class = Not Fully Supported" in markdown
    assert len(tables(report)) == 2


def test_a_limited_run_scores_both_classes_and_a_one_class_slice_warns() -> None:
    benchmark = _benchmark()
    report = evaluate(benchmark, "keyword", KeywordVerifier(), Split.DEV, limit=4)
    assert report.warnings == [] and {o.supported for o in report.outcomes} == {True, False}
    unsupported = [i for i in benchmark.items if "-true" not in i.id and "-unsure" not in i.id]
    planted_only = LoadedBenchmark(name="toy", items=unsupported)
    one_class = evaluate(planted_only, "keyword", KeywordVerifier(), Split.DEV, limit=2)
    assert one_class.warnings and "every unit of this slice is unsupported" in one_class.warnings[0]
    assert "> Warning: every unit" in render_markdown(one_class)


def test_items_repeating_a_claim_over_other_sources_are_judged_apart() -> None:
    """Items run at once, and a planted fact is the same claim (id and text) over a DAG per stage;
    the facts verifier keeps the terms of the nodes it read per claim, so without ids scoped to the
    item a year read in one item's source would clear the same claim in another's."""
    benchmark = _benchmark()
    doc = select(benchmark.items, Split.TEST)[0].document_id
    right = _item("right", doc, [("The mill opened in 1851.", True)])
    wrong = _item("wrong", doc, [("The mill opened in 1851.", False)])
    right.dag.nodes[0] = right.dag.nodes[0].model_copy(update={"text": "The mill opened in 1851."})
    benchmark.items += [right, wrong]
    report = evaluate(benchmark, "facts", FactsVerifier(), Split.TEST)
    verdicts = {o.item_id: o.verdict for o in report.outcomes if o.item_id in ("right", "wrong")}
    assert verdicts == {"right": Verdict.FULLY_SUPPORTED, "wrong": Verdict.NOT_FULLY_SUPPORTED}


def test_the_verifier_is_measured_with_its_capabilities() -> None:
    """The engine asks a verifier for its optional capabilities with `isinstance`; the counting
    wrapper must keep them, or `veritrail eval` measures another verifier than the audit runs. A
    claim whose source has no sentence close to it is Inconclusive for the facts verifier (it
    abstains), Not Fully Supported only without that capability."""
    benchmark = _benchmark()
    doc = select(benchmark.items, Split.TEST)[0].document_id
    benchmark.items.append(_item("interpretive", doc, [("It underscores the importance of memory.", True)]))
    report = evaluate(benchmark, "facts", FactsVerifier(), Split.TEST)
    outcome = next(o for o in report.outcomes if o.item_id == "interpretive")
    assert outcome.verdict is Verdict.INCONCLUSIVE
    assert report.cost.calls_by_kind["judge"] >= report.cost.claims
    assert isinstance(counting(FactsVerifier()), LocatesInventions)  # the stage that wrote the invention


@pytest.mark.parametrize("inner", [FactsVerifier(), LexicalVerifier()], ids=["facts", "lexical"])
def test_the_counting_wrapper_keeps_every_capability_of_the_verifier(inner: Verifier) -> None:
    """Every optional capability `verifiers.base` declares, not only those an earlier test named:
    one the wrapper dropped (the languages a verifier reads) let `veritrail eval wild` judge
    claims over sources in another language that an audit leaves Inconclusive."""
    capabilities = [
        kind
        for kind in vars(base).values()
        if isinstance(kind, type) and getattr(kind, "_is_runtime_protocol", False) and kind is not Verifier
    ]
    assert ReadsLanguages in capabilities
    wrapped = counting(inner)
    assert [kind for kind in capabilities if isinstance(inner, kind) and not isinstance(wrapped, kind)] == []
    assert wrapped.languages == inner.languages


class SampledKeywordVerifier(KeywordVerifier):
    """Confidence mode as the LLM verifier runs it: a claim saying "disputed" gets samples that
    agree on no sentence (each picked by one of three)."""

    async def select_evidence(self, claim: Claim, sentences: list[Sentence]) -> EvidenceSelection:
        if "disputed" in claim.text:
            return EvidenceSelection(agreement=Agreement(samples=3, needed=2, short=[s.id for s in sentences]))
        return await super().select_evidence(claim, sentences)


def test_exclude_no_agreement_leaves_those_units_out_of_auroc_only() -> None:
    """The paper gave claims whose samples agreed on no evidence no verdict, and left them out of
    AUROC for every method (appendix E.3); the option does the same and says how many."""
    benchmark = _benchmark()
    doc = select(benchmark.items, Split.TEST)[0].document_id
    # Supported, but scored 0 for want of agreement: it ranks below every unsupported unit.
    benchmark.items.append(_item("disputed", doc, [("The disputed mill opened in 1850.", True)]))
    kept = evaluate(benchmark, "sampled", SampledKeywordVerifier(), Split.TEST)
    left = evaluate(benchmark, "sampled", SampledKeywordVerifier(), Split.TEST, exclude_no_agreement=True)
    [disputed] = [o for o in kept.outcomes if o.item_id == "disputed"]
    assert disputed.no_agreement and disputed.verdict is Verdict.NOT_FULLY_SUPPORTED and disputed.score == 0.0
    assert kept.auroc_left_out == 0 and left.auroc_left_out == 1
    assert any("agreed on no evidence" in note for note in kept.notes)
    assert any("--exclude-no-agreement" in note and "the hard metrics keep them" in note for note in left.notes)
    for before, after in zip(kept.systems, left.systems, strict=True):
        assert before.overall.macro_f1 == after.overall.macro_f1  # the hard metrics keep the unit
    verifier_before, verifier_after = kept.systems[0].overall.auroc, left.systems[0].overall.auroc
    assert verifier_before is not None and verifier_after is not None and verifier_after > verifier_before


def test_three_labels_give_a_reviewers_figures_and_uncheckable_claims_stay_out_of_two_class_ones() -> None:
    """A flag is Not Fully Supported only; Inconclusive is its own share, and a flag on an
    uncheckable claim is counted apart, in neither precision nor recall."""
    items = []
    for d in range(4):
        doc = f"doc{d}"
        claims = [
            LabeledClaim(claim=Claim(id="c0", text="The mill opened in 1850."), supported=True),
            LabeledClaim(claim=Claim(id="c1", text="The fake mill opened."), supported=False),
            LabeledClaim(claim=Claim(id="c2", text="The unsure mill opened."), supported=False),
            LabeledClaim(claim=Claim(id="c3", text="The fake river."), supported=True),
            LabeledClaim(claim=Claim(id="c4", text="A fake remark."), uncheckable=True),
            LabeledClaim(claim=Claim(id="c5", text="An unsure remark."), uncheckable=True),
        ]
        item = _item(doc, doc, [("x", True)]).model_copy(update={"claims": claims})
        items.append(item)
    benchmark = LoadedBenchmark(name="toy", items=items, triage=True, warnings=["2 label(s) not scored"])
    report = evaluate(benchmark, "keyword", KeywordVerifier(), Split.TEST)
    documents = len(select(items, Split.TEST))
    verifier = report.systems[0]
    assert verifier.overall.units == 4 * documents
    figures = verifier.triage
    assert figures is not None and figures.claims == 6 * documents
    assert (figures.precision.count, figures.precision.total) == (documents, 2 * documents)
    assert (figures.recall.count, figures.recall.total) == (documents, 2 * documents)
    assert (figures.false_alarms.count, figures.inconclusive.count) == (documents, 2 * documents)
    assert (figures.uncheckable_flagged.count, figures.uncheckable_flagged.total) == (documents, 2 * documents)
    assert set(verifier.triage_by_subset) == {i.subset for i in select(items, Split.TEST)}
    assert report.triage and report.warnings[0] == "2 label(s) not scored"
    markdown = render_markdown(report)
    assert "## A reviewer's figures" in markdown and "| keyword | all |" in markdown
    assert tables(report)[0].title.endswith("a reviewer's figures")
