"""report.json version 2: texts once, ids in the claims, read back whole (and version 1 too)."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from conftest import AuditedSample
from rich.console import Console
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
import veritrail_graphrag.report.model as report_module
import veritrail_graphrag.report.tables as report_tables
from veritrail_graphrag.audit.checkpoint import Checkpoint
from veritrail_graphrag.cli.console import claims_table
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.errors import OutputError, ReportError
from veritrail_graphrag.models import Verdict
from veritrail_graphrag.report.html import write_html
from veritrail_graphrag.report.markdown import render_markdown
from veritrail_graphrag.report.model import AuditReport
from veritrail_graphrag.report.records import ClaimRecord, DagTexts, from_record, to_record

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"
TINY = SAMPLES / "handwritten-hierarchical" / "dag.json"


def _html(report: AuditReport) -> bytes:
    out = io.BytesIO()
    write_html(report, out)
    return out.getvalue()


def _without_prompts(result: ClaimResult, root_texts: bool = True) -> ClaimResult:
    """What a report without --full-trail gives back: no prompt records, and without the DAG no
    root texts."""
    iterations = [
        it.model_copy(
            update={
                "batches": [],
                "excerpts": [
                    e if root_texts or not e.is_root or e.abridged else e.model_copy(update={"text": ""})
                    for e in it.excerpts
                ],
            }
        )
        for it in result.iterations
    ]
    return result.model_copy(update={"iterations": iterations})


def test_every_text_is_stored_once_and_claims_hold_ids(audited_sample: AuditedSample) -> None:
    raw = (audited_sample.folder / "report.json").read_bytes()
    data = json.loads(raw)
    assert data["report_version"] == 2 and b"\n" not in raw.strip()
    # issue 10's target for the sample was 100 KB (1.02 MB in version 1); the facts verifier traces
    # the five true claims down to the source, where lexical stopped early on them: 103 KB; and
    # the relationships its reports cite to other communities are read too (2026-11-28): 113 KB
    assert len(raw) < 116_000
    assert data["dag_fingerprint"] == audited_sample.dag.fingerprint()
    assert data["sentence_texts"] == "evidence.parquet" and "sentences" not in data
    nodes = pd.DataFrame(data["nodes"]).set_index("node_id")
    row = {node_id: n for n, node_id in enumerate(nodes.index)}
    used = {
        f"{row[s.node_id]}#{s.index}"
        for r in audited_sample.report.results
        for it in r.iterations
        for s in (*it.evidence, *it.context)
    }
    assert len(used) > 100
    for record in data["results"]:
        for it in record["iterations"]:
            assert set(it["evidence"]) <= used
            assert "batches" not in it  # the prompts' records are for --full-trail
            assert all(e.get("text") is None for e in it.get("excerpts", []) if e["is_root"])
    assert [n for r in data["results"] for it in r["iterations"] for n in it["checked"] if not isinstance(n, int)] == []
    assert "text" not in data["nodes"]  # node texts are in the run's artifacts
    for result, record in zip(audited_sample.report.results, data["results"], strict=True):
        stored = json.dumps(record, ensure_ascii=False)
        assert not [s.text for it in result.iterations for s in it.evidence if json.dumps(s.text)[1:-1] in stored]
    texts = pd.read_parquet(audited_sample.folder / "evidence.parquet", columns=["sentence_id", "text"])
    ids = list(nodes.index)
    assert set(texts["sentence_id"]) == {f"{ids[int(r)]}#{n}" for r, n in (u.split("#") for u in used)}
    assert nodes.loc["report:45", "stage"] == 4 and nodes.loc["report:45", "kind"] == "community_report"
    assert nodes.loc["report:45", "human_readable_id"] == 45 and nodes.loc["report:45", "title"]


def test_a_report_without_evidence_parquet_holds_its_sentences(audited_sample: AuditedSample, tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    audited_sample.report.save(path)
    data = json.loads(path.read_text())
    assert "sentence_texts" not in data and len(data["sentences"]) > 100
    assert AuditReport.load(path, dag=audited_sample.dag).results == [
        _without_prompts(r) for r in audited_sample.report.results
    ]


def test_a_report_parted_from_its_evidence_parquet(audited_sample: AuditedSample, tmp_path: Path) -> None:
    """Copied alone, report.json says where its texts are; the DAG the audit read can give them."""
    path = tmp_path / "report.json"
    path.write_bytes((audited_sample.folder / "report.json").read_bytes())
    with pytest.raises(ReportError, match="sentence texts are in evidence.parquet beside it, which cannot be read"):
        AuditReport.load(path)
    loaded = AuditReport.load(path, dag=audited_sample.dag)
    assert loaded.results == [_without_prompts(r) for r in audited_sample.report.results]


def test_loaded_with_the_dag_it_is_the_report_that_was_written(audited_sample: AuditedSample) -> None:
    loaded = AuditReport.load(audited_sample.folder / "report.json", dag=audited_sample.dag)
    assert loaded.results == [_without_prompts(r) for r in audited_sample.report.results]
    assert loaded.summary == audited_sample.report.summary and loaded.nodes == audited_sample.report.nodes


def test_loaded_without_the_dag_it_renders_the_same(audited_sample: AuditedSample) -> None:
    written = audited_sample.report
    loaded = AuditReport.load(audited_sample.folder / "report.json")
    assert loaded.results == [_without_prompts(r, root_texts=False) for r in written.results]
    assert render_markdown(loaded) == render_markdown(written) == (audited_sample.folder / "report.md").read_text()
    assert _html(loaded) == _html(written) == (audited_sample.folder / "report.html").read_bytes()


def test_a_version_1_report_still_loads(audited_sample: AuditedSample, tmp_path: Path) -> None:
    v1 = json.loads(audited_sample.report.model_dump_json(exclude={"nodes", "dag_fingerprint", "full_trail"}))
    v1["report_version"] = 1
    path = tmp_path / "report.json"
    path.write_text(json.dumps(v1, indent=2))
    assert AuditReport.load(path).results == audited_sample.report.results


def test_the_checkpoint_holds_the_same_records(audited_sample: AuditedSample, tmp_path: Path) -> None:
    """Every result survives its record, batches included, with texts from the DAG."""
    dag = audited_sample.dag
    checkpoint = Checkpoint(tmp_path / "partial.jsonl", "key")
    checkpoint.start(keep=False)
    for result in audited_sample.report.results:
        checkpoint.append(result)
        record = ClaimRecord.model_validate_json(to_record(result).dump())
        assert from_record(record, DagTexts(dag)) == result
    assert list(checkpoint.load(dag).values()) == audited_sample.report.results


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda d: d.update(report_version=3), "report version 3 is not 1 or 2"),
        (lambda d: d.update(tool="other"), "not a veritrail report"),
        (lambda d: d.pop("sentence_texts"), "names a text the report does not hold"),
        (lambda d: d.update(sentence_texts="../evidence.parquet"), "must name a file beside the report"),
        (lambda d: d["nodes"]["kind"].pop(), "nodes.kind: not a list of"),
        (lambda d: d["nodes"]["stage"].__setitem__(3, "four"), "nodes row 3 .*stage"),
        (lambda d: d["results"][0].pop("verdict"), "results.0.verdict: Field required"),
    ],
)
def test_a_broken_report_is_refused_by_name(audited_sample: AuditedSample, tmp_path: Path, change, problem) -> None:  # type: ignore[no-untyped-def]
    data = json.loads((audited_sample.folder / "report.json").read_text())
    change(data)
    path = tmp_path / "report.json"
    path.write_text(json.dumps(data))
    shutil.copy(audited_sample.folder / "evidence.parquet", tmp_path)
    with pytest.raises(ReportError, match=problem) as caught:
        AuditReport.load(path)
    assert caught.value.file == str(path)


def test_another_dag_is_refused(audited_sample: AuditedSample) -> None:
    with pytest.raises(ReportError, match="fingerprint differs"):
        AuditReport.load(audited_sample.folder / "report.json", dag=DAG.from_json(TINY))


def test_a_write_that_fails_midway_leaves_no_report(
    audited_sample: AuditedSample, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []

    def failing(result: ClaimResult, batches: bool = True, number: dict[str, int] | None = None) -> ClaimRecord:
        calls.append(result)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return to_record(result, batches, number)

    monkeypatch.setattr(report_module, "to_record", failing)
    with pytest.raises(OutputError, match="No space left on device"):
        audited_sample.report.save(tmp_path / "report.json")
    assert list(tmp_path.iterdir()) == []


def test_full_trail_keeps_node_texts_and_prompts(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    result = CliRunner().invoke(cli.app, ["verify", str(TINY), "--claim", "The old stone bridge collapsed in 1911.", "--out", str(out),
                                          "--full-trail"])  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    dag = DAG.from_json(TINY)
    data = json.loads(out.read_text())
    nodes = data["nodes"]
    assert data["full_trail"] and [dag.node(n).text for n in nodes["node_id"]] == nodes["text"]
    assert any(it.get("batches") for r in data["results"] for it in r["iterations"])
    loaded = AuditReport.load(out)
    roots = [e for r in loaded.results for it in r.iterations for e in it.excerpts if e.is_root]
    assert roots and all(e.text == dag.node(e.node_id).text for e in roots)


def test_parquet_tables_join_with_graphrags(audited_sample: AuditedSample) -> None:
    claims = pd.read_parquet(audited_sample.folder / "claims.parquet")
    evidence = pd.read_parquet(audited_sample.folder / "evidence.parquet")
    report = audited_sample.report
    assert claims["claim_id"].tolist() == [r.claim.id for r in report.results]
    assert (claims["verdict"] == Verdict.NOT_FULLY_SUPPORTED.value).sum() == report.summary.verdicts[
        Verdict.NOT_FULLY_SUPPORTED.value
    ]
    assert len(evidence) == sum(len(it.evidence) + len(it.context) for r in report.results for it in r.iterations)
    entities = pd.read_parquet(audited_sample.folder.parents[3] / "output" / "entities.parquet")
    joined = evidence.merge(entities, on="id", suffixes=("", "_entity"))
    assert len(joined) == (evidence["kind"] == "entity_summary").sum() + (evidence["kind"] == "entity").sum() > 0
    assert (joined["human_readable_id"] == joined["human_readable_id_entity"]).all()


def test_evidence_parquet_is_written_in_row_groups(
    audited_sample: AuditedSample, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A few claims per row group (500 in use) give the same table as one group."""
    monkeypatch.setattr(report_tables, "CLAIMS_PER_ROW_GROUP", 2)
    path = tmp_path / "evidence.parquet"
    with path.open("wb") as out:
        report_tables.write_parquet(
            report_tables.evidence_batches(audited_sample.report), report_tables.EVIDENCE_SCHEMA, out
        )
    assert pq.ParquetFile(path).num_row_groups == 4  # 7 claims
    assert pq.read_table(path).equals(pq.read_table(audited_sample.folder / "evidence.parquet"))


def test_markdown_is_capped(audited_sample: AuditedSample) -> None:
    capped = render_markdown(audited_sample.report, limit=1)
    assert capped.count("\n### ") == 1 and "report.html" in capped
    flagged = [r for r in audited_sample.report.results if r.verdict is not Verdict.FULLY_SUPPORTED]
    assert len(flagged) >= 2 and render_markdown(audited_sample.report).count("\n### ") == len(flagged)
    markdown = render_markdown(audited_sample.report)
    reason = "('London' is in the nodes read, but not 'surgeon' next to it)"
    assert f"- Without support in its evidence: **London** {reason}" in markdown
    # every flag says which check raised it (issue 39): this one compared no sentence, London is absent
    assert "- Flagged by the missing name check: **London**, 'London' is in the nodes read, but not" in markdown
    assert "> Note: offline verdicts are an estimate" in markdown


def test_markdown_shows_the_evidence_that_says_the_unsupported_words_and_counts_the_rest(
    audited_sample: AuditedSample,
) -> None:
    """The surgeon is in report 45's sentence 17, past the first five evidence sentences of its
    iteration: that is the sentence a reviewer must see."""
    markdown = render_markdown(audited_sample.report)
    surgeon = markdown[markdown.index("> He pays a London surgeon") :].split("\n### ")[0]
    [reports] = [line for line in surgeon.splitlines() if "`report:45#17`" in line]
    listed = reports.count("`report:")
    [(more, rest)] = re.findall(r"\.\.\. and (\d+) more (.*)$", reports)
    iteration = int(reports.split("Iteration ")[1].split(" ")[0])
    surgeon_result = next(r for r in audited_sample.report.results if "surgeon" in r.claim.text)
    evidence = surgeon_result.iterations[iteration - 1].evidence
    assert listed == 5 and int(more) == len(evidence) - listed and "report.html" in rest


def test_the_terminal_lists_the_flagged_claims_first_when_they_do_not_all_fit(audited_sample: AuditedSample) -> None:
    report = audited_sample.report
    flagged = [r.claim.id for r in report.results if r.verdict is Verdict.NOT_FULLY_SUPPORTED]
    console = Console(width=250, record=True)
    console.print(claims_table(report, limit=len(flagged), rest_in="report.html"))
    shown = console.export_text()
    listed = [r.claim.id for r in report.results if r.claim.id in shown]
    assert listed == flagged and f"{len(report.results) - len(flagged)} more claims" in shown and "report.html" in shown
    console.print(claims_table(report))
    shown = console.export_text()
    assert all(r.claim.id in shown for r in report.results) and "more claims" not in shown  # 7 fit


def test_a_reports_repr_is_short(audited_sample: AuditedSample) -> None:
    """A full repr of an index audit's report was hundreds of MB."""
    assert repr(audited_sample.report) == f"AuditReport(source={audited_sample.report.source!r}, claims=7, failed=0)"


def test_a_report_without_claims_loads(audited_sample: AuditedSample, tmp_path: Path) -> None:
    """Every claim failed, say: empty tables are still tables."""
    empty = audited_sample.report.model_copy(update={"results": [], "nodes": {}})
    path = tmp_path / "report.json"
    empty.save(path)
    assert json.loads(path.read_text())["nodes"] == {"node_id": [], "stage": [], "kind": []}
    assert AuditReport.load(path).results == []
