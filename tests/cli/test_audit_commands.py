"""`veritrail audit` and `veritrail audit-index` on the bundled samples."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from samples import copy_sample
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag import Verdict
from veritrail_graphrag.adapters.summaries import SummaryLog
from veritrail_graphrag.audit.options import SourceOptions
from veritrail_graphrag.audit.targets import graphrag_index_target, graphrag_query_target
from veritrail_graphrag.report.model import AuditReport

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"
runner = CliRunner()


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    target = tmp_path / "carol"
    copy_sample("graphrag-christmas-carol", target)
    return target


def _report(folder: Path) -> dict:
    """report.json as full objects (the file names nodes by their row in its node table)."""
    return AuditReport.load(folder / "report.json").model_dump(mode="json")


def test_audit_of_the_saved_query_run_writes_reports_in_its_folder(project: Path) -> None:
    result = runner.invoke(cli.app, ["audit", str(project)])
    assert result.exit_code == 0, result.output
    folder = project / "output" / "veritrail" / "queries" / "handwritten-1"
    report = _report(folder)
    assert (folder / "report.md").read_text().startswith("# VeriTrail audit")
    assert report["terminals"] == ["final_answer"]
    by_phrase = {p: next(r for r in report["results"] if p in r["claim"]["text"]) for p in ("orphanage", "surgeon")}
    # invented in the final answer; no map answer tells of it, as of commentary: a reviewer's look
    assert by_phrase["orphanage"]["verdict"] == Verdict.INCONCLUSIVE
    assert "orphanage" in [gap["text"] for gap in by_phrase["orphanage"]["gaps"]]
    assert by_phrase["surgeon"]["verdict"] == Verdict.NOT_FULLY_SUPPORTED
    assert by_phrase["surgeon"]["error_stages"] == [4]  # planted in community report 45
    trail = {n for it in report["results"][2]["iterations"] for n in it["nodes_with_evidence"]}
    assert any(n.startswith("report:") for n in trail) and any(n.startswith("text_unit:") for n in trail)


def test_unknown_query_run_lists_the_known_ones(project: Path) -> None:
    result = runner.invoke(cli.app, ["audit", str(project), "--query-run", "nope"])
    assert result.exit_code == 2
    assert "no query run 'nope' (known: handwritten-1)" in result.output


def test_query_runs_are_named_by_their_folder_and_reported_there(project: Path) -> None:
    """A copied run folder keeps the run_id inside: users see folders, so folders name runs."""
    queries = project / "output" / "veritrail" / "queries"
    shutil.copytree(queries / "handwritten-1", queries / "copy")
    result = runner.invoke(cli.app, ["audit", str(project), "--query-run", "copy"])
    assert result.exit_code == 0, result.output
    assert (queries / "copy" / "report.json").is_file() and not (queries / "handwritten-1" / "report.json").exists()
    by_path = graphrag_query_target(project, SourceOptions(query_run=str(queries / "copy")))
    assert by_path.out_dir == queries / "copy"

    listed = runner.invoke(cli.app, ["audit", str(project), "--dry-run"])
    assert listed.exit_code == 0, listed.output
    output = " ".join(listed.output.split())
    assert f"'handwritten-1' is in 2 folders: {queries / 'copy'}, {queries / 'handwritten-1'}" in output


def test_an_unreadable_query_run_does_not_block_the_others(project: Path) -> None:
    broken = project / "output" / "veritrail" / "queries" / "broken"
    broken.mkdir()
    (broken / "query_run.json").write_text("{")
    named = runner.invoke(cli.app, ["audit", str(project), "--query-run", "handwritten-1", "--dry-run"])
    assert named.exit_code == 0, named.output
    assert "broken" not in named.output  # only the run audited is read
    latest = runner.invoke(cli.app, ["audit", str(project), "--dry-run"])
    assert latest.exit_code == 0, latest.output
    [warning] = [line for line in latest.output.splitlines() if "broken" in line]
    assert "skipped an unreadable query run" in warning and "invalid JSON" in warning


def test_answer_file_is_traced_through_the_reports_it_cites(project: Path, tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(
        "Marley's ghost warns Scrooge on Christmas Eve [Data: Reports (48)]. "
        "Scrooge sells his counting-house to Fred [Data: Reports (48, 49)]."
    )
    result = runner.invoke(cli.app, ["audit", str(project), "--answer", str(answer), "--question", "What happens?"])
    assert result.exit_code == 0, result.output
    (folder,) = (project / "output" / "veritrail" / "answers").iterdir()
    report = _report(folder)
    assert report["dag_metadata"]["question"] == "What happens?"
    first = report["results"][0]
    assert first["iterations"][0]["checked"] == ["report:48", "report:49"]
    fred = report["results"][1]  # no text the trail read names Fred: a look, not a flag
    assert fred["verdict"] == Verdict.INCONCLUSIVE and "'Fred' in none of the texts the trail read" in fred["reasoning"]


def test_answer_without_citations_is_refused(project: Path, tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text("Scrooge changes his ways.")
    result = runner.invoke(cli.app, ["audit", str(project), "--answer", str(answer)])
    assert result.exit_code == 2 and "cites no record ([Data: Reports (...)])" in result.output


def test_a_citation_of_a_record_the_index_lacks_is_a_finding_per_claim(project: Path, tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(
        "Scrooge becomes generous and supports Bob Cratchit's family [Data: Reports (45, 999)]. "
        "He pays a London surgeon to operate on Tiny Tim [Data: Reports (45)]."
    )
    result = runner.invoke(cli.app, ["audit", str(project), "--answer", str(answer)])
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    assert "the answer cites record(s) not in the index: reports:999" in output
    assert "1 cites records it was not built from" in output
    (folder,) = (project / "output" / "veritrail" / "answers").iterdir()
    cited = {r["claim"]["id"]: r["citations"] for r in _report(folder)["results"]}
    assert cited["final_answer#0"]["unknown"] == ["reports:999"] and cited["final_answer#0"]["supporting"]
    assert cited["final_answer#1"]["unknown"] == []
    markdown = (folder / "report.md").read_text()
    assert "Claims citing records the output was not built from (1):" in markdown
    assert "`reports:999` **not among its sources**" in markdown


def test_map_answer_files_become_stage_5(project: Path, tmp_path: Path) -> None:
    maps = tmp_path / "maps"
    maps.mkdir()
    (maps / "1.txt").write_text("Marley's ghost visits Scrooge [Data: Reports (48)].")
    (maps / "2.json").write_text(json.dumps({"answer": "Unrelated [Data: Reports (49)].", "score": 0}))
    answer = tmp_path / "answer.txt"
    answer.write_text("Marley's ghost visits Scrooge on Christmas Eve.")
    result = runner.invoke(cli.app, ["audit", str(project), "--answer", str(answer), "--map-answers", str(maps)])
    assert result.exit_code == 0, result.output
    (folder,) = (project / "output" / "veritrail" / "answers").iterdir()
    report = _report(folder)
    assert report["results"][0]["iterations"][0]["checked"] == ["map_answer:0.0"]


def saved_run_as_files(project: Path, folder: Path) -> tuple[Path, Path]:
    """The sample run's final answer and map answers, saved as a user saves what GraphRAG printed."""
    run = json.loads((project / "output" / "veritrail" / "queries" / "handwritten-1" / "query_run.json").read_text())
    answer, maps = folder / "answer.md", folder / "maps"
    answer.write_text(run["final_answer"], encoding="utf-8")
    maps.mkdir()
    for batch in run["batches"]:
        for n, point in enumerate(batch["answers"]):
            (maps / f"{batch['index']}.{n}.json").write_text(json.dumps(point), encoding="utf-8")
    return answer, maps


def test_the_samples_own_map_answers_are_taken_and_the_score_0_one_left_out_of_reduce(
    project: Path, tmp_path: Path
) -> None:
    """GraphRAG's map step scores 0 what it found nothing for, citing no report: kept, never read by reduce."""
    answer, maps = saved_run_as_files(project, tmp_path)
    result = runner.invoke(cli.app, ["audit", str(project), "--answer", str(answer), "--map-answers", str(maps)])
    assert result.exit_code == 0, result.output
    (folder,) = (project / "output" / "veritrail" / "answers").iterdir()
    report = _report(folder)
    assert report["dag_metadata"]["map_answers"] == 5 and report["dag_metadata"]["map_answers_reduced"] == 4
    assert report["dag_metadata"]["map_answers_unused"] == ["map_answer:4.0"]
    by_phrase = {p: next(r for r in report["results"] if p in r["claim"]["text"]) for p in ("orphanage", "surgeon")}
    stages = {p: r["error_stages"] for p, r in by_phrase.items()}
    assert stages == {"orphanage": [], "surgeon": [4]}


def test_a_pasted_answers_claim_none_of_its_records_holds_is_blamed_on_the_answer(
    project: Path, tmp_path: Path
) -> None:
    """As the saved run and its map answers do: the orphanage is in no record, only in the answer
    (stage 6); the surgeon is in the report its sentence cites (stage 4)."""
    answer, _ = saved_run_as_files(project, tmp_path)
    result = runner.invoke(cli.app, ["audit", str(project), "--answer", str(answer)])
    assert result.exit_code == 0, result.output
    (folder,) = (project / "output" / "veritrail" / "answers").iterdir()
    flagged = {r["claim"]["text"]: r for r in _report(folder)["results"] if r["verdict"] != Verdict.FULLY_SUPPORTED}
    assert {text: r["error_stages"] for text, r in flagged.items()} == {
        next(t for t in flagged if "orphanage" in t): [6],
        next(t for t in flagged if "surgeon" in t): [4],
    }
    orphanage = next(r for t, r in flagged.items() if "orphanage" in t)
    assert "'orphanage'" in orphanage["error_note"] and "report:45" in orphanage["error_note"]


def test_a_map_answer_reduce_reads_must_cite_its_reports(project: Path, tmp_path: Path) -> None:
    answer, maps = saved_run_as_files(project, tmp_path)
    (maps / "9.0.json").write_text(json.dumps({"answer": "Scrooge is kind.", "score": 40}), encoding="utf-8")
    result = runner.invoke(cli.app, ["audit", str(project), "--answer", str(answer), "--map-answers", str(maps)])
    assert result.exit_code == 2 and "9.0.json: cites no report" in " ".join(result.output.split())


def test_audit_index_of_chosen_communities(project: Path) -> None:
    result = runner.invoke(cli.app, ["audit-index", str(project), "--community", "45", "--community", "48"])
    assert result.exit_code == 0, result.output
    report = _report(project / "output" / "veritrail" / "index-audit-communities-45-48")
    assert report["terminals"] == ["report:45", "report:48"]
    assert {r["terminal"] for r in report["results"]} == {"report:45", "report:48"}
    stages = {s for r in report["results"] for s in (r["error_stages"] or [])}
    assert stages <= {2, 3, 4}
    surgeon = next(r for r in report["results"] if "surgeon" in r["claim"]["text"])
    assert surgeon["verdict"] != Verdict.FULLY_SUPPORTED


def test_audit_index_unknown_community(project: Path) -> None:
    result = runner.invoke(cli.app, ["audit-index", str(project), "--community", "999"])
    assert result.exit_code == 2 and "report:999" in result.output


def test_audit_of_a_summary_log_writes_beside_it(tmp_path: Path) -> None:
    log = tmp_path / "summary-log.jsonl"
    shutil.copy(SAMPLES / "hierarchical-christmas-carol" / "summary-log.jsonl", log)
    result = runner.invoke(cli.app, ["audit", str(log)])
    assert result.exit_code == 0, result.output
    report = _report(tmp_path / "summary-log.veritrail")
    assert report["summary"]["claims"] > 0


def test_audit_of_a_dag_json(tmp_path: Path) -> None:
    dag = tmp_path / "dag.json"
    shutil.copy(SAMPLES / "handwritten-hierarchical" / "dag.json", dag)
    result = runner.invoke(cli.app, ["audit", str(dag), "--verifier", "lexical"])
    assert result.exit_code == 0, result.output
    report = _report(tmp_path / "dag.veritrail")
    assert report["summary"]["error_stages"] == {"3": 1}  # the planted grant; facts does not see it


def test_a_sentence_too_short_to_check_is_listed_not_lost(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    with SummaryLog(log) as writer:
        writer.source("c1", "Mara Voss proposed a ferry to carry grain across the river. The council refused twice.")
        writer.summary("final", "# The ferry\n\nMara proposed a ferry across the river. Refused twice!", inputs=["c1"])
    result = runner.invoke(cli.app, ["audit", str(log)])
    assert result.exit_code == 0, result.output
    said = "2 sentence(s) are not claims (1 heading(s), 1 too short to check), so claim ids skip their numbers"
    assert said in " ".join(result.output.split())
    report = AuditReport.load(tmp_path / "run.veritrail" / "report.json")
    assert [r.claim.text for r in report.results] == ["Mara proposed a ferry across the river."]
    assert [(s.text, s.reason) for s in report.skipped] == [
        ("# The ferry", "a heading"),
        ("Refused twice!", "too short to check (fewer than 3 words)"),
    ]
    markdown = (tmp_path / "run.veritrail" / "report.md").read_text()
    assert "## Sentences that are not claims (1)" in markdown and "`final#2` Refused twice!" in markdown


def _files(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob("*")}


def test_out_puts_every_file_of_an_audit_elsewhere_and_leaves_the_run_untouched(project: Path, tmp_path: Path) -> None:
    before = _files(project)
    audited = runner.invoke(cli.app, ["audit", str(project), "--out", str(tmp_path / "query-audit")])
    assert audited.exit_code == 0, audited.output
    indexed = runner.invoke(cli.app, ["audit-index", str(project), "--community", "45", "--out", str(tmp_path / "idx")])
    assert indexed.exit_code == 0, indexed.output
    assert _files(project) == before  # a read-only run can be audited: nothing is written into it
    for folder in (tmp_path / "query-audit", tmp_path / "idx"):
        assert {"report.json", "report.md", "report.html", "claims.parquet", "evidence.parquet"} <= {
            p.name for p in folder.iterdir()
        }
    assert _report(tmp_path / "idx")["terminals"] == ["report:45"]


def test_each_index_selection_has_its_own_folder(project: Path) -> None:
    for args in (["--community", "45"], ["--community", "48", "--community", "45"]):
        result = runner.invoke(cli.app, ["audit-index", str(project), *args])
        assert result.exit_code == 0, result.output
    folders = {p.name: _report(p)["terminals"] for p in (project / "output" / "veritrail").glob("index-audit*")}
    assert folders == {  # the second audit replaced nothing of the first
        "index-audit-communities-45": ["report:45"],
        "index-audit-communities-45-48": ["report:48", "report:45"],
    }
    default = graphrag_index_target(project)  # the 10 highest-ranked: the folder the docs name
    assert default.out_dir.name == "index-audit" and len(default.terminals) == 10
    assert graphrag_index_target(project, reports=20).out_dir.name == "index-audit-top-20"
    assert graphrag_index_target(project, reports=None).out_dir.name == "index-audit-all"


def test_the_hand_written_samples_readme_says_which_verifier_finds_its_plant(tmp_path: Path) -> None:
    """The sample exists to show `verify`: what its README's table says each verifier does with the
    plant is what it does."""
    readme = (SAMPLES / "handwritten-hierarchical" / "README.md").read_text()
    rows = {line.split("|")[1].strip(): line.split("|")[2] for line in readme.splitlines() if line.startswith("| `")}
    dag = tmp_path / "dag.json"
    shutil.copy(SAMPLES / "handwritten-hierarchical" / "dag.json", dag)

    def stages(*options: str) -> dict[str, list[int] | None]:
        result = runner.invoke(cli.app, ["verify", str(dag), *options])
        assert result.exit_code == 0, result.output
        report = AuditReport.load(tmp_path / "dag.report.json")
        return {r.claim.text: r.error_stages for r in report.results if r.verdict is not Verdict.FULLY_SUPPORTED}

    planted = "The ferry was paid for by a grant from the county town."
    lexical = next(said for name, said in rows.items() if name.startswith("`--verifier lexical`"))
    assert "Not Fully Supported, error stage 3" in lexical and stages("--verifier", "lexical") == {planted: [3]}
    default = next(said for name, said in rows.items() if name.startswith("`facts`"))
    assert ("**passes**" in default) == (planted not in stages())
