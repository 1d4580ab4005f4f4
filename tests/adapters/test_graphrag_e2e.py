"""GraphRAG global search captured end to end, offline: index, query, DAG, audit.

The tiny project (tests/data/graphrag_tiny) is indexed by GraphRAG 3.3 itself with a scripted
completion model (tests/graphrag_mock.py) and GraphRAG's mock embeddings, then asked one global
query through `capture_search` and once more through `graphrag.api.global_search` with a
`QueryRecorder`. Expected values come from the script and the parquet tables, never from the
adapter. The pure parts (context tables, the reduce budget, the missing-extra error) are tested
without GraphRAG, so they run everywhere; the rest is skipped where GraphRAG is not installed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from graphrag_project import output_table, tiny_project

from veritrail_graphrag.adapters.graphrag import MapAnswer, MapBatch, QueryRun, add_query_run, read_index
from veritrail_graphrag.adapters.graphrag_capture import GraphRAGMissingError, run_dir
from veritrail_graphrag.adapters.graphrag_capture.batches import batch_report_ids, context_report_ids
from veritrail_graphrag.adapters.graphrag_capture.reduce_budget import points_over_budget
from veritrail_graphrag.audit.claims import sentence_claims
from veritrail_graphrag.audit.run import run_audit
from veritrail_graphrag.engine.traversal import VeriTrail
from veritrail_graphrag.errors import AdapterError
from veritrail_graphrag.models import Verdict
from veritrail_graphrag.verifiers.lexical import LexicalVerifier

QUESTION = "What is Mira Vell remembered for in Eldmouth?"
PLANTED = "She later received a royal medal for bravery from the queen."


# --- without GraphRAG: the map context tables --------------------------------------------------


def context_table(rows: list[dict[str, Any]]) -> str:
    """A batch context written the way GraphRAG 3.3's `build_community_context` writes one."""
    return pd.DataFrame(rows).to_csv(index=False, sep="|")


def report_row(community: int, content: str) -> dict[str, Any]:
    return {"id": str(community), "title": f"Report {community}", "occurrence weight": 1.0, "content": content}


def test_context_ids_survive_delimiters_and_newlines_in_report_text() -> None:
    context = context_table(
        [report_row(7, '# Title\n\nA | B, and "quoted"\nlines'), report_row(12, "plain"), report_row(3, "x|y")]
    )
    assert context_report_ids(context, batch=0) == [7, 12, 3]
    assert context_report_ids("-----Reports-----\n" + context, batch=0) == [7, 12, 3]


def test_batches_are_checked_against_the_context_records() -> None:
    first, second = context_table([report_row(1, "a"), report_row(2, "b")]), context_table([report_row(5, "c")])
    records = pd.DataFrame({"id": ["1", "2", "5"]})
    assert batch_report_ids([first, second], records) == [[1, 2], [5]]
    with pytest.raises(AdapterError, match="context records name"):
        batch_report_ids([first, second], pd.DataFrame({"id": ["1", "5", "2"]}))


@pytest.mark.parametrize(
    ("context", "problem"),
    [("a|b\n1|2\n", "no 'id' column"), ("id|title\nseven|x\n", "not a community number"), ("id|title\n", "no report")],
)
def test_unreadable_contexts_name_the_batch(context: str, problem: str) -> None:
    with pytest.raises(AdapterError, match=f"map batch 4: .*{problem}"):
        context_report_ids(context, batch=4)


def test_reduce_budget_cuts_the_lowest_scores_first() -> None:
    batches = [
        MapBatch(
            index=0, report_ids=[1], answers=[MapAnswer(answer="a" * 10, score=50), MapAnswer(answer="b", score=0)]
        ),
        MapBatch(index=1, report_ids=[2], answers=[MapAnswer(answer="c" * 10, score=90)]),
        MapBatch(index=2, report_ids=[3], answers=[MapAnswer(answer="d" * 10, score=20)]),
    ]
    one_point = len("----Analyst 1----\nImportance Score: 50\n" + "a" * 10)
    assert points_over_budget(batches, len, 10_000) == []
    assert points_over_budget(batches, len, 2 * one_point) == ["map_answer:2.0"]
    assert points_over_budget(batches, len, one_point - 1) == ["map_answer:1.0", "map_answer:0.0", "map_answer:2.0"]


def test_missing_graphrag_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.startswith("graphrag.")]:  # loaded by earlier tests
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "graphrag", None)
    monkeypatch.delitem(sys.modules, "veritrail_graphrag.adapters.graphrag_capture.recorder", raising=False)
    import veritrail_graphrag.adapters.graphrag_capture as capture

    with pytest.raises(GraphRAGMissingError, match=r"veritrail-graphrag\[graphrag\]") as caught:
        capture.QueryRecorder  # noqa: B018
    assert isinstance(caught.value, ImportError)


def test_core_package_never_imports_graphrag() -> None:
    code = (
        "import sys, veritrail_graphrag.cli.audits, veritrail_graphrag.adapters.graphrag_capture; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'graphrag', 'graphrag_llm', 'litellm'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# --- with GraphRAG: index, query, capture, DAG, audit -----------------------------------------


@dataclass(frozen=True)
class Project:
    root: Path
    script: Any


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    """The tiny corpus indexed by GraphRAG's own pipeline (the standard method, as `graphrag index`)."""
    pytest.importorskip("graphrag")
    import graphrag_mock

    yield Project(root=tiny_project(tmp_path_factory.mktemp("graphrag") / "tiny"), script=graphrag_mock)


def table(project: Project, name: str) -> pd.DataFrame:
    return output_table(project.root, name)


def test_index_dag_has_stages_one_to_four(project: Project) -> None:
    dag = read_index(project.root)
    stages = {stage: sorted(n.id for n in dag if n.stage == stage) for stage in (1, 2, 3, 4)}
    units = table(project, "text_units")
    assert stages[1] == sorted(f"text_unit:{h}" for h in units["human_readable_id"])
    assert stages[3] == ["entity:MIRA VELL"]
    assert stages[4] == [f"report:{c}" for c in table(project, "community_reports")["community"]]
    # stage 2: the two single-chunk entities, both relationships, and MIRA VELL as each chunk told it
    assert Counter(dag.node(n).kind for n in stages[2]) == {"entity": 4, "relationship": 2}
    assert sorted(dag.src("entity:MIRA VELL")) == sorted(f"entity:MIRA VELL@{unit}" for unit in stages[1])
    assert len(table(project, "entities")) == 3 and len(table(project, "relationships")) == 2
    assert set(dag.src(stages[4][0])) == {n for n in stages[2] + stages[3] if "@" not in n}


@pytest.fixture(scope="module")
def captured(project: Project) -> tuple[QueryRun, str]:
    from veritrail_graphrag.adapters.graphrag_capture import capture_search

    project.script.ScriptedCompletion.calls.clear()
    streamed: list[str] = []
    before = Path.cwd()
    run = asyncio.run(capture_search(project.root, QUESTION, on_token=streamed.append))
    assert Path.cwd() == before
    reduce_prompts = [prompt for kind, prompt in project.script.ScriptedCompletion.calls if kind == "reduce"]
    assert len(reduce_prompts) == 1
    assert "".join(streamed) == run.final_answer == project.script.REDUCE_ANSWER
    return run, reduce_prompts[0]


def test_capture_saves_the_run_next_to_the_index(project: Project, captured: tuple[QueryRun, str]) -> None:
    run, _ = captured
    assert (run_dir(project.root, run.run_id) / "query_run.json").is_file()
    assert QueryRun.load(run_dir(project.root, run.run_id)) == run
    assert run.query == QUESTION and run.community_level == 2 and run.settings_fingerprint.startswith("sha256:")
    reports = table(project, "community_reports")
    assert [batch.report_ids for batch in run.batches] == [reports["community"].tolist()]
    points = project.script.MAP_POINTS
    assert [(a.answer, a.score) for a in run.batches[0].answers] == [(p["description"], p["score"]) for p in points]


def test_dag_wires_map_answers_to_their_reports_and_reduce_to_scored_answers(
    project: Project, captured: tuple[QueryRun, str]
) -> None:
    run, reduce_prompt = captured
    dag = add_query_run(read_index(project.root), run)
    answers = [n for n in dag if n.stage == 5]
    assert answers and all(n.kind == "map_answer" for n in answers)
    for node in answers:
        batch = run.batches[node.metadata["batch"]]
        assert sorted(dag.src(node.id)) == sorted(f"report:{c}" for c in batch.report_ids)
    assert dag.terminal == "final_answer" and dag.stage("final_answer") == 6
    scored = [a for b in run.batches for a in b.answers if a.score > 0]
    assert sorted(dag.node(n).text for n in dag.src("final_answer")) == sorted(a.answer for a in scored)
    shown_to_reduce = [a.answer for b in run.batches for a in b.answers if a.answer in reduce_prompt]
    assert shown_to_reduce == [a.answer for a in scored]


async def test_audit_gives_a_verdict_per_claim(
    project: Project, captured: tuple[QueryRun, str], tmp_path: Path
) -> None:
    run, _ = captured
    dag = add_query_run(read_index(project.root), run)
    claims = sentence_claims(dag, dag.terminal)
    report = await run_audit(
        VeriTrail(LexicalVerifier()),
        dag,
        claims,
        dag.terminal,
        source=str(run_dir(project.root, run.run_id)),
        verifier_name="lexical",
        report_path=tmp_path / "report.json",
    )
    verdicts = {r.claim.text: r for r in report.results}
    assert sorted(verdicts) == sorted(c.text for c in claims) and len(claims) == 3
    assert verdicts[PLANTED].verdict == Verdict.NOT_FULLY_SUPPORTED
    supported = [r for text, r in verdicts.items() if text != PLANTED]
    assert all(r.verdict == Verdict.FULLY_SUPPORTED for r in supported)
    assert all(any(n.startswith("text_unit:") for n in r.iterations[-1].nodes_with_evidence) for r in supported)


async def ask_with_recorder(project: Project, data_max_tokens: int | None = None) -> Path:
    """The manual's recorder example: GraphRAG's Python API with a `QueryRecorder` attached."""
    import graphrag.api as api
    from graphrag.config.load_config import load_config

    from veritrail_graphrag.adapters.graphrag_capture import QueryRecorder

    with contextlib.chdir(project.root):
        config = load_config(root_dir=project.root)
        if data_max_tokens is not None:
            config.global_search.data_max_tokens = data_max_tokens
        tables = {name: table(project, name) for name in ("entities", "communities", "community_reports")}
        recorder = QueryRecorder(QUESTION, community_level=2, config=config)
        response, _ = await api.global_search(
            config=config,
            **tables,
            community_level=2,
            dynamic_community_selection=False,
            response_type="Multiple Paragraphs",
            query=QUESTION,
            callbacks=[recorder],
        )
    return recorder.save(project.root, final_answer=response)


async def test_recorder_captures_the_python_api(project: Project, captured: tuple[QueryRun, str]) -> None:
    folder = await ask_with_recorder(project)
    saved = QueryRun.load(folder)
    assert folder == run_dir(project.root, saved.run_id)
    assert (saved.batches, saved.final_answer) == (captured[0].batches, captured[0].final_answer)
    assert "left out" not in saved.notes


async def test_points_reduce_had_no_tokens_for_are_named(project: Project) -> None:
    from graphrag.tokenizer.get_tokenizer import get_tokenizer
    from graphrag_llm.config import ModelConfig

    first, second = project.script.MAP_POINTS[:2]
    tokenizer = get_tokenizer(ModelConfig(type="veritrail_scripted", model_provider="openai", model="gpt-4o"))
    budget = tokenizer.num_tokens(f"----Analyst 1----\nImportance Score: {first['score']}\n{first['description']}")
    project.script.ScriptedCompletion.calls.clear()
    saved = QueryRun.load(await ask_with_recorder(project, data_max_tokens=budget))
    [reduce_prompt] = [prompt for kind, prompt in project.script.ScriptedCompletion.calls if kind == "reduce"]
    assert first["description"] in reduce_prompt and second["description"] not in reduce_prompt
    assert saved.not_in_reduce == ["map_answer:0.1"]
    assert "reduce left out 1 key point(s)" in saved.notes
    dag = add_query_run(read_index(project.root), saved)
    assert "map_answer:0.1" not in dag.src("final_answer")  # reduce never saw it, so it is no input
    assert "map_answer:0.0" in dag.src("final_answer")


def test_recorder_reads_graphrags_own_multi_batch_contexts(project: Project) -> None:
    from graphrag.data_model.community_report import CommunityReport
    from graphrag.query.context_builder.community_context import build_community_context
    from graphrag.query.structured_search.base import SearchResult

    from veritrail_graphrag.adapters.graphrag_capture import QueryRecorder
    from veritrail_graphrag.adapters.graphrag_capture.searches import global_search

    reports = [
        CommunityReport(
            id=f"r{c}",
            short_id=str(c),
            title=f"Harbor report {c}",
            community_id=str(c),
            full_content=f"# Harbor report {c}\n\nPier | lamp | reef, section {c}.\n" * 3,
            rank=float(c),
        )
        for c in (4, 9, 11, 17, 23)
    ]
    contexts, records = build_community_context(
        reports, use_community_summary=False, single_batch=False, max_context_tokens=120, include_community_rank=True
    )
    assert len(contexts) > 1
    recorder = QueryRecorder("q")
    recorder.on_map_response_start(contexts)
    recorder.on_map_response_end(
        [
            SearchResult(
                response=[{"answer": "", "score": 0}],
                context_data=c,
                context_text=c,
                completion_time=0,
                llm_calls=1,
                prompt_tokens=0,
                output_tokens=0,
            )
            for c in contexts
        ]
    )
    recorder.on_context(records)
    batches = global_search.batches(recorder)
    assert sorted(c for b in batches for c in b.report_ids) == [4, 9, 11, 17, 23]
    for batch, context in zip(batches, contexts, strict=True):
        assert all(f"Harbor report {c}" in context for c in batch.report_ids)
        assert batch.answers == []
    with pytest.raises(AdapterError, match="no final answer"):
        recorder.to_query_run()
    assert recorder.to_query_run(final_answer="I do not know.").batches == batches


def test_one_recorder_per_query(project: Project) -> None:
    from veritrail_graphrag.adapters.graphrag_capture import QueryRecorder

    recorder = QueryRecorder("q")
    with pytest.raises(AdapterError, match="heard no search"):
        recorder.to_query_run(final_answer="a")
    recorder.on_map_response_start([])
    recorder.on_map_response_start([])
    with pytest.raises(AdapterError, match="heard 2 searches"):
        recorder.to_query_run(final_answer="a")


def test_query_command_captures_and_audits(project: Project) -> None:
    from typer.testing import CliRunner

    import veritrail_graphrag.cli as cli

    result = CliRunner().invoke(cli.app, ["query", str(project.root), "--query", QUESTION])
    assert result.exit_code == 0, result.output
    assert project.script.REDUCE_ANSWER.split()[0] in result.output
    runs = sorted((project.root / "veritrail" / "queries").iterdir())
    latest = max(runs, key=lambda p: QueryRun.load(p).created)
    report = json.loads((latest / "report.json").read_text())
    planted = next(r for r in report["results"] if r["claim"]["text"] == PLANTED)
    # nothing read mentions a medal; with no name or number to look for, the facts verifier says
    # Inconclusive (a reviewer looks) rather than blaming a stage
    assert planted["verdict"] != Verdict.FULLY_SUPPORTED
    assert (latest / "report.md").is_file()


def test_query_command_refuses_unknown_methods(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    import veritrail_graphrag.cli as cli

    result = CliRunner().invoke(cli.app, ["query", str(tmp_path), "--method", "hybrid", "--query", "x"])
    assert result.exit_code == 2 and "unknown search method 'hybrid'" in result.output


async def test_a_search_that_cannot_be_read_is_kept_raw(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from veritrail_graphrag.adapters.graphrag_capture import capture_search
    from veritrail_graphrag.adapters.graphrag_capture.recorder import QueryRecorder
    from veritrail_graphrag.adapters.graphrag_capture.searches import SEARCHES, Recorded
    from veritrail_graphrag.errors import AdapterError

    def unreadable(recorder: QueryRecorder) -> Recorded:
        raise AdapterError("map context not understood")

    monkeypatch.setitem(SEARCHES, "global", dataclasses.replace(SEARCHES["global"], record=unreadable))
    with pytest.raises(AdapterError, match=r"raw_capture\.json") as info:
        await capture_search(project.root, QUESTION, run_id="unreadable")
    raw = json.loads((run_dir(project.root, "unreadable") / "raw_capture.json").read_text())
    assert raw["final_answer"] == project.script.REDUCE_ANSWER and raw["map_contexts"]
    assert "map context not understood" in str(info.value)
