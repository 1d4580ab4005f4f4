"""A saved search run: its JSON form (versions 1 and 2), and the stages a global run adds to an index DAG."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest
from samples import SHARED, needs_shared, require_shared

from veritrail_graphrag.adapters.graphrag import (
    DriftAction,
    DriftRun,
    MapAnswer,
    MapBatch,
    QueryRun,
    add_query_run,
    cited_reports,
    read_index,
    settings_fingerprint,
)
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.errors import AdapterError

ROOT = Path(__file__).resolve().parents[2]
VERBS = SHARED / "fixtures" / "graphrag-verbs-data"
SAMPLE = ROOT / "sample_runs" / "graphrag-christmas-carol"
SAMPLE_RUN = SAMPLE / "output" / "veritrail" / "queries" / "handwritten-1"
needs_fixtures = needs_shared(VERBS)

PLANTED_BEFORE = (
    "His transformation leads to improved treatment and support for Bob Cratchit and his family, directly "
    "impacting Tiny Tim's survival and the family's well-being."
)
PLANTED_AFTER = (
    "His transformation leads to improved treatment and support for Bob Cratchit and his family, and he pays a "
    "London surgeon to operate on Tiny Tim, directly impacting Tiny Tim's survival and the family's well-being."
)


def make_run(**changes: object) -> QueryRun:
    fields: dict[str, object] = {
        "run_id": "t1",
        "query": "Who visits Scrooge?",
        "community_level": 1,
        "created": datetime(2026, 1, 9, tzinfo=UTC),
        "batches": [
            MapBatch(
                index=0,
                report_ids=[48, 49],
                answers=[
                    MapAnswer(answer="Marley's ghost visits Scrooge [Data: Reports (48, 49)].", score=90),
                    MapAnswer(answer="Three spirits follow [Data: Reports (48)].", score=70),
                ],
            ),
            MapBatch(index=1, report_ids=[55], answers=[MapAnswer(answer="Spirits guide him.", score=40)]),
            MapBatch(index=2, report_ids=[40, 41], answers=[MapAnswer(answer="Nothing relevant here.", score=0)]),
        ],
        "final_answer": "Marley's ghost and three spirits visit Scrooge [Data: Reports (48, 55, +more)].",
    }
    fields.update(changes)
    return QueryRun.model_validate(fields)


@pytest.fixture(scope="module")
def index() -> DAG:
    require_shared(VERBS)
    return read_index(VERBS)


# --- the JSON form --------------------------------------------------------------------------------


def test_round_trip(tmp_path: Path) -> None:
    run = make_run()
    path = run.save(tmp_path / "queries" / "t1")
    assert path == tmp_path / "queries" / "t1" / "query_run.json"
    assert json.loads(path.read_text(encoding="utf-8"))["format"] == "veritrail-graphrag-query-run"
    assert QueryRun.load(path.parent) == run
    assert QueryRun.load(path) == run


def test_community_numbers_written_as_strings_are_accepted() -> None:
    batch = MapBatch.model_validate({"index": 0, "report_ids": ["10", 3], "answers": []})
    assert batch.report_ids == [10, 3]


def test_load_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(AdapterError, match=r"query_run\.json: no such file"):
        QueryRun.load(tmp_path)
    path = tmp_path / "query_run.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(AdapterError, match=r"query_run\.json: invalid JSON at line 1"):
        QueryRun.load(path)
    path.write_text(json.dumps({"format": "something-else"}), encoding="utf-8")
    with pytest.raises(AdapterError, match="is not 'veritrail-graphrag-query-run'"):
        QueryRun.load(path)
    data = json.loads(make_run().model_dump_json())
    data["batches"][0]["answers"][0]["answer"] = "  "
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(AdapterError, match=r"query_run.json: batches\.0\.answers\.0\.answer: .*must contain text"):
        QueryRun.load(path)


def test_batches_need_distinct_indexes() -> None:
    batch = MapBatch(index=0, report_ids=[1], answers=[MapAnswer(answer="a", score=1)])
    with pytest.raises(ValueError, match="batch index used more than once"):
        make_run(batches=[batch, batch])


def test_cited_reports() -> None:
    assert cited_reports("x [Data: Reports (2, 7, 34, +more)] y [Data: Entities (1); Reports (7, 9)]") == [2, 7, 34, 9]
    assert cited_reports("no citation") == []


def test_settings_fingerprint(tmp_path: Path) -> None:
    assert settings_fingerprint(tmp_path) is None
    (tmp_path / "settings.yaml").write_text("models: {}\n", encoding="utf-8")
    assert settings_fingerprint(tmp_path) == settings_fingerprint(tmp_path)
    assert settings_fingerprint(tmp_path).startswith("sha256:")


# --- stages 5 and 6 -------------------------------------------------------------------------------


def test_map_answers_and_final_answer_are_wired(index: DAG) -> None:
    dag = add_query_run(index, make_run())
    assert dag.terminal == "final_answer"
    assert dag.metadata["question"] == "Who visits Scrooge?"
    assert sorted(dag.src("final_answer")) == ["map_answer:0.0", "map_answer:0.1", "map_answer:1.0"]
    assert sorted(dag.src("map_answer:0.1")) == ["report:48", "report:49"]
    assert dag.src("map_answer:1.0") == ["report:55"]
    answer = dag.node("map_answer:0.0")
    assert (answer.stage, answer.kind, answer.metadata["score"]) == (5, "map_answer", 90)
    assert answer.metadata["cited_reports"] == [48, 49]
    final = dag.node("final_answer")
    assert (final.stage, final.kind) == (6, "final_answer")
    assert final.metadata["cited_reports"] == [48, 55]


def test_a_map_answer_scored_zero_is_not_an_input_of_the_final_answer(index: DAG) -> None:
    pruned = add_query_run(index, make_run())
    assert "map_answer:2.0" not in pruned
    assert "report:40" not in pruned and "report:41" not in pruned
    assert pruned.metadata["map_answers_unused"] == ["map_answer:2.0"]

    full = add_query_run(index, make_run(), keep_unused=True)
    assert "map_answer:2.0" in full and "map_answer:2.0" not in full.src("final_answer")
    assert sorted(full.src("map_answer:2.0")) == ["report:40", "report:41"]
    assert len(full) == len(index) + 5


def test_the_pruned_dag_is_exactly_what_the_final_answer_descends_from(index: DAG) -> None:
    dag = add_query_run(index, make_run())
    assert set(dag.sinks) == {"final_answer"}
    assert dag.roots == {node.id for node in dag if node.kind == "text_unit"}
    kept_reports = {node.id for node in dag if node.kind == "community_report"}
    assert {"report:48", "report:49", "report:55"} <= kept_reports
    for node in dag:
        if node.id != "final_answer":
            assert dag.outputs(node.id)
    assert dag.metadata["index_nodes_dropped"] == len(index) - (len(dag) - 4)
    assert dag.metadata["stages"] == {str(k): v for k, v in dag.stages().items()}


def test_a_report_missing_from_the_index_is_named(index: DAG) -> None:
    run = make_run(batches=[MapBatch(index=4, report_ids=[48, 999], answers=[MapAnswer(answer="a", score=5)])])
    with pytest.raises(AdapterError, match=r"batch 4: report\(s\) not in the index: 'report:999'"):
        add_query_run(index, run)


def test_nothing_for_reduce_or_a_second_run_is_refused(index: DAG) -> None:
    run = make_run(batches=[MapBatch(index=0, report_ids=[48], answers=[MapAnswer(answer="a", score=0)])])
    with pytest.raises(AdapterError, match="no map answer has a score above 0"):
        add_query_run(index, run)
    once = add_query_run(index, make_run())
    with pytest.raises(AdapterError, match="already holds a final answer"):
        add_query_run(once, make_run())


# --- the sample run -------------------------------------------------------------------------------


def test_sample_run_loads_and_carries_both_planted_errors() -> None:
    dag = add_query_run(read_index(SAMPLE), QueryRun.load(SAMPLE_RUN))
    assert dag.terminal == "final_answer"
    assert dag.metadata["question"] == "What happens to Scrooge and who helps change him?"
    report = dag.node("report:45").text
    assert PLANTED_AFTER in report and PLANTED_BEFORE not in report
    surgeon = [n.id for n in dag if "London surgeon" in n.text]
    assert sorted(surgeon) == ["final_answer", "map_answer:1.0", "report:45"]
    orphanage = [n.id for n in dag if "orphanage" in n.text]
    assert orphanage == ["final_answer"]
    assert dag.metadata["map_answers_unused"] == ["map_answer:3.0"]


@needs_fixtures
def test_sample_differs_from_the_fixture_only_by_the_planted_sentence() -> None:
    for name in ("text_units", "entities", "relationships", "communities", "covariates", "documents"):
        original = pd.read_parquet(VERBS / f"{name}.parquet")
        pd.testing.assert_frame_equal(pd.read_parquet(SAMPLE / "output" / f"{name}.parquet"), original)
    original = pd.read_parquet(VERBS / "community_reports.parquet")
    sample = pd.read_parquet(SAMPLE / "output" / "community_reports.parquet")
    changed = original["full_content"] != sample["full_content"]
    assert original.loc[changed, "community"].tolist() == [45]
    before = original.loc[changed, "full_content"].iloc[0]
    assert sample.loc[changed, "full_content"].iloc[0] == before.replace(PLANTED_BEFORE, PLANTED_AFTER)
    unchanged = [c for c in original.columns if c not in ("full_content", "full_content_json", "findings")]
    pd.testing.assert_frame_equal(sample[unchanged], original[unchanged])


def test_answers_reduce_left_out_are_not_inputs_of_the_final_answer() -> None:
    index = read_index(SAMPLE)
    run = QueryRun.load(SAMPLE / "output" / "veritrail" / "queries" / "handwritten-1")
    left_out = run.model_copy(update={"not_in_reduce": ["map_answer:0.1"]})
    dag = add_query_run(index, left_out, keep_unused=True)
    assert "map_answer:0.1" not in dag.src("final_answer")
    assert "map_answer:0.1" in dag.metadata["map_answers_unused"]


# --- format version 2: every search method ---------------------------------------------------------


def test_version_1_files_still_load() -> None:
    data = json.loads((SAMPLE_RUN / "query_run.json").read_text(encoding="utf-8"))
    assert data["version"] == 1 and "context" not in data and "drift" not in data
    run = QueryRun.load(SAMPLE_RUN)
    assert (run.version, run.method, len(run.batches)) == (1, "global", 4)


def test_newer_versions_are_refused_by_name(tmp_path: Path) -> None:
    data = json.loads(make_run().model_dump_json())
    data["version"] = 3
    (tmp_path / "query_run.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(AdapterError, match="format version 3 was written by a newer veritrail"):
        QueryRun.load(tmp_path)


def local_run(**changes: object) -> QueryRun:
    fields: dict[str, object] = {
        "run_id": "l1",
        "query": "Who visits Scrooge?",
        "method": "local",
        "context": {"sources": [{"id": "0", "text": "Marley was dead."}], "entities": []},
        "final_answer": "Marley was dead [Data: Sources (0)].",
    }
    fields.update(changes)
    return QueryRun.model_validate(fields)


def test_each_method_carries_its_own_parts(tmp_path: Path) -> None:
    run = local_run()
    assert QueryRun.load(run.save(tmp_path)) == run and run.version == 2
    with pytest.raises(ValueError, match="a local search run needs its 'context'"):
        local_run(context=None)
    with pytest.raises(ValueError, match="a global search run has no context"):
        make_run(context={"sources": []})
    with pytest.raises(ValueError, match="a basic search run has no batches"):
        local_run(method="basic", batches=make_run().batches)
    with pytest.raises(ValueError, match="format version 1 holds global search runs only"):
        local_run(version=1)


def drift_actions(*actions: DriftAction) -> DriftRun:
    return DriftRun(primer_report_ids=[48], actions=list(actions))


def test_a_drift_run_has_one_primer_and_known_parents(tmp_path: Path) -> None:
    context = {"sources": [{"id": "0", "text": "Marley was dead."}]}
    primer = DriftAction(id=0, query="Who visits Scrooge?", answer="Ghosts do.", score=float("-inf"))
    follow_up = DriftAction(id=1, query="Which ghosts?", answer="Marley.", parents=[0], context=context)
    drift = drift_actions(primer, follow_up)
    assert (drift.primer, drift.follow_ups) == (primer, [follow_up])
    run = QueryRun(run_id="d1", query="Who visits Scrooge?", method="drift", drift=drift, final_answer="Marley.")
    assert QueryRun.load(run.save(tmp_path)).drift.primer.score is None  # -inf is no JSON number
    with pytest.raises(ValueError, match=r"expected one primer .* found actions \[0, 2\]"):
        drift_actions(primer, DriftAction(id=2, query="Another?", answer="Yes."))
    with pytest.raises(ValueError, match=r"parent action\(s\) not in the graph: \[7\]"):
        drift_actions(primer, follow_up.model_copy(update={"parents": [7]}))
    with pytest.raises(ValueError, match=r"follow-up action\(s\) \[1\] name no action that proposed them"):
        drift_actions(primer, follow_up.model_copy(update={"parents": []}))
    with pytest.raises(ValueError, match="action id used more than once"):
        drift_actions(primer, follow_up, follow_up)
