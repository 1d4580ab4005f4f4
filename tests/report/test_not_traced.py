"""A claim kept Inconclusive although no source text yielded evidence for it ("not traced to the
source") is its own case in every output: the counts, report.md, report.json, claims.parquet, JUnit,
and the rate gates, which say they do not count it."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag import DAG
from veritrail_graphrag.audit import verify
from veritrail_graphrag.report.markdown import render_markdown
from veritrail_graphrag.report.tables import claims_table

DAG_FILE = {
    "format": "veritrail-dag",
    "version": 1,
    "nodes": [
        {"id": "chunk", "stage": 1, "text": "The ferry to Skye leaves Mallaig at noon every day. Tickets cost four pounds."},
        {"id": "summary", "stage": 2, "text": "The ferry leaves Mallaig at noon. Tickets cost four pounds."},
        {"id": "answer", "stage": 3, "text": "The ferry leaves Mallaig at noon. This underscores the value of memory."},
    ],
    "edges": [["chunk", "summary"], ["summary", "answer"]],
}
CLAIMS = ["The ferry leaves Mallaig at noon.", "This underscores the value of memory.", "Tickets cost four pounds."]


def test_a_claim_not_traced_to_the_source_is_shown_apart_everywhere(tmp_path: Path) -> None:
    dag = tmp_path / "dag.json"
    dag.write_text(json.dumps(DAG_FILE))
    junit = tmp_path / "junit.xml"
    claims = [arg for text in CLAIMS for arg in ("--claim", text)]
    gates = ["--max-unsupported-rate", "0.5", "--junit-xml", str(junit)]
    result = CliRunner().invoke(cli.app, ["verify", str(dag), *claims, *gates])
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    assert "2 Fully Supported, 1 Inconclusive (1 not traced to the source)." in output
    assert "(not traced)" in output  # the claims table's verdict cell
    assert "the rate gates count Not Fully Supported claims only: 1 of 3 claims" in output
    assert "are not counted; --fail-on-unsupported fails on them" in output

    report = json.loads((tmp_path / "dag.report.json").read_text())
    assert report["config"]["untraced_inconclusive"] is True  # the facts verifier keeps them
    assert report["summary"]["not_traced"] == 1
    [untraced] = [r for r in report["results"] if r["verdict"] == "Inconclusive"]
    assert untraced["stop_reason"] == "no_candidates"
    assert "Not traced to the source" in untraced["reasoning"]

    [case] = [c for c in ET.parse(junit).getroot().iter("testcase") if c.find("skipped") is not None]
    assert case.attrib["name"] == "claim-2"
    assert case.find("skipped").attrib["message"].startswith("Inconclusive, not traced to the source: ")  # type: ignore[union-attr]


def test_report_md_and_claims_parquet_name_the_case(tmp_path: Path) -> None:
    report = verify(DAG.from_records(DAG_FILE["nodes"], DAG_FILE["edges"]), CLAIMS, out=tmp_path / "report.json")
    assert [r.not_traced for r in report.results] == [False, True, False]
    markdown = render_markdown(report)
    assert "| Inconclusive | 1 (1 not traced to the source) |" in markdown
    assert "### `claim-2`: Inconclusive, not traced to the source" in markdown
    assert claims_table(report).column("not_traced").to_pylist() == [False, True, False]
