"""The languages an audit met and what the verifier did about them, in report.json, report.md,
report.html and the terminal, all saying the same thing once."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.models import Verdict
from veritrail_graphrag.report.languages import ranked, summarize_languages
from veritrail_graphrag.report.model import AuditReport

runner = CliRunner()
SUMMARY = (
    "The Ouse mill ground wheat for the village of Selby until 1921. "
    "The miller Ada Pell kept the ledgers of the mill for forty years. "
    "Le moulin vendait sa farine à la boulangerie de Selby chaque semaine."
)


def _audited(tmp_path: Path) -> tuple[AuditReport, Path, str]:
    units = {
        "unit-en": "The Ouse mill ground wheat for the village of Selby until 1921, when it closed.",
        "unit-ja": "製粉所の主人エイダ・ペルは四十年間、製粉所の帳簿をつけていた。彼女は毎週帳簿を確認した。",
    }
    nodes = [*(Node(id=n, text=t, stage=1) for n, t in units.items()), Node(id="summary", text=SUMMARY, stage=2)]
    path = tmp_path / "run.json"
    DAG.from_records(nodes, [(n, "summary") for n in units]).to_json(path)
    result = runner.invoke(cli.app, ["audit", str(path)])
    assert result.exit_code == 0, result.output
    folder = tmp_path / "run.veritrail"
    return AuditReport.load(folder / "report.json"), folder, result.output


def test_the_languages_and_the_claims_not_checked_are_said_everywhere(tmp_path: Path) -> None:
    report, folder, output = _audited(tmp_path)
    by_text = {r.claim.text: r for r in report.results}
    assert [r.language for r in report.results] == ["en", "en", "fr"]
    ledgers = by_text["The miller Ada Pell kept the ledgers of the mill for forty years."]
    assert ledgers.verdict is Verdict.INCONCLUSIVE and ledgers.iterations[-1].not_read == {"ja": ["unit-ja"]}
    french = by_text[SUMMARY.split(". ")[2]]
    assert french.verdict is Verdict.INCONCLUSIVE and french.not_checked_for_language
    languages = report.summary.languages
    assert languages is not None
    assert languages.claims == {"en": 2, "fr": 1} and languages.verifier_reads == ["en"]
    assert languages.nodes_read == {"en": 1} and languages.nodes_not_read == {"ja": 1}
    assert languages.not_checked == {"en>ja": 1, "fr>en+ja": 1}
    assert report.nodes["unit-ja"].language == "ja"
    note = languages.note
    assert note.startswith("Languages: claims English 2, French 1; nodes read: English 1; not read: Japanese 1.")
    assert "2 claim(s) were not checked" in note and "1 in English with evidence in Japanese" in note
    assert "in French, which it does not read" in note and "--verifier llm" in note
    assert " ".join(note.split()) in " ".join(output.split())
    assert note in (folder / "report.md").read_text()
    stored = json.loads((folder / "report.json").read_text())
    assert stored["summary"]["languages"]["note"] == note
    assert json.dumps(note)[1:-1] in (folder / "report.html").read_text()


def test_counts_are_kept_most_first_and_equal_counts_by_code(tmp_path: Path) -> None:
    """report.json's language counts in one order whatever order they were counted in (sets of
    node ids iterate in another order in each process)."""
    counts = Counter(["zh", "ja", "en", "ja", "en", "fr"])
    assert list(ranked(counts).items()) == [("en", 2), ("ja", 2), ("fr", 1), ("zh", 1)]
    report, _, _ = _audited(tmp_path)
    languages = {node_id: node.language for node_id, node in report.nodes.items()}
    summary = summarize_languages(report.results[::-1], languages, frozenset({"en"}))  # French counted first
    assert list(summary.claims) == ["en", "fr"] and list(summary.not_checked) == ["en>ja", "fr>en+ja"]
