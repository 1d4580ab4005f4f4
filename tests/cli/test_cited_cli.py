"""`veritrail check-cited` against the fake OpenAI server: spans files, GraphRAG answers, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cited_oracle import ANSWER, SPANS, entailment_oracle, rule, slow_for
from fake_openai import FakeOpenAI
from samples import copy_sample
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag.cited.prompts import WITHHELD

pytest_plugins = ["fake_openai"]
runner = CliRunner()

GRAPHRAG_ANSWER = (
    "Scrooge supports Bob Cratchit's family [Data: Reports (45)]. "
    "He turns his counting-house into an orphanage [Data: Reports (45, +more)]. "
    "Jacob Marley was Scrooge's business partner [Data: Entities (63); Relationships (79)]. "
    "Marley died at sea [Data: Reports (999)]."
)
GRAPHRAG_RULES = {
    "Scrooge supports Bob Cratchit's family.": rule(support="reports:45"),
    "He turns his counting-house into an orphanage.": rule(),
    "Jacob Marley was Scrooge's business partner.": rule(support="entities:63"),
    "Marley died at sea.": rule(),
}


@pytest.fixture()
def files(tmp_path: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("VERITRAIL_MODEL", "VERITRAIL_BASE_URL", "VERITRAIL_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("VERITRAIL_BASE_URL", fake_openai.url)
    monkeypatch.setenv("OPENAI_API_KEY", "not-a-real-key")
    monkeypatch.setenv("VERITRAIL_CACHE_PATH", str(tmp_path / "cache.sqlite"))
    fake_openai.responder = entailment_oracle()
    (tmp_path / "answer.md").write_text(ANSWER, encoding="utf-8")
    (tmp_path / "spans.json").write_text(json.dumps(SPANS), encoding="utf-8")
    return tmp_path


def invoke(*args: str) -> Any:
    return runner.invoke(cli.app, ["check-cited", *args])


def test_check_writes_the_report_and_reruns_from_the_cache(files: Path, fake_openai: FakeOpenAI) -> None:
    first = invoke("--answer", "answer.md", "--spans", "spans.json", "--require-citations")
    assert first.exit_code == 0, first.output
    assert "6 of 8 claims flagged" in first.output and "contradicted" in first.output
    report = json.loads((files / "answer.check-cited.json").read_text())
    assert report["flagged"] is True and report["summary"]["flagged_idxs"] == [1, 2, 3, 5, 6, 7]
    calls = fake_openai.count
    again = invoke("--answer", "answer.md", "--spans", "spans.json", "--require-citations", "--fail-on-unsupported")
    assert again.exit_code == 1
    assert fake_openai.count == calls and f"Model calls: 0 ({calls} from cache)" in again.output


def test_options_reach_the_check(files: Path, fake_openai: FakeOpenAI) -> None:
    result = invoke(
        "--answer", "answer.md", "--spans", "spans.json", "--context-mode", "all", "--max-claims", "3",
        "--target", "0.9", "--top-logprobs", "5", "--model", "my-model", "--out", "out/r.json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads((files / "out" / "r.json").read_text())
    s = report["summary"]
    assert (s["context_mode"], s["target"], s["claims_not_checked"], s["verifier_model"]) == ("all", 0.9, 5, "my-model")
    assert [d["status"] for d in report["details"]] == ["supported", "contradicted", "prior_leak"]
    assert {r.body["top_logprobs"] for r in fake_openai.requests} == {5}


def test_graphrag_answer_uses_the_cited_records_as_spans(files: Path, fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    root = tmp_path / "carol"
    copy_sample("graphrag-christmas-carol", root)
    (files / "graphrag-answer.md").write_text(GRAPHRAG_ANSWER, encoding="utf-8")
    fake_openai.responder = entailment_oracle(GRAPHRAG_RULES)
    result = invoke("--answer", "graphrag-answer.md", "--graphrag", str(root))
    assert result.exit_code == 0, result.output
    [report_path] = (root / "output" / "veritrail" / "answers").glob("graphrag-answer-*/check-cited.json")
    details = json.loads(report_path.read_text())["details"]
    assert [d["cites"] for d in details] == [
        ["reports:45"],
        ["reports:45"],
        ["entities:63", "relationships:79"],
        ["reports:999"],
    ]
    assert [d["status"] for d in details] == ["supported", "not_entailed", "supported", "unknown_citations"]
    assert details[3]["unknown_cites"] == ["reports:999"]
    shown = {name for v in fake_openai.views() for name in v.blocks if name.startswith("span ")}
    assert shown == {"span reports:45", "span entities:63", "span relationships:79"}
    texts = {v.blocks["span entities:63"] for v in fake_openai.views() if v.claim.startswith("Jacob")}
    assert WITHHELD in texts and any(t.startswith("JACOB MARLEY: Jacob Marley is the deceased") for t in texts)


def test_offline_check_needs_no_key(files: Path, monkeypatch: pytest.MonkeyPatch, fake_openai: FakeOpenAI) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("VERITRAIL_BASE_URL")
    result = invoke("--answer", "answer.md", "--spans", "spans.json", "--verifier", "lexical")
    assert result.exit_code == 0, result.output
    assert "mis_cited" in result.output and "offline check computes no bits" in result.output
    assert fake_openai.count == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--answer", "answer.md"], "give either --spans FILE or --graphrag ROOT"),
        (["--answer", "missing.md", "--spans", "spans.json"], "missing.md: no such file"),
        (["--answer", "answer.md", "--spans", "bad.json"], "bad.json: span id 'S0' is used more than once (entry 1)"),
        (["--answer", "answer.md", "--spans", "spans.json", "--verifier", "lexical", "--model", "x"],
         "--verifier-model applies to --verifier llm only"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_and_names_it(files: Path, args: list[str], message: str) -> None:
    (files / "bad.json").write_text(json.dumps([SPANS[0], SPANS[0]]), encoding="utf-8")
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert not (files / "answer.check-cited.json").exists()


def test_timed_out_claims_exit_3(files: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = slow_for("Access tokens are short-lived.", entailment_oracle(), fake_openai._stopping)
    result = invoke("--answer", "answer.md", "--spans", "spans.json", "--timeout", "2")
    assert result.exit_code == 3, result.output
    assert "1 claim(s) timed out or failed" in result.output
    assert json.loads((files / "answer.check-cited.json").read_text())["summary"]["unverified_idxs"] == [5]


def test_an_unusable_endpoint_exits_4(files: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERITRAIL_BASE_URL", fake_openai.url.replace("/v1", "/nowhere"))
    result = invoke("--answer", "answer.md", "--spans", "spans.json")
    assert result.exit_code == 4, result.output
    assert "the model endpoint cannot be used" in result.output


def test_an_unwritable_report_exits_5(files: Path) -> None:
    (files / "blocked").write_text("a file, not a folder")
    result = invoke(
        "--answer", "answer.md", "--spans", "spans.json", "--verifier", "lexical", "--out", "blocked/r.json"
    )
    assert result.exit_code == 5, result.output
    assert "cannot write the report" in result.output
