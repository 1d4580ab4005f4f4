"""The audit inside GraphRAG's own pipeline, end to end with GraphRAG 3.3 and a scripted model.

`veritrail graphrag index` builds the tiny project (tests/data/graphrag_tiny) with the `standard`
and the `fast` method and audits it as the pipeline's last workflow; `veritrail graphrag update`
with one new document audits only the reports the update added and compares with the audit
before; a project audited with `veritrail audit-index` still updates with plain GraphRAG.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pandas as pd
import pytest
import yaml
from fake_openai import FakeOpenAI, Fault
from graphrag_project import TINY, index_project, warm_up_outside_memory_tracing
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag.adapters.graphrag import read_index
from veritrail_graphrag.pipeline.settings import load_settings, split_flags

graphrag_mock = pytest.importorskip("graphrag_mock")
pytest_plugins = ["fake_openai"]
runner = CliRunner()

FAST_SETTINGS: dict[str, Any] = {
    # a two-document graph is all leaves: GraphRAG's default pruning would leave nothing to report on
    "prune_graph": {"min_node_freq": 1, "min_node_degree": 1, "min_edge_weight_pct": 0, "remove_ego_nodes": False},
}


def _project(root: Path, settings: dict[str, Any] | None = None) -> Path:
    shutil.copytree(TINY, root)
    if settings:
        path = root / "settings.yaml"
        path.write_text(yaml.safe_dump({**yaml.safe_load(path.read_text()), **settings}), encoding="utf-8")
    return root


@pytest.fixture(autouse=True)
def scripted_graphrag(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scripted completion model, and a noun-phrase extractor that downloads nothing."""
    import graphrag.index.workflows.extract_graph_nlp as nlp

    graphrag_mock.register()
    monkeypatch.setattr(nlp, "create_noun_phrase_extractor", lambda _config: graphrag_mock.scripted_noun_phrases())
    warm_up_outside_memory_tracing("o200k_base")


@pytest.fixture
def restore_pipelines() -> Any:
    """GraphRAG's pipelines as they were: registering the workflow appends to a class-level table."""
    from graphrag.index.workflows.factory import PipelineFactory

    saved = {name: list(flows) for name, flows in PipelineFactory.pipelines.items()}
    yield
    PipelineFactory.pipelines.clear()
    PipelineFactory.pipelines.update(saved)


def graphrag(root: Path, *args: str) -> Any:
    return runner.invoke(cli.app, ["graphrag", *args, "--root", str(root), "--skip-validation"])


def _report(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "report.json").read_text())


def _add_document(root: Path) -> None:
    name, text = graphrag_mock.ADDED_DOCUMENT
    (root / "input" / name).write_text(text, encoding="utf-8")


# --- settings ----------------------------------------------------------------------------------


def test_our_flags_are_taken_out_and_graphrags_pass_unchanged() -> None:
    args = ["index", "--root", ".", "--veritrail-verifier", "lexical", "--method", "fast", "--veritrail-reports=all",
            "--veritrail-full-trail", "--veritrail-communities", "3,4", "-v"]  # fmt: skip
    theirs, ours = split_flags(args)
    assert theirs == ["index", "--root", ".", "--method", "fast", "-v"]
    assert ours == {"verifier": "lexical", "reports": "all", "full_trail": "true", "communities": ["3", "4"]}


def test_settings_come_from_veritrail_toml_and_flags_win(tmp_path: Path) -> None:
    toml = '[llm]\nmodel = "m"\n\n[audit]\nverifier = "lexical"\nreports = 3\nq = 2\n'
    (tmp_path / "veritrail.toml").write_text(toml, encoding="utf-8")
    settings = load_settings(tmp_path, {"reports": "all"})
    assert (settings.verifier, settings.q, settings.selection()) == ("lexical", 2, (None, None))
    assert load_settings(tmp_path).selection() == (3, None)
    prefiltered = load_settings(tmp_path, {"verifier": "llm", "prefilter": True}).audit_options()
    assert prefiltered.verifier_spec(tmp_path).prefilter


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[audit]\nverifer = 'llm'\n", "verifer"),
        ("[audit]\nreports = 0\n", "reports"),
        ("reports = [\n", "not valid TOML"),
    ],
)
def test_bad_settings_name_the_file_and_the_setting(tmp_path: Path, toml: str, message: str) -> None:
    from veritrail_graphrag.errors import UsageError

    (tmp_path / "veritrail.toml").write_text(toml, encoding="utf-8")
    with pytest.raises(UsageError, match=message) as caught:
        load_settings(tmp_path)
    assert "veritrail.toml" in str(caught.value)


# --- GraphRAG's pipeline -----------------------------------------------------------------------


@pytest.mark.usefixtures("restore_pipelines")
@pytest.mark.parametrize("method", ["standard", "fast"])
def test_index_then_update_audits_the_index_and_then_only_the_new_reports(tmp_path: Path, method: str) -> None:
    root = _project(tmp_path / "tiny", FAST_SETTINGS if method == "fast" else None)
    junit = tmp_path / "audit.xml"
    built = graphrag(root, "index", "--method", method, "--veritrail-reports", "all", f"--veritrail-junit-xml={junit}")
    assert built.exit_code == 0, built.output
    assert "veritrail_audit" in built.output  # GraphRAG's console lists our workflow among its own
    audit = root / "veritrail" / "index-audit-all"
    report = _report(audit)
    reports = pd.read_parquet(root / "output" / "community_reports.parquet")
    assert sorted(report["terminals"]) == sorted(f"report:{c}" for c in reports["community"])
    assert report["summary"]["claims"] > 0 and str(audit) in " ".join(built.output.split())
    assert not list((root / "output").rglob("veritrail*")), "nothing of ours under output/"
    assert len(list(ElementTree.parse(junit).getroot().iter("testcase"))) == report["summary"]["claims"]
    if method == "fast":  # no descriptions: the reports were written from the text units
        dag = read_index(root)
        assert dag.metadata["report_inputs"] == "text_units"
        assert {dag.node(n).kind for t in report["terminals"] for n in dag.src(t)} <= {"text_unit", "community_report"}

    _add_document(root)
    gate = ["--veritrail-max-unsupported-rate", "0"]
    updated = graphrag(root, "update", "--method", method, "--veritrail-reports", "all", *gate)
    assert updated.exit_code == 1, updated.output  # the planted royal charter fails the gate
    assert "Gate: --max-unsupported-rate 0 exceeded: Not Fully Supported in 1 of 3 claims" in updated.output
    [delta] = (root / "veritrail").glob("index-audit-all-update-*")
    merged = pd.read_parquet(root / "output" / "community_reports.parquet")
    new = merged[~merged["id"].isin(reports["id"])]
    assert len(new) and len(merged) > len(new)
    assert sorted(_report(delta)["terminals"]) == sorted(f"report:{c}" for c in new["community"])
    verdicts = {r["claim"]["text"]: r["verdict"] for r in _report(delta)["results"]}
    assert [text for text, verdict in verdicts.items() if verdict != "Fully Supported"] == [
        graphrag_mock.ADDED_REPORT["findings"][1]["explanation"].split(" [Data")[0] + "."
    ]
    said = " ".join(updated.output.split())
    assert f"{len(new)} new community report(s) audited; {len(merged) - len(new)} unchanged" in said
    comparison = json.loads((delta / "compare" / "compare.json").read_text())
    assert [a["label"] for a in comparison["audits"]] == [audit.name, delta.name]
    assert f"Comparison written to {delta / 'compare'}" in said


@pytest.mark.usefixtures("restore_pipelines")
def test_audit_index_then_plain_graphrag_update_still_works(tmp_path: Path) -> None:
    root = _project(tmp_path / "tiny")
    index_project(root)
    audited = runner.invoke(cli.app, ["audit-index", str(root)])
    assert audited.exit_code == 0, audited.output
    assert (root / "veritrail" / "index-audit" / "claims.parquet").is_file()
    _add_document(root)
    index_project(root, update=True)  # GraphRAG copies every parquet file under output/; none is ours
    assert "TOMAS REED" in set(pd.read_parquet(root / "output" / "entities.parquet")["title"])


@pytest.mark.usefixtures("restore_pipelines")
def test_a_failing_audit_fails_the_run_in_one_line_and_a_rerun_resumes_it(
    tmp_path: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path / "tiny")
    toml = (
        f'[audit]\nverifier = "llm"\nconcurrency = 1\n\n[llm]\nbase_url = "{fake_openai.url}"\nmodel = "test-model"\n'
    )
    (root / "veritrail.toml").write_text(toml, encoding="utf-8")
    monkeypatch.setenv("VERITRAIL_API_KEY", "not-a-real-key")
    fake_openai.schedule([None] * 12 + [Fault("bad_request", status=401)] * 500)
    failed = graphrag(root, "index")
    assert failed.exit_code == 4, failed.output
    errors = [line for line in failed.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and fake_openai.url in " ".join(failed.output.split())
    assert "index tables GraphRAG wrote are intact" in " ".join(failed.output.split())
    assert len(pd.read_parquet(root / "output" / "community_reports.parquet")) > 0

    paid = [json.dumps(r.body["messages"]) for r in fake_openai.requests if r.fault is None]
    fake_openai.reset()  # the key works again: GraphRAG builds the same index, the audit takes up
    again = graphrag(root, "index")
    assert again.exit_code == 0, again.output
    assert len(paid) == 12 and fake_openai.count > 0
    assert not set(paid) & {json.dumps(r.body["messages"]) for r in fake_openai.requests}  # nothing paid twice
    report = _report(root / "veritrail" / "index-audit")
    assert report["usage"]["total"]["cached_calls"] + report["resumed_claims"] > 0


def test_bad_settings_stop_before_graphrag_runs(tmp_path: Path) -> None:
    root = _project(tmp_path / "tiny")
    result = graphrag(root, "index", "--veritrail-verifier", "nope")
    assert result.exit_code == 2 and "nope" in result.output
    assert not (root / "output").exists()
    result = graphrag(root, "query", "x", "--veritrail-verifier", "lexical")
    assert result.exit_code == 2 and "--veritrail-verifier" in result.output


@pytest.mark.parametrize(
    ("flag", "said"),
    [
        ("--veritrail-reports=some", "--veritrail-reports 'some': takes: The N highest-ranked community reports, or"),
        ("--veritrail-q=zero", "--veritrail-q 'zero': Input should be a valid integer"),
        ("--veritrail-frob=3", "--veritrail-frob: no such option"),
    ],
)
def test_a_bad_flag_value_is_named_as_typed(tmp_path: Path, flag: str, said: str) -> None:
    result = graphrag(_project(tmp_path / "tiny"), "index", flag)
    assert result.exit_code == 2 and said in " ".join(result.output.split())
    assert "literal[" not in result.output


def test_index_help_lists_every_veritrail_flag(tmp_path: Path) -> None:
    from veritrail_graphrag.pipeline.settings import PipelineSettings

    result = runner.invoke(cli.app, ["graphrag", "index", "--help"])
    assert result.exit_code == 0, result.output
    assert "Build a knowledge graph index" in result.output  # GraphRAG's own help first
    listed = {line.split()[0].split("=")[0] for line in result.output.splitlines() if line.startswith("  --veritrail-")}
    assert listed == {"--veritrail-" + name.replace("_", "-") for name in PipelineSettings.model_fields}


def test_a_failed_graphrag_run_exits_2_not_1_which_is_a_failed_gate(tmp_path: Path) -> None:
    """GraphRAG exits 1 when a workflow fails; a CI reading our codes would take it for a gate."""
    root = _project(tmp_path / "tiny")
    shutil.rmtree(root / "input")
    (root / "input").mkdir()  # no document: GraphRAG's first workflow fails
    result = graphrag(root, "index")
    assert result.exit_code == 2, result.output
    assert "graphrag index failed (GraphRAG's exit code 1" in " ".join(result.stderr.split())


def test_a_graphrag_run_whose_model_calls_fail_exits_4(tmp_path: Path) -> None:
    root = _project(tmp_path / "tiny")
    settings = yaml.safe_load((root / "settings.yaml").read_text())
    settings["completion_models"]["default_completion_model"] = {
        "model_provider": "openai",
        "model": "gpt-4o",
        "api_base": "http://127.0.0.1:9/v1",  # the discard port: nothing listens
        "api_key": "not-a-real-key",
        "retry": {"type": "immediate", "max_retries": 2},
        "call_args": {"max_retries": 0},
    }
    (root / "settings.yaml").write_text(yaml.safe_dump(settings), encoding="utf-8")
    result = runner.invoke(cli.app, ["graphrag", "index", "--root", str(root)])  # GraphRAG tries the model first
    assert result.exit_code == 4, result.output
    said = result.stderr.strip().splitlines()[-1]
    assert said.startswith("Error: the model endpoint cannot be used: graphrag index got no answer from")
