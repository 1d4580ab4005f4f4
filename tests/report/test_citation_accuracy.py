"""Citation accuracy in audits: which sentence a marker belongs to, and cited nodes vs. the trail."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from samples import copy_sample
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag.adapters.graphrag.citations import read_data_group
from veritrail_graphrag.citations import SentenceCitations, mark_sentences
from veritrail_graphrag.engine.trail import ClaimResult, Iteration, StopReason
from veritrail_graphrag.models import Claim, Verdict
from veritrail_graphrag.report.citation_accuracy import attach_citations, claim_citations, summarize_citations

runner = CliRunner()
READ = functools.partial(read_data_group, keep_more=True)


def test_markers_belong_to_their_sentence_or_the_one_before() -> None:
    text = (
        "Scrooge is a miser [Data: Reports (1)]. Marley is dead. [Data: Reports (2)] Tim is ill.\n\n"
        "Fred visits. Fred laughs [Data: Entities (3, +more)]. Bob works.\n\n"
        "[Data: Reports (4)]"
    )
    marked = mark_sentences(text, READ)
    assert [(m.text, m.cites) for m in marked] == [
        ("Scrooge is a miser.", ["reports:1"]),
        ("Marley is dead.", ["reports:2"]),
        ("Tim is ill.", []),
        ("Fred visits.", []),
        ("Fred laughs.", ["entities:3", "entities:+more"]),
        ("Bob works.", ["reports:4"]),  # a paragraph of markers alone belongs to the sentence before it
    ]


def test_a_paragraph_marker_is_shared_by_the_sentences_before_it() -> None:
    text = "Fred visits. Fred laughs [Data: Entities (3)]. Bob works.\n\nTim is ill [Data: Reports (5)]."
    marked = mark_sentences(text, READ, inherit=True)
    assert [(m.cites, m.shared) for m in marked] == [
        (["entities:3"], True),
        (["entities:3"], True),
        ([], False),  # after the paragraph's last marker: cites nothing
        (["reports:5"], False),  # never across paragraphs
    ]


def _result(checked: list[list[str]], evidence: list[list[str]], sentence: int = 0) -> ClaimResult:
    iterations = [
        Iteration(index=i, checked=c, nodes_with_evidence=e, evidence=[], verdict=Verdict.FULLY_SUPPORTED)
        for i, (c, e) in enumerate(zip(checked, evidence, strict=True))
    ]
    return ClaimResult(
        claim=Claim(id="c1", text="x", sentence=sentence),
        terminal="final_answer",
        verdict=Verdict.FULLY_SUPPORTED,
        reasoning="",
        error_stages=[],
        stop_reason=StopReason.ROOTS_REACHED,
        iterations=iterations,
    )


def test_cited_nodes_are_supporting_without_evidence_or_not_reached() -> None:
    result = _result([["map:1", "map:2"], ["report:1", "report:2"]], [["map:1"], ["report:1"]])
    cited = SentenceCitations(
        cited=["reports:1", "reports:2", "reports:3", "reports:9"],
        nodes=["report:1", "report:2", "report:3"],
        unknown=["reports:9"],
        incomplete=True,
    )
    c = claim_citations(result, cited)
    assert (c.supporting, c.no_evidence, c.not_reached, c.unknown) == (
        ["report:1"],
        ["report:2"],
        ["report:3"],
        ["reports:9"],
    )
    assert c.in_trail and c.miscited and not c.uncited and c.incomplete
    shared = claim_citations(result, cited.model_copy(update={"shared": True}))
    assert not shared.miscited  # a paragraph's list: wrong only if nothing in it yielded evidence


def test_summary_rates_count_claims_with_known_sentences() -> None:
    results = [_result([["report:1"]], [["report:1"]], sentence=0), _result([["report:2"]], [[]], sentence=1)]
    results.append(_result([["report:1"]], [["report:1"]], sentence=2))
    results.append(_result([["report:1"]], [["report:1"]], sentence=0).model_copy(update={"terminal": "other"}))
    sentences = [
        SentenceCitations(cited=["reports:1"], nodes=["report:1"]),
        SentenceCitations(cited=["reports:2"], nodes=["report:2"]),
        SentenceCitations(),
    ]
    attached = attach_citations(results, {"final_answer": sentences})
    assert attached[3].citations is None  # no citations known for that terminal
    summary = summarize_citations(attached)
    assert summary is not None
    assert (summary.claims, summary.uncited, summary.citing_known_nodes) == (3, 1, 2)
    assert (summary.in_trail, summary.miscited) == (1, 1)
    assert (summary.uncited_rate, summary.in_trail_rate, summary.miscited_rate) == (0.3333, 0.5, 0.5)


def test_query_run_audit_reports_citation_accuracy(tmp_path: Path) -> None:
    root = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    result = runner.invoke(cli.app, ["audit", str(root)])
    assert result.exit_code == 0, result.output
    assert "Citations: 0 of 7 claims cite nothing" in " ".join(result.output.split())
    folder = root / "output" / "veritrail" / "queries" / "handwritten-1"
    report = json.loads((folder / "report.json").read_text())
    by_id = {r["claim"]["id"]: r["citations"] for r in report["results"]}
    # "... a possible future that includes his own death [Data: Reports (55, 56)]": report 56 is read
    # (its map answer's batch holds it) and gives nothing for the claim.
    assert by_id["final_answer#3"]["supporting"] == ["report:55"]
    assert by_id["final_answer#3"]["no_evidence"] == ["report:56"] and by_id["final_answer#3"]["miscited"]
    summary = report["summary"]["citations"]
    assert (summary["claims"], summary["uncited"], summary["miscited"]) == (7, 0, 1)
    markdown = (folder / "report.md").read_text()
    assert "## Citations" in markdown and "`report:56` **no evidence**" in markdown


def test_answer_audit_records_more_unknown_shared_and_uncited(tmp_path: Path) -> None:
    root = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    answer = tmp_path / "answer.md"
    answer.write_text(
        "Scrooge supports Bob Cratchit's family [Data: Reports (45, +more)]. Jacob Marley was Scrooge's "
        "business partner [Data: Reports (48); Entities (63, 99999)].\n\n"
        "Marley's ghost warns Scrooge. Three spirits visit him [Data: Reports (48)]. The ghost wore a chain."
    )
    result = runner.invoke(cli.app, ["audit", str(root), "--answer", str(answer)])
    assert result.exit_code == 0, result.output
    [path] = (root / "output" / "veritrail" / "answers").glob("answer-*/report.json")
    report = json.loads(path.read_text())
    citations = [r["citations"] for r in report["results"]]
    assert [c["incomplete"] for c in citations] == [True, False, False, False, False]
    assert citations[1]["unknown"] == ["entities:99999"]
    assert citations[1]["supporting"] == ["report:48", "entity:JACOB MARLEY"]
    assert [c["shared"] for c in citations] == [False, False, True, True, False]
    assert [c["uncited"] for c in citations] == [False, False, False, False, True]
    s = report["summary"]["citations"]
    assert (s["incomplete"], s["with_unknown"], s["shared"], s["uncited_rate"]) == (1, 1, 2, 0.2)


def test_index_audit_reads_entity_and_relationship_citations(tmp_path: Path) -> None:
    root = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    result = runner.invoke(cli.app, ["audit-index", str(root), "--community", "45"])
    assert result.exit_code == 0, result.output
    report = json.loads((root / "output" / "veritrail" / "index-audit-communities-45" / "report.json").read_text())
    cited = [r["citations"] for r in report["results"] if not r["citations"]["uncited"]]
    assert all(label.split(":")[0] in {"entities", "relationships"} for c in cited for label in c["cited"])
    assert any(c["shared"] and c["incomplete"] for c in cited)
    assert all(n.startswith(("entity:", "relationship:")) for c in cited for n in c["supporting"])
    assert report["summary"]["citations"]["in_trail"] > 0
