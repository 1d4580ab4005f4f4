"""`veritrail check-cited` against the fake OpenAI server: spans files, GraphRAG answers and query
runs, exit codes, and what is kept when nothing was verified."""

from __future__ import annotations

import json
import re
import socket
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
SAMPLE_RULES = {  # the sample's hand-written query run; report 45 itself carries the planted surgeon
    "Ebenezer Scrooge, a miserly and isolated businessman, is transformed over one Christmas by a series of "
    "supernatural visits.": rule(support="reports:48 reports:55"),
    "On Christmas Eve the ghost of his dead partner Jacob Marley warns him of the consequences of a life without "
    "charity and foretells the arrival of three spirits.": rule(support="reports:49"),
    "The Ghosts of Christmas Past, Present and Yet to Come then show him his past, the present and a possible "
    "future that includes his own death.": rule(support="reports:56"),
    "Besides Marley's ghost and the three spirits, his nephew keeps trying to include him in the family's "
    "Christmas celebrations, and his warmth helps inspire Scrooge to embrace the holiday.": rule(support="reports:30"),
    "Scrooge becomes generous and supports Bob Cratchit's family.": rule(support="reports:45"),
    "He pays a London surgeon to operate on Tiny Tim, which saves the boy's life.": rule(support="reports:45"),
    "He also turns his counting-house into an orphanage for the poor children of London.": rule(),
}
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
    result = invoke(str(root), "--answer", "graphrag-answer.md")
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
    assert details[1]["cites"] == ["reports:45"]
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
        (["--answer", "answer.md"], "give either --spans FILE (with --answer or --claims) or a GraphRAG project ROOT"),
        (["--spans", "spans.json"], "--spans needs the answer: --answer FILE or --claims FILE"),
        (["--answer", "answer.md", "--spans", "spans.json", "--query-run", "x"], "--query-run applies to a GraphRAG"),
        (["--answer", "answer.md", "--spans", "spans.json", "--citation-regex", "[(S"], "is not a regular expression"),
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


def test_the_samples_query_run_end_to_end(files: Path, fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """GraphRAG's own answer: the records its [Data: Reports (...)] markers cite are the spans. The
    one-step check passes the surgeon (report 45 asserts it: the error is upstream, in the report,
    where the audit finds it) and flags the orphanage, which report 45 does not assert."""
    root = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    fake_openai.responder = entailment_oracle(SAMPLE_RULES)
    result = invoke(str(root))
    assert result.exit_code == 0, result.output
    report_path = root / "output" / "veritrail" / "queries" / "handwritten-1" / "check-cited.json"
    report = json.loads(report_path.read_text())
    assert [d["status"] for d in report["details"]] == ["supported"] * 6 + ["not_entailed"]
    assert report["summary"]["flagged_idxs"] == [6]
    assert report["details"][1]["cites"] == ["reports:48", "reports:49"]
    assert "query run handwritten-1" in result.output and "7 claims, 1 flagged" in result.output
    # every report's markdown headings were removed before the model saw it
    removed = report["summary"]["non_evidence_removed"]
    assert sorted(removed) == ["reports:30", "reports:45", "reports:48", "reports:49", "reports:55", "reports:56"]
    assert all(line.startswith("#") for lines in removed.values() for line in lines)
    shown = [v.blocks["span reports:45"] for v in fake_openai.views() if "span reports:45" in v.blocks]
    assert any("Tiny Tim" in text for text in shown) and not any(
        "\n#" in text or text.startswith("#") for text in shown
    )
    # the same run offline: no key, no call, citations checked
    calls = fake_openai.count
    offline = invoke(str(root), "--query-run", "handwritten-1", "--verifier", "lexical", "--out", "offline.json")
    assert offline.exit_code == 0, offline.output
    assert fake_openai.count == calls
    details = json.loads((files / "offline.json").read_text())["details"]
    assert [d["status"] for d in details] == ["unscored"] * 7 and all(d["cites"] for d in details)


def test_options_of_the_reference_reach_the_check(files: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = entailment_oracle(
        {
            "Auth validates the token issuer against JWT_ISSUER": rule(support="S0"),
            "JWT stands for JSON Web Token": rule(known=True),
            "Access tokens are short-lived.": rule(support="S1", partial=True),
        }
    )
    (files / "lines.md").write_text(
        "Auth validates the token issuer against JWT_ISSUER (S0)\nJWT stands for JSON Web Token (S0)"
    )
    result = invoke(
        "--answer", "lines.md", "--spans", "spans.json", "--claim-split", "lines", "--citation-regex",
        r"\((?P<id>S\d)\)", "--units", "nats", "--min-log-odds-gain", "1", "--include-prompts",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads((files / "lines.check-cited.json").read_text())
    s = report["summary"]
    assert (s["units"], s["min_log_odds_gain"], s["claim_split"]) == ("nats", 1.0, "lines")
    assert [(d["cites"], d["status"]) for d in report["details"]] == [(["S0"], "supported"), (["S0"], "prior_leak")]
    assert report["details"][0]["budget_gap"]["units"] == "nats" and report["details"][0]["prompts"]["prior"]
    (files / "claims.json").write_text(
        json.dumps(["Access tokens are short-lived [S1].", {"text": "JWT means JSON Web Token."}])
    )
    listed = invoke("--claims", "claims.json", "--spans", "spans.json")
    assert listed.exit_code == 0, listed.output
    given = json.loads((files / "claims.check-cited.json").read_text())
    assert [d["status"] for d in given["details"]] == ["short_of_target", "no_citations"]
    assert given["summary"]["claim_split"] == "given"


def test_the_report_is_named_as_the_manual_says(files: Path) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "cited.md").read_text(encoding="utf-8")
    [(answer, report)] = re.findall(r"`(\w+\.md)` is reported in `(\w+\.check-cited\.json)`", page)
    (files / answer).write_text(ANSWER, encoding="utf-8")
    result = invoke("--answer", answer, "--spans", "spans.json", "--verifier", "lexical")
    assert result.exit_code == 0, result.output
    assert (files / report).is_file()


def test_no_call_no_claim_about_log_probabilities(files: Path, fake_openai: FakeOpenAI) -> None:
    (files / "uncited.md").write_text("The service is written in Go. Refresh tokens last 30 days [S3].")
    result = invoke("--answer", "uncited.md", "--spans", "spans.json")
    assert result.exit_code == 0, result.output
    assert fake_openai.count == 0 and "No model call" in result.output and "P(YES)" not in result.output
    assert "2 of 2 claims flagged (1 no_citations, 1 no_evidence_text)" in result.output


def test_without_a_key_the_error_names_the_offline_option(files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("VERITRAIL_BASE_URL")
    result = invoke("--answer", "answer.md", "--spans", "spans.json")
    assert result.exit_code == 2, result.output
    assert "no API key" in result.output and "--verifier lexical" in " ".join(result.output.split())


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_endpoint_exits_4_and_keeps_the_previous_report(
    files: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert invoke("--answer", "answer.md", "--spans", "spans.json").exit_code == 0
    previous = (files / "answer.check-cited.json").read_text()
    monkeypatch.setenv("VERITRAIL_BASE_URL", f"http://127.0.0.1:{_closed_port()}/v1")
    monkeypatch.setenv("VERITRAIL_MAX_ATTEMPTS", "2")
    monkeypatch.setenv("VERITRAIL_BACKOFF_BASE", "0")
    monkeypatch.setenv("VERITRAIL_CACHE", "false")
    result = invoke("--answer", "answer.md", "--spans", "spans.json")
    assert result.exit_code == 4, result.output
    assert "the model endpoint cannot be used" in result.output and "P(YES)" not in result.output
    assert (files / "answer.check-cited.json").read_text() == previous
    # the first claim is asked alone: one claim's retries, not one per claim
    assert result.output.count("retrying") <= 2


def test_a_run_that_verified_nothing_keeps_the_previous_report(
    files: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert invoke("--answer", "answer.md", "--spans", "spans.json", "--max-claims", "1").exit_code == 0
    monkeypatch.setenv("VERITRAIL_CACHE", "false")
    previous = (files / "answer.check-cited.json").read_text()
    fake_openai.responder = slow_for(
        "Auth validates the token issuer against JWT_ISSUER.", entailment_oracle(), fake_openai._stopping
    )
    result = invoke("--answer", "answer.md", "--spans", "spans.json", "--timeout", "1")
    assert result.exit_code == 3, result.output
    assert "is kept as it was" in " ".join(result.output.split())
    assert (files / "answer.check-cited.json").read_text() == previous


def test_the_table_fits_an_80_column_terminal(tmp_path: Path) -> None:
    root = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    result = runner.invoke(cli.app, ["check-cited", str(root), "--verifier", "lexical"], terminal_width=80)
    assert result.exit_code == 0, result.output
    table = [line for line in result.output.splitlines() if line[:1] in "┏┃┡│└"]  # paths may run on
    assert len(table) > 10 and max(map(len, table)) <= 80 and "…" not in result.output
    assert "cites reports:48, reports:55" in result.output and "gap (bits)" in result.output
