"""The benchmark loaders parse real records from shared/ (skipped when shared/ is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest
from samples import SAMPLES, SHARED, needs_shared

from veritrail_graphrag.evaluation.catalog import load_benchmark
from veritrail_graphrag.evaluation.errors import BenchmarkDataError
from veritrail_graphrag.evaluation.fables import SKIP_INAPPLICABLE, SKIP_NO_QUOTE, load_fables, quotes
from veritrail_graphrag.evaluation.planted import FINAL, load_planted
from veritrail_graphrag.evaluation.planted_facts import load_planted_facts
from veritrail_graphrag.evaluation.summedits import load_summedits

BENCHMARKS = SHARED / "benchmarks"
needs_benchmarks = needs_shared(BENCHMARKS)
PLANTED = load_planted_facts()
FACTS, UNCHANGED = PLANTED.facts, PLANTED.unchanged


@needs_benchmarks
def test_summedits_items_are_one_step_dags_with_sentence_claims() -> None:
    loaded = load_summedits(BENCHMARKS)
    assert len(loaded.items) == 1564 and loaded.skipped == {}
    first = next(i for i in loaded.items if i.id == "sales_call_0_og")
    dag = first.build_dag()
    assert dag.roots == {"document"} and dag.terminal == "summary" == first.terminal
    assert [dag.stage("document"), dag.stage("summary")] == [1, 2]
    assert first.supported is True and first.subset == "sales_call"
    assert len(first.claims) == 2 and all(c.supported is None for c in first.claims)
    assert first.claims[0].claim.text.startswith("The sales agent from BestInsuranceXYZ called Mr. Johnson")
    assert [u.claim_ids for u in first.units()] == [[c.claim.id for c in first.claims]]
    edited = next(i for i in loaded.items if i.id == "sales_call_0_0")
    assert edited.supported is False and "entity_modification" in edited.metadata["edit_types"]
    assert edited.document_id == first.document_id


@needs_benchmarks
def test_fables_items_have_quotes_as_roots_and_count_what_was_skipped() -> None:
    loaded = load_fables(BENCHMARKS)
    assert loaded.skipped == {SKIP_INAPPLICABLE: 70, SKIP_NO_QUOTE: 50}
    assert len(loaded.items) == 3158 - 70 - 50
    first = loaded.items[0]
    assert first.id == "A Haunting on the Hill::CLAUDE-3-OPUS::0"
    assert first.document_id == "fables:A Haunting on the Hill" and first.subset == "CLAUDE-3-OPUS"
    dag = first.build_dag()
    assert dag.roots == {"quote-1"} and dag.terminal == "claim"
    assert "unsuccessful playwright" in dag.node("quote-1").text
    assert first.claims[0].supported is True
    partial = next(i for i in loaded.items if i.metadata["label"] == "PartialSupport")
    assert partial.claims[0].supported is False
    assert any("oracle" in note.lower() for note in loaded.notes)


def test_fables_quote_filter() -> None:
    record = {"evidence": ["N/A", "None.", " ", "cant verify or refute", "-", "“Iris. Iris Winnow.”"]}
    assert quotes(record) == ["“Iris. Iris Winnow.”"]


@needs_benchmarks
def test_planted_cases_change_one_fact_from_one_stage_down() -> None:
    loaded = load_planted(BENCHMARKS)
    planted = [i for i in loaded.items if i.subset != "unchanged"]
    unchanged = [i for i in loaded.items if i.subset == "unchanged"]
    assert len(planted) == 4 * len(FACTS) and len(unchanged) == 6
    assert sum(len(i.claims) for i in unchanged) == len(FACTS) + len(UNCHANGED)
    assert all(c.supported for i in unchanged for c in i.claims)

    by_id = {i.id: i for i in loaded.items}
    fact = next(f for f in FACTS if f.id == "spirit-brothers")
    changed = fact.answer.replace(fact.old, fact.new)
    texts = {stage: {n.id: n.text for n in by_id[f"planted:{fact.id}@{stage}"].dag.nodes} for stage in (2, 4, 5, 6)}
    description = fact.descriptions[0].node
    assert "three hundred" in texts[2][description] and "eighteen hundred" in texts[4][description]
    assert "three hundred" in texts[4]["report:28"] and "eighteen hundred" in texts[5]["report:28"]
    assert changed in texts[5]["map_answer:1"] and fact.answer in texts[6]["map_answer:1"]
    assert all(changed in texts[stage][FINAL] for stage in (2, 4, 5, 6))

    case = by_id[f"planted:{fact.id}@4"]
    assert case.claims[0].supported is False and case.claims[0].planted_stage == 4
    assert case.claims[0].claim.text == changed and case.subset == "number"
    dag = case.build_dag()
    assert dag.terminal == FINAL and dag.stage(FINAL) == 6 and set(dag.stages()) == {1, 2, 3, 4, 5, 6}
    assert {i.claims[0].planted_stage for i in planted} == {2, 3, 4, 5, 6}


def test_missing_data_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(BenchmarkDataError, match=r"summedits_sales_call\.json"):
        load_summedits(tmp_path)
    with pytest.raises(BenchmarkDataError, match=r"claims\.jsonl"):
        load_fables(tmp_path)
    with pytest.raises(BenchmarkDataError, match="unknown benchmark 'nope'"):
        load_benchmark("nope", tmp_path)


def test_malformed_records_name_the_record(tmp_path: Path) -> None:
    folder = tmp_path / "summedits-subset"
    folder.mkdir()
    (folder / "summedits_sales_call.json").write_text('[{"id": "x", "summary": "A b c d."}]')
    with pytest.raises(BenchmarkDataError, match="record #0 lacks field 'doc'"):
        load_summedits(tmp_path)


def test_planted_reads_the_index_given_as_data_and_names_where_it_looked(tmp_path: Path) -> None:
    loaded = load_planted(SAMPLES / "graphrag-christmas-carol")
    assert "sample_runs/graphrag-christmas-carol" in loaded.notes[0]
    assert len(loaded.items) == 4 * len(FACTS) + 6
    with pytest.raises(BenchmarkDataError, match=r"no GraphRAG index .*graphrag-verbs-data.*pass --data"):
        load_planted(tmp_path)


def test_planted_facts_are_validated_data(tmp_path: Path) -> None:
    path = tmp_path / "facts.yaml"
    path.write_text("map_groups: [[1]]\nfacts: []\nunchanged: []\n")
    with pytest.raises(BenchmarkDataError, match=r"facts\.yaml: facts: List should have at least 1 item"):
        load_planted_facts(path)
    path.write_text(
        "map_groups: [[1]]\nfacts:\n- {id: a, community: 2, report_sentence: x, answer: x, kind: name, old: x, "
        "new: y, descriptions: [{node: n, old: x, new: y}]}\nunchanged: []\n"
    )
    with pytest.raises(BenchmarkDataError, match="in no map group: a"):
        load_planted_facts(path)
