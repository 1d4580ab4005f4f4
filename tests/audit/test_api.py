"""The Python API: `audit`, `audit_index` and `verify` do what the commands do, with the same
options as keyword arguments, and write the same files."""

from __future__ import annotations

import asyncio
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import AuditedSample
from samples import SAMPLES, copy_sample

import veritrail_graphrag
import veritrail_graphrag as v
from veritrail_graphrag.errors import UsageError
from veritrail_graphrag.report import AuditReport

DAG_FILE = SAMPLES / "handwritten-hierarchical" / "dag.json"


def test_audit_of_a_copy_of_the_sample_writes_the_reports_the_command_writes(
    tmp_path: Path, audited_sample: AuditedSample
) -> None:
    root = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    progress: list[tuple[int, int]] = []
    report = v.audit(root, on_progress=lambda done, total: progress.append((done, total)))
    folder = root / "output" / "veritrail" / "queries" / "handwritten-1"
    names = {"report.json", "report.md", "report.html", "claims.parquet", "evidence.parquet"}
    assert names <= {p.name for p in folder.iterdir()}
    assert isinstance(report, AuditReport)
    assert [(r.claim.text, r.verdict, r.error_stages) for r in report.results] == [
        (r.claim.text, r.verdict, r.error_stages) for r in audited_sample.report.results
    ]
    assert progress[0] == (0, 7) and progress[-1] == (7, 7) and len(progress) == 8
    assert AuditReport.load(str(folder / "report.json")).summary == report.summary


def test_options_are_the_commands_and_an_unknown_one_is_named(tmp_path: Path) -> None:
    root = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    with pytest.raises(UsageError, match="qq"):
        v.audit(root, qq=2)
    with pytest.raises(UsageError, match="--samples applies to --verifier llm only"):
        v.audit(root, samples=3)
    with pytest.raises(UsageError, match="--book applies to BooookScore files"):
        v.audit(root, book="x.epub")
    assert not (root / "output" / "veritrail" / "queries" / "handwritten-1" / "report.json").exists()


def test_audit_index_audits_the_communities_asked_for(tmp_path: Path) -> None:
    root = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    report = v.audit_index(root, communities=[45, 45], q=2)
    assert report.terminals == ["report:45"] and report.config.q == 2
    assert (root / "output" / "veritrail" / "index-audit-communities-45" / "report.html").is_file()


def test_verify_takes_a_dag_file_or_object_and_claims_as_texts(tmp_path: Path) -> None:
    dag = v.DAG.from_json(DAG_FILE)
    with pytest.raises(UsageError, match="out=PATH"):
        v.verify(dag, ["The ferry was paid for by a grant from the county town."])
    out = tmp_path / "r.json"
    report = v.verify(dag, ["An iron bridge replaced the ferry in 1915."], out=out)
    assert [r.claim.id for r in report.results] == ["claim-1"] and out.is_file()
    assert report.results[0].verdict is v.Verdict.NOT_FULLY_SUPPORTED

    copied = tmp_path / "dag.json"
    copied.write_bytes(DAG_FILE.read_bytes())
    from_file = v.verify(copied, ["An iron bridge replaced the ferry in 1915."])
    assert (tmp_path / "dag.report.json").is_file()
    assert from_file.results[0].verdict == report.results[0].verdict


def test_the_coroutine_forms_run_inside_a_running_loop(tmp_path: Path) -> None:
    copied = tmp_path / "dag.json"
    copied.write_bytes(DAG_FILE.read_bytes())

    async def inside() -> AuditReport:
        return await v.averify(copied, ["Mara Voss was the miller's daughter."])

    assert len(asyncio.run(inside()).results) == 1


def test_audit_is_callable_whatever_is_imported_and_its_modules_import_by_name(tmp_path: Path) -> None:
    for module in pkgutil.walk_packages(veritrail_graphrag.__path__, "veritrail_graphrag."):
        if module.name != "veritrail_graphrag.__main__":  # that one runs the command
            importlib.import_module(module.name)
    import veritrail_graphrag.audit.checkpoint as checkpoint
    from veritrail_graphrag.audit import audit

    assert callable(v.audit) and audit.__module__ == "veritrail_graphrag.audit.api"
    assert checkpoint.__name__ == "veritrail_graphrag.audit.checkpoint"
    root = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    assert v.audit(root, out=tmp_path / "out").summary.claims == 7


def test_the_python_example_audits_a_copy_of_the_sample(tmp_path: Path) -> None:
    root = copy_sample("graphrag-christmas-carol", tmp_path / "carol")
    example = Path(__file__).resolve().parents[2] / "examples" / "audit_from_python.py"
    done = subprocess.run([sys.executable, str(example), str(root)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("7 claims: ") and "- [final_answer] stage 4: " in done.stdout
    assert (root / "output" / "veritrail" / "queries" / "handwritten-1" / "report.json").is_file()


def test_every_public_reader_and_writer_takes_a_str_path(tmp_path: Path, audited_sample: AuditedSample) -> None:
    from veritrail_graphrag.adapters.graphrag import QueryRun, read_index
    from veritrail_graphrag.adapters.summaries import SummaryLog, load_summary_run

    dag = v.DAG.from_json(str(DAG_FILE))
    dag.to_json(str(tmp_path / "dag.json"))
    report = AuditReport.load(str(audited_sample.folder / "report.json"))
    report.save(str(tmp_path / "alone.json"))
    assert AuditReport.load(str(tmp_path / "alone.json")).summary == report.summary
    assert len(read_index(str(SAMPLES / "graphrag-christmas-carol"))) > 100
    run = QueryRun.load(
        str(SAMPLES / "graphrag-christmas-carol" / "output" / "veritrail" / "queries" / "handwritten-1")
    )
    assert run.method == "global"
    with SummaryLog(str(tmp_path / "run.jsonl")) as log:
        log.source("c", "A text.")
        log.summary("s", "Its summary.", inputs=["c"])
    assert load_summary_run(str(tmp_path / "run.jsonl")).terminal == "s"


def test_the_package_lists_its_public_names_and_loads_none_to_do_it() -> None:
    code = (
        "import sys, veritrail_graphrag as v; names = dir(v); "
        "print(set(v.__all__) <= set(names), 'pandas' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.stdout.split() == ["True", "False"], done.stderr


def test_summary_stages_are_numbers_as_the_claims_are(audited_sample: AuditedSample) -> None:
    summary = audited_sample.report.summary
    named = [s for r in audited_sample.report.results for s in (r.error_stages or [])]
    assert summary.error_stages == {stage: named.count(stage) for stage in sorted(set(named))}
    assert AuditReport.load(audited_sample.folder / "report.json").summary == summary  # and read back as numbers
