"""Local, DRIFT and basic search captured from real GraphRAG 3.3 calls, wired and audited, offline.

The tiny project is indexed by GraphRAG itself with claim extraction on (so local search shows
claims) and one DRIFT primer fold; the scripted model (tests/graphrag_mock.py) answers every
prompt. Expected node ids come from the parquet tables and the script, never from the adapter;
what the model was shown is read back from the prompts the script received.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from graphrag_project import index_project, output_table, tiny_project
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag.adapters.graphrag import DriftAction, DriftRun, QueryRun, add_query_run, read_index
from veritrail_graphrag.adapters.graphrag.answer import add_cited_answer
from veritrail_graphrag.adapters.graphrag.citations import sentence_citations
from veritrail_graphrag.adapters.graphrag.layout import veritrail_dir
from veritrail_graphrag.errors import AdapterError
from veritrail_graphrag.models import Verdict

pytest.importorskip("graphrag")
import graphrag_mock as script  # needs GraphRAG

QUESTION = "What is Mira Vell remembered for in Eldmouth?"
SETTINGS = {"extract_claims": {"enabled": True, "max_gleanings": 0}, "drift_search": {"primer_folds": 1}}
runner = CliRunner()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_project(tmp_path_factory.mktemp("search") / "tiny", SETTINGS)


def node_ids(root: Path) -> dict[str, list[str]]:
    """Each table's rows as node ids, by the manual's id scheme (docs/graphrag/index-audit.md)."""
    entities, relationships = output_table(root, "entities"), output_table(root, "relationships")
    return {
        "sources": [f"text_unit:{h}" for h in output_table(root, "text_units")["human_readable_id"]],
        "entities": [f"entity:{t}" for t in entities["title"]],
        "relationships": [
            f"relationship:{s}->{t}" for s, t in zip(relationships["source"], relationships["target"], strict=True)
        ],
        "claims": [f"covariate:{h}" for h in output_table(root, "covariates")["human_readable_id"]],
        "reports": [f"report:{c}" for c in output_table(root, "community_reports")["community"]],
    }


def prompts(kind: str) -> list[str]:
    return [prompt for k, prompt in script.ScriptedCompletion.calls if k == kind]


def shown(dag: Any, node_id: str, prompt: str) -> bool:
    """Whether the prompt held the node's record: its text, or a report's title."""
    node = dag.node(node_id)
    return (node.metadata["title"] if node.kind == "community_report" else node.text.strip()) in prompt


async def search_with_recorder(root: Path, method: str) -> tuple[QueryRun, Any]:
    """The manual's Python path: `graphrag.api.<method>_search(..., callbacks=[QueryRecorder(...)])`."""
    import graphrag.api as api
    from graphrag.config.load_config import load_config

    from veritrail_graphrag.adapters.graphrag_capture import QueryRecorder

    names = {
        "local": ("entities", "communities", "community_reports", "text_units", "relationships", "covariates"),
        "drift": ("entities", "communities", "community_reports", "text_units", "relationships"),
        "basic": ("text_units",),
    }[method]
    tables = {name: output_table(root, name) for name in names}
    levels = {} if method == "basic" else {"community_level": 2}
    with contextlib.chdir(root):
        config = load_config(root_dir=root)
        recorder = QueryRecorder(QUESTION, method=method, config=config, **levels)  # type: ignore[arg-type]
        search = getattr(api, f"{method}_search")
        answer, _ = await search(
            config=config, **tables, **levels, response_type="Multiple Paragraphs", query=QUESTION, callbacks=[recorder]
        )
    return QueryRun.load(recorder.save(root, final_answer=answer)), recorder


# --- local search ---------------------------------------------------------------------------------


async def test_local_answer_is_fed_by_every_record_of_its_context_window(project: Path) -> None:
    script.ScriptedCompletion.calls.clear()
    run, _ = await search_with_recorder(project, "local")
    assert (run.method, run.version, run.final_answer) == ("local", 2, script.LOCAL_ANSWER)
    assert run.context is not None and set(run.context) == {"reports", "entities", "relationships", "claims", "sources"}
    dag = add_query_run(read_index(project), run)
    expected = node_ids(project)
    assert dag.terminal == "final_answer"
    assert sorted(dag.src("final_answer")) == sorted(n for ids in expected.values() for n in ids)
    [prompt] = prompts("local")
    assert all(shown(dag, n, prompt) for n in dag.src("final_answer"))
    # one stage above the highest input: the report (4); MIRA VELL's description was summarized (3)
    assert dag.stage("final_answer") == 5
    assert {n: dag.stage(n) for n in expected["entities"]} == {
        "entity:MIRA VELL": 3,
        "entity:ELDMOUTH TOWN COUNCIL": 2,
        "entity:ELDMOUTH LIGHTHOUSE": 2,
    }
    assert dag.metadata["context"]["records_wired"] == len(dag.src("final_answer"))


async def test_records_outside_the_window_are_no_inputs_and_a_changed_index_is_refused(project: Path) -> None:
    run, _ = await search_with_recorder(project, "local")
    assert run.context is not None
    context = {name: [dict(row) for row in rows] for name, rows in run.context.items()}
    for row in context["claims"]:
        row["in_context"] = False
    trimmed = run.model_copy(update={"context": context})
    dag = add_query_run(read_index(project), trimmed)
    assert not any(n.startswith("covariate:") for n in dag.src("final_answer"))
    assert dag.metadata["context"]["records_outside_window"] == {"claims": 2}

    context["sources"][0]["text"] = "Some other chunk."
    with pytest.raises(AdapterError, match=r"sources record '0' does not match the index \(text_unit:0 reads"):
        add_query_run(read_index(project), run.model_copy(update={"context": context}))


def test_sources_are_rows_of_text_units_not_human_readable_ids(project: Path, tmp_path: Path) -> None:
    """After `graphrag update` (or in 1.x) `human_readable_id` is not the row; GraphRAG's query side
    shows the row. Here the ids are swapped, so row 1 (the lighthouse) is `human_readable_id` 0."""
    copy = tmp_path / "swapped"
    shutil.copytree(project, copy)
    path = copy / "output" / "text_units.parquet"
    units = pd.read_parquet(path)
    units["human_readable_id"] = units["human_readable_id"].to_numpy()[::-1]
    units.to_parquet(path)
    lighthouse = "text_unit:0"
    index = read_index(copy)
    assert "schooner Gull" in index.node(lighthouse).text and index.node(lighthouse).metadata["row"] == 1

    from veritrail_graphrag.adapters.graphrag_capture import capture_search

    run = asyncio.run(capture_search(copy, QUESTION, method="local"))
    dag = add_query_run(index, run)
    rescue = next(c for c in sentence_citations(dag, ["final_answer"])["final_answer"] if "sources:1" in c.cited)
    assert lighthouse in rescue.nodes

    answer = "She rescued the six sailors of the schooner Gull in 1887 [Data: Sources (1)]."
    assert add_cited_answer(index, answer, method="local").src("final_answer") == [lighthouse]


# --- basic search ---------------------------------------------------------------------------------


async def test_basic_answer_is_fed_by_its_text_units(project: Path) -> None:
    script.ScriptedCompletion.calls.clear()
    run, _ = await search_with_recorder(project, "basic")
    assert run.method == "basic" and run.community_level is None and set(run.context or {}) == {"sources"}
    dag = add_query_run(read_index(project), run)
    assert sorted(dag.src("final_answer")) == sorted(node_ids(project)["sources"])
    assert dag.stage("final_answer") == 2 and sorted(dag.stages()) == [1, 2]
    [prompt] = prompts("basic")
    assert all(shown(dag, n, prompt) for n in dag.src("final_answer"))


# --- DRIFT search ---------------------------------------------------------------------------------


async def test_drift_follow_up_answers_are_intermediate_nodes(project: Path) -> None:
    script.ScriptedCompletion.calls.clear()
    run, recorder = await search_with_recorder(project, "drift")
    assert len(recorder.contexts) == len(script.DRIFT_FOLLOW_UPS)  # every on_context call, not the last
    drift = run.drift
    assert drift is not None and run.final_answer == script.DRIFT_ANSWER
    reports = node_ids(project)["reports"]
    assert [f"report:{c}" for c in drift.primer_report_ids or []] == reports
    dag = add_query_run(read_index(project), run)

    primer = dag.node("drift_primer")
    assert (primer.stage, primer.text, sorted(dag.src(primer.id))) == (
        5,
        script.DRIFT_PRIMER["intermediate_answer"],
        sorted(reports),
    )
    answers = {n.metadata["query"]: n for n in dag if n.kind == "drift_answer"}
    assert {q: n.text for q, n in answers.items()} == {q: a["response"] for q, a in script.DRIFT_FOLLOW_UPS.items()}
    queries = {n.text: n.id for n in dag if n.kind == "drift_query"}
    first, second = script.DRIFT_PRIMER["follow_up_queries"]
    [deeper] = script.DRIFT_FOLLOW_UPS[first]["follow_up_queries"]
    for query, node in answers.items():
        [prompt] = [p for p in prompts("drift_local") if query in p]
        context = [n for n in dag.src(node.id) if n != queries[query]]
        assert queries[query] in dag.src(node.id) and context and all(shown(dag, n, prompt) for n in context)
        assert dag.outputs(node.id) == ["final_answer"]
    # a query sits at the stage of the answer that proposed it, fed by that answer's inputs
    assert sorted(dag.src(queries[first])) == sorted(reports) and dag.stage(queries[first]) == 5
    assert queries[first] in dag.src(queries[deeper]) and dag.stage(queries[deeper]) == 6
    assert [answers[q].stage for q in (first, second, deeper)] == [6, 6, 7]
    assert sorted(dag.src("final_answer")) == sorted(["drift_primer", *(n.id for n in answers.values())])
    assert dag.stage("final_answer") == 8
    assert dag.metadata["drift"]["primer_reports"] == "recorded"


def test_follow_ups_proposing_each_other_are_wired_from_the_first_proposer(project: Path) -> None:
    records = {"sources": [{"id": "1", "text": output_table(project, "text_units")["text"][1]}]}
    actions = [
        DriftAction(id=0, query=QUESTION, answer="Mira Vell kept the lighthouse.", score=80),
        DriftAction(id=1, query="Who kept it?", answer="Mira Vell did.", parents=[0, 2], context=records),
        DriftAction(id=2, query="For how long?", answer="Twelve years.", parents=[1], context=records),
        DriftAction(id=3, query="Never asked?", parents=[2]),
    ]
    run = QueryRun(
        run_id="cycle",
        query=QUESTION,
        method="drift",
        drift=DriftRun(primer_report_ids=None, actions=actions),
        final_answer="Mira Vell kept the lighthouse for twelve years.",
    )
    dag = add_query_run(read_index(project), run)
    assert sorted(dag.src("drift_query:1")) == ["report:0"]  # proposed by the primer (and by action 2)
    assert "drift_query:1" in dag.src("drift_query:2")
    assert "drift_query:3" not in dag and dag.metadata["drift"]["follow_ups_unanswered"] == [3]
    assert dag.metadata["drift"]["primer_reports"].startswith("not recorded")


# --- the command line ------------------------------------------------------------------------------


def latest_run(root: Path) -> Path:
    folders = [p for p in (root / "veritrail" / "queries").iterdir() if (p / "query_run.json").is_file()]
    return max(folders, key=lambda p: QueryRun.load(p).created)


@pytest.mark.parametrize(
    ("method", "planted", "stage"),
    [("local", script.LOCAL_PLANTED, 5), ("basic", script.BASIC_PLANTED, 2), ("drift", script.DRIFT_PLANTED, 8)],
)
def test_query_command_captures_and_audits(project: Path, method: str, planted: str, stage: int) -> None:
    result = runner.invoke(cli.app, ["query", str(project), "--method", method, "--query", QUESTION])
    assert result.exit_code == 0, result.output
    folder = latest_run(project)
    assert QueryRun.load(folder).method == method
    report = json.loads((folder / "report.json").read_text())
    verdicts = {r["claim"]["text"]: (r["verdict"], r["error_stages"]) for r in report["results"]}
    verdict, stages = verdicts.pop(planted)
    # a plant with no name or number ("a golden lantern") is Inconclusive, with no stage to blame
    assert (verdict, stages) in ((Verdict.NOT_FULLY_SUPPORTED, [stage]), (Verdict.INCONCLUSIVE, []))
    assert verdicts and all(v == (Verdict.FULLY_SUPPORTED, []) for v in verdicts.values())


@pytest.mark.parametrize(("method", "extra"), [("basic", []), ("drift", ["--streaming"])])
def test_graphrag_cli_runs_unchanged_and_its_search_is_saved(project: Path, method: str, extra: list[str]) -> None:
    before = Path.cwd()
    args = ["graphrag", "query", QUESTION, "--root", str(project), "--method", method, *extra]
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    assert Path.cwd() == before
    answer = {"basic": script.BASIC_ANSWER, "drift": script.DRIFT_ANSWER}[method]
    assert answer in result.output  # printed by GraphRAG itself
    run = QueryRun.load(latest_run(project))
    assert (run.method, run.final_answer) == (method, answer)
    assert f"veritrail audit {project} --query-run {run.run_id}" in " ".join(result.output.split())


def unreachable_model(project: Path, root: Path) -> Path:
    """A copy of the indexed project whose completion model is a closed port of 127.0.0.1, tried
    twice (GraphRAG's least): every model call of a search fails, as with no network."""
    shutil.copytree(project, root, ignore=shutil.ignore_patterns("veritrail"))
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = yaml.safe_load((root / "settings.yaml").read_text())
    settings["completion_models"]["default_completion_model"] = {
        "model_provider": "openai",
        "model": "gpt-4o",
        "api_base": f"http://127.0.0.1:{port}/v1",
        "api_key": "not-a-real-key",
        "retry": {"type": "immediate", "max_retries": 2},
        "call_args": {"max_retries": 0},
    }
    (root / "settings.yaml").write_text(yaml.safe_dump(settings), encoding="utf-8")
    return root


def assert_failed_search(code: int, stderr: str, root: Path) -> None:
    """Exit 4, one line naming the search and the cause, and no run saved to become the latest."""
    assert code == 4, stderr
    assert "Traceback" not in stderr
    said = stderr.strip().splitlines()[-1]
    assert said.startswith("Error: ")
    assert "search got no answer from" in said and "Connect" in said and "no query run was saved" in said
    assert not (root / "veritrail").exists()


def test_a_search_whose_model_calls_fail_exits_4_and_saves_nothing(project: Path, tmp_path: Path) -> None:
    """GraphRAG's global search scores each failed map call 0 and answers "I am sorry...": the
    search is still a failure, not a run to audit."""
    root = unreachable_model(project, tmp_path / "offline")
    command = [sys.executable, "-m", "veritrail_graphrag", "query", str(root), "--query", QUESTION]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert_failed_search(done.returncode, done.stderr, root)


@pytest.mark.parametrize(
    "args",
    [
        ["query", "{root}", "--method", "local", "--query", QUESTION],  # GraphRAG raises the model's error
        ["graphrag", "query", QUESTION, "--root", "{root}", "--method", "global"],
        ["graphrag", "query", QUESTION, "--root", "{root}", "--method", "local"],
    ],
)
def test_either_command_fails_either_kind_of_search(project: Path, tmp_path: Path, args: list[str]) -> None:
    root = unreachable_model(project, tmp_path / "offline")
    result = runner.invoke(cli.app, [a.format(root=root) for a in args])
    assert_failed_search(result.exit_code, result.stderr, root)


def test_graphrag_cli_usage_errors_are_graphrags(project: Path) -> None:
    result = runner.invoke(cli.app, ["graphrag", "query", QUESTION, "--method", "sideways", "--root", str(project)])
    assert result.exit_code == 2 and "sideways" in result.output


def test_answer_file_is_traced_through_what_it_cites(project: Path, tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(script.LOCAL_ANSWER, encoding="utf-8")
    dag = add_cited_answer(read_index(project), script.LOCAL_ANSWER, method="local")
    ids = node_ids(project)
    cited = [ids["entities"][0], ids["relationships"][1], ids["sources"][1], ids["claims"][1], *ids["reports"]]
    assert sorted(dag.src("final_answer")) == sorted([*cited, ids["sources"][0]])
    assert dag.stage("final_answer") == 5

    result = runner.invoke(cli.app, ["audit", str(project), "--answer", str(answer), "--method", "local"])
    assert result.exit_code == 0, result.output
    assert "could not be recovered" in " ".join(result.output.split())
    [folder] = (project / "veritrail" / "answers").glob("answer-*")
    report = json.loads((folder / "report.json").read_text())
    assert any("could not be recovered" in note for note in report["dag_metadata"]["notes"])
    assert "could not be recovered" in (folder / "report.md").read_text()
    planted = next(r for r in report["results"] if r["claim"]["text"] == script.LOCAL_PLANTED)
    assert planted["verdict"] == Verdict.NOT_FULLY_SUPPORTED


def test_method_goes_with_answer_and_map_answers_with_global(project: Path, tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(script.LOCAL_ANSWER, encoding="utf-8")
    result = runner.invoke(cli.app, ["audit", str(project), "--method", "local"])
    assert result.exit_code == 2 and "--method goes with --answer" in result.output
    args = ["audit", str(project), "--answer", str(answer), "--method", "local", "--map-answers", str(tmp_path)]
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 2 and "map answers belong to global search" in result.output


# --- graphrag update: the index before and after ------------------------------------------------


def test_update_folders_are_indexes_with_their_own_audits(project: Path, tmp_path: Path) -> None:
    root = tmp_path / "updated"
    shutil.copytree(project, root, ignore=shutil.ignore_patterns("veritrail"))
    before = read_index(root)
    asked_before = asyncio.run(_capture(root, "basic"))
    name, text = script.ADDED_DOCUMENT
    (root / "input" / name).write_text(text, encoding="utf-8")
    index_project(root, update=True)

    [stamp] = (root / "update_output").iterdir()
    previous, delta = stamp / "previous", stamp / "delta"
    assert sorted(n.id for n in read_index(previous)) == sorted(n.id for n in before)
    assert [n.text for n in read_index(delta) if n.kind == "text_unit"] == [text]
    units_before = {n.text for n in before if n.kind == "text_unit"}
    assert {n.text for n in read_index(root) if n.kind == "text_unit"} == units_before | {text}
    assert veritrail_dir(previous) == previous / "veritrail"

    result = runner.invoke(cli.app, ["audit-index", str(previous)])
    assert result.exit_code == 0, result.output
    assert (previous / "veritrail" / "index-audit" / "report.json").is_file()
    assert not (root / "veritrail" / "index-audit").exists()
    result = runner.invoke(cli.app, ["audit", str(previous), "--query-run", asked_before.run_id])
    assert result.exit_code == 0, result.output
    assert (previous / "veritrail" / "queries" / asked_before.run_id / "report.json").is_file()
    result = runner.invoke(cli.app, ["audit", str(stamp)])
    assert result.exit_code == 2 and "give its previous/" in result.output


async def _capture(root: Path, method: str) -> QueryRun:
    from veritrail_graphrag.adapters.graphrag_capture import capture_search

    return await capture_search(root, QUESTION, method=method)  # type: ignore[arg-type]
