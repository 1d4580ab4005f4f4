"""`veritrail audit ROOT --verifier llm` on a GraphRAG project whose settings.yaml names the model.

The endpoint is the local fake OpenAI server: nothing leaves 127.0.0.1 and no real key is used.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, Fault
from samples import SHARED, copy_sample, needs_shared
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli

pytest_plugins = ["fake_openai"]
SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "graphrag-christmas-carol"
runner = CliRunner()


@pytest.fixture()
def project(tmp_path: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "carol"
    copy_sample("graphrag-christmas-carol", root)
    (root / "settings.yaml").write_text(
        "completion_models:\n"
        "  default_completion_model:\n"
        "    model_provider: openai\n"
        "    model: test-model\n"
        f"    api_base: {fake_openai.url}\n"
        "    api_key: ${FAKE_KEY}\n"
    )
    monkeypatch.setenv("FAKE_KEY", "not-a-real-key")
    for name in ("VERITRAIL_MODEL", "VERITRAIL_BASE_URL", "VERITRAIL_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return root


def _report(root: Path) -> dict:
    return json.loads((root / "veritrail" / "queries" / "handwritten-1" / "report.json").read_text())


def test_llm_audit_uses_the_project_model_and_reruns_for_free(project: Path, fake_openai: FakeOpenAI) -> None:
    dry = runner.invoke(cli.app, ["audit", str(project), "--verifier", "llm", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "test-model" in dry.output and fake_openai.count == 0

    first = runner.invoke(cli.app, ["audit", str(project), "--verifier", "llm"])
    assert first.exit_code == 0, first.output
    calls = fake_openai.count
    assert calls > 0
    report = _report(project)
    assert report["verifier"] == "llm"
    assert report["usage"]["total"]["calls"] == calls
    assert set(report["usage"]["per_claim"]) >= {r["claim"]["id"] for r in report["results"]}
    assert any("orphanage" in r["claim"]["text"] and r["error_stages"] == [6] for r in report["results"])
    kinds = report["usage"]["calls_by_kind"]
    assert sum(kinds.values()) == calls and min(kinds[k] for k in ("claim_extraction", "decomposition")) > 0
    assert f"Model calls: {calls} (0 from cache): claim extraction {kinds['claim_extraction']}, " in first.output

    again = runner.invoke(cli.app, ["audit", str(project), "--verifier", "llm", "--no-resume"])
    assert again.exit_code == 0, again.output
    assert fake_openai.count == calls  # every answer came from the cache
    assert [r["verdict"] for r in _report(project)["results"]] == [r["verdict"] for r in report["results"]]


def test_llm_audit_survives_faults_with_identical_results(project: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.schedule([Fault("server_error", status=503), None, Fault("rate_limit", retry_after=0.01), None] * 3)
    faulty = runner.invoke(cli.app, ["audit", str(project), "--verifier", "llm", "--no-resume"])
    assert faulty.exit_code == 0, faulty.output
    with_faults = [(r["claim"]["text"], r["verdict"]) for r in _report(project)["results"]]
    shutil.rmtree(project / ".veritrail", ignore_errors=True)
    clean = runner.invoke(cli.app, ["audit", str(project), "--verifier", "llm", "--no-resume"])
    assert clean.exit_code == 0, clean.output
    assert [(r["claim"]["text"], r["verdict"]) for r in _report(project)["results"]] == with_faults


BENCHMARKS = SHARED / "benchmarks"


@needs_shared(BENCHMARKS)
def test_eval_with_the_llm_verifier_takes_model_flags(
    tmp_path: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "not-a-real-key")
    args = ["eval", "summedits", "--verifier", "llm", "--limit", "2", "--data", str(BENCHMARKS)]
    args += ["--model", "test-model", "--base-url", fake_openai.url, "--out", str(tmp_path / "out")]
    result = runner.invoke(cli.app, [*args, "--decomposition-depth", "2"])
    assert result.exit_code == 0, result.output
    assert fake_openai.count > 0
    (report,) = (tmp_path / "out").glob("*.json")
    assert report.name == "summedits-test-llm-test-model-limit2.json"
    data = json.loads(report.read_text())
    assert data["verifier"] == "llm" and "--decomposition-depth 2" in data["command"]
    assert f"--model test-model --base-url {fake_openai.url}" in data["command"]
    assert data["verifier_settings"]["llm"]["model"] == "test-model"
    assert sum(data["cost"]["model_calls_by_kind"].values()) == fake_openai.count
    # a second model is measured beside the first, not over it
    other = [arg if arg != "test-model" else "org/other:7b" for arg in args]
    assert runner.invoke(cli.app, other).exit_code == 0
    names = sorted(path.name for path in (tmp_path / "out").glob("*.json"))
    assert names == ["summedits-test-llm-org_other_7b-limit2.json", "summedits-test-llm-test-model-limit2.json"]


def test_a_claim_without_a_readable_answer_is_reported_not_guessed(project: Path, fake_openai: FakeOpenAI) -> None:
    from fake_openai import PromptView, overlap_oracle

    def unreadable_for_orphanage(request: dict) -> object:
        view = PromptView.of(request)
        if view.task == "evidence selection" and "orphanage" in view.claim:
            return "I think sentence three, maybe."
        return overlap_oracle(view)

    fake_openai.responder = unreadable_for_orphanage
    result = runner.invoke(cli.app, ["audit", str(project), "--verifier", "llm"])
    assert result.exit_code == 3, result.output
    report = _report(project)
    (failure,) = report["failed"]
    assert "orphanage" in failure["claim"]["text"] and "evidence selection" in failure["error"]
    assert all("orphanage" not in r["claim"]["text"] for r in report["results"])
    assert len(report["results"]) == report["summary"]["claims"] - 1

    fake_openai.responder = lambda request: overlap_oracle(PromptView.of(request))
    retried = runner.invoke(cli.app, ["audit", str(project), "--verifier", "llm"])
    assert retried.exit_code == 0, retried.output
    again = _report(project)
    assert again["failed"] == [] and again["resumed_claims"] == len(report["results"])


def test_a_sentence_whose_claims_cannot_be_extracted_fails_alone(project: Path, fake_openai: FakeOpenAI) -> None:
    from fake_openai import PromptView, default_responder

    def responder(request: dict) -> object:
        view = PromptView.of(request)
        if view.task == "claim extraction" and "orphanage" in view.blocks.get("target", ""):
            return "Sorry, I cannot help with that."
        return default_responder(request)

    fake_openai.responder = responder
    result = runner.invoke(cli.app, ["audit", str(project), "--verifier", "llm"])
    assert result.exit_code == 3, result.output
    report = _report(project)
    [failure] = report["failed"]
    assert failure["claim"]["id"].startswith("sentence-") and "orphanage" in failure["claim"]["text"]
    assert "claim extraction failed" in failure["error"]
    assert report["results"] and all("orphanage" not in r["claim"]["text"] for r in report["results"])


def test_every_prompt_stays_under_max_input_tokens(
    project: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small window (an 8K GGUF less its answer room, here smaller still): Evidence Selection
    packs to it and roots are shown in part, so no prompt is over the limit and none fails."""
    unlimited = runner.invoke(cli.app, ["audit", str(project), "--verifier", "llm", "--no-resume"])
    assert unlimited.exit_code == 0, unlimited.output
    largest = max(sum(len(m["content"]) for m in r.body["messages"]) for r in fake_openai.requests)
    fake_openai.reset()

    monkeypatch.setenv("VERITRAIL_MAX_INPUT_TOKENS", "1500")
    limited = runner.invoke(cli.app, ["audit", str(project), "--verifier", "llm", "--no-resume"])
    assert limited.exit_code == 0, limited.output
    sizes = [sum(len(m["content"]) for m in r.body["messages"]) for r in fake_openai.requests]
    assert largest > 4 * 1500 >= max(sizes)  # the limit mattered, and held (4 characters a token)
    report = _report(project)
    assert report["verifier_settings"]["llm"]["input_limit"] == 1500
    assert all(r["verdict"] for r in report["results"])


def test_without_settings_the_cache_goes_under_the_folder_audited(
    tmp_path: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "carol"
    copy_sample("graphrag-christmas-carol", root)  # no settings.yaml
    args = ["audit", str(root), "--verifier", "llm", "--model", "test-model", "--base-url", fake_openai.url]
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    assert (root / ".veritrail" / "llm_cache.sqlite").is_file()
    assert not (tmp_path / "home").exists()


def test_out_keeps_the_model_cache_out_of_the_folder_audited(project: Path, tmp_path: Path) -> None:
    before = {str(p.relative_to(project)): p.stat().st_mtime_ns for p in project.rglob("*")}
    out = tmp_path / "elsewhere"
    result = runner.invoke(cli.app, ["audit", str(project), "--verifier", "llm", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert {str(p.relative_to(project)): p.stat().st_mtime_ns for p in project.rglob("*")} == before
    assert (out / ".veritrail" / "llm_cache.sqlite").is_file() and (out / "report.json").is_file()
