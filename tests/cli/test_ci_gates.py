"""Gating in CI on the audit commands: the JUnit file, the rate thresholds and their exit codes."""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from samples import SAMPLES, copy_sample
from scripted import ScriptedVerifier
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag.audit import options as audit_options
from veritrail_graphrag.compare.gate import share
from veritrail_graphrag.models import Verdict
from veritrail_graphrag.report import AuditReport
from veritrail_graphrag.report.junit import junit_xml
from veritrail_graphrag.report.model import stages_text
from veritrail_graphrag.verifiers.registry import PreparedVerifier

runner = CliRunner()
NFS = Verdict.NOT_FULLY_SUPPORTED


@pytest.fixture(scope="module")
def index_audit(tmp_path_factory: pytest.TempPathFactory) -> tuple[AuditReport, ET.Element]:
    """Two community reports of the sample, audited by the default verifier: 53 Fully Supported,
    5 Not Fully Supported, 6 Inconclusive, so every kind of test case is there."""
    project = copy_sample("graphrag-christmas-carol", tmp_path_factory.mktemp("gate") / "carol")
    junit = project.parent / "ci" / "veritrail.xml"
    result = runner.invoke(
        cli.app, ["audit-index", str(project), "--community", "45", "--community", "48", "--junit-xml", str(junit)]
    )
    assert result.exit_code == 0, result.output
    report = AuditReport.load(project / "output" / "veritrail" / "index-audit-communities-45-48" / "report.json")
    return report, ET.parse(junit).getroot()


def test_audit_index_writes_a_junit_test_case_per_claim(index_audit: tuple[AuditReport, ET.Element]) -> None:
    report, root = index_audit
    verdicts = Counter(r.verdict for r in report.results)
    assert all(verdicts[v] for v in Verdict)  # a mix, so the counts below cannot agree by accident
    [suite] = root
    assert (root.tag, suite.tag) == ("testsuites", "testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == len(report.results)
    assert len(suite.findall("testcase/failure")) == verdicts[NFS]
    assert len(suite.findall("testcase/skipped")) == verdicts[Verdict.INCONCLUSIVE]
    assert not suite.findall("testcase/error")
    expected = {"tests": len(cases), "failures": verdicts[NFS], "skipped": verdicts[Verdict.INCONCLUSIVE], "errors": 0}
    for element in (root, suite):
        assert {k: int(element.attrib[k]) for k in expected} == expected
        assert float(element.attrib["time"]) > 0
    for result, case in zip(report.results, cases, strict=True):
        assert (case.get("classname"), case.get("name")) == (result.terminal, result.claim.id)
        assert case.findtext("system-out") == result.claim.text
        if result.verdict is NFS:
            message = case.find("failure").get("message")  # type: ignore[union-attr]
            assert message == f"Not Fully Supported; error stage(s): {stages_text(result)}; {result.reasoning}"


def _dag_audit(tmp_path: Path, *gates: str) -> tuple[int, str, Path]:
    """The hand-written DAG audited by the lexical verifier (a second): its exit code, stderr and folder."""
    dag = tmp_path / "dag.json"
    if not dag.exists():
        shutil.copy(SAMPLES / "handwritten-hierarchical" / "dag.json", dag)
    result = runner.invoke(cli.app, ["audit", str(dag), "--verifier", "lexical", *gates])
    return result.exit_code, " ".join(result.stderr.split()), tmp_path / "dag.veritrail"


def test_thresholds_fail_above_the_measured_rate_and_pass_at_it(tmp_path: Path) -> None:
    code, _, folder = _dag_audit(tmp_path)
    assert code == 0
    results = AuditReport.load(folder / "report.json").results
    total, flagged = len(results), sum(r.verdict is NFS for r in results)
    at_stage_3 = sum(r.verdict is NFS and 3 in (r.error_stages or []) for r in results)
    assert 0 < at_stage_3 <= flagged < total  # the planted grant, at stage 3
    rate, stage_rate = flagged / total, at_stage_3 / total

    code, output, _ = _dag_audit(tmp_path, "--max-unsupported-rate", str(rate), "--max-stage-rate", f"3={stage_rate}")
    assert code == 0, output
    assert "exceeded" not in output

    below, stage_below = round(rate - 0.5 / total, 4), round(stage_rate - 0.5 / total, 4)
    code, output, _ = _dag_audit(tmp_path, "--max-unsupported-rate", str(below))
    assert code == 1, output
    assert f"--max-unsupported-rate {below:g} exceeded: Not Fully Supported in {share(flagged, total)}" in output
    code, output, _ = _dag_audit(tmp_path, "--max-stage-rate", f"3={stage_below}", "--max-stage-rate", "1=0")
    assert code == 1, output
    assert f"--max-stage-rate 3={stage_below:g} exceeded: an error at stage 3 in {share(at_stage_3, total)}" in output
    assert "--max-stage-rate 1=0 " not in output  # no claim has its error at the source


@pytest.mark.parametrize(
    ("gate", "said"),
    [
        (
            ["--max-stage-rate", "3:0.1"],
            "--max-stage-rate '3:0.1': write STAGE=R, a stage number and a rate from 0 to 1",
        ),
        (["--max-stage-rate", "3=1.5"], "--max-stage-rate '3=1.5': write STAGE=R"),
        (["--max-stage-rate", "report=0.1"], "--max-stage-rate 'report=0.1': write STAGE=R"),
        (["--max-stage-rate", "3=0.1", "--max-stage-rate", "3=0.2"], "--max-stage-rate names stage 3 twice"),
        (["--max-stage-rate", "9=0.1"], "--max-stage-rate: the DAG has no stage 9 (its stages: 1, 2, 3)"),
        (
            ["--dry-run", "--junit-xml", "x.xml", "--max-unsupported-rate", "0"],
            "--junit-xml, --max-unsupported-rate apply to an audit, not to --dry-run",
        ),
        (["--max-unsupported-rate", "1.5"], "Invalid value for '--max-unsupported-rate': Input should be less than"),
    ],
)
def test_a_bad_threshold_exits_2_before_the_audit(tmp_path: Path, gate: list[str], said: str) -> None:
    code, output, folder = _dag_audit(tmp_path, *gate)
    assert code == 2, output
    assert said in output
    assert not folder.exists()  # refused before anything was verified


def test_claims_not_verified_exit_3_before_the_gates_which_are_still_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class HalfBroken(ScriptedVerifier):
        """Times out on the claims about the ferry, flags the others."""

        async def judge(self, claim, excerpts):  # type: ignore[no-untyped-def]
            if "ferry" in claim.text:
                raise TimeoutError("backend unavailable")
            return await super().judge(claim, excerpts)

    def flag(_: object) -> Verdict:
        return NFS

    monkeypatch.setattr(
        audit_options, "prepare_verifier", lambda spec: PreparedVerifier(build=lambda: HalfBroken("a", rule=flag))
    )
    junit = tmp_path / "junit.xml"
    report_path = tmp_path / "report.json"
    dag = str(SAMPLES / "handwritten-hierarchical" / "dag.json")
    result = runner.invoke(
        cli.app, ["verify", dag, "--out", str(report_path), "--junit-xml", str(junit), "--max-unsupported-rate", "0"]
    )
    assert result.exit_code == 3, result.output
    assert "--max-unsupported-rate 0 exceeded" in result.output
    report = AuditReport.load(report_path)
    assert report.failed and report.results
    suite = ET.parse(junit).getroot()[0]
    errors = suite.findall("testcase/error")
    assert len(errors) == len(report.failed) == int(suite.attrib["errors"])
    assert len(suite.findall("testcase")) == len(report.results) + len(report.failed)
    assert all("backend unavailable" in (e.get("message") or "") for e in errors)


def test_control_characters_a_model_wrote_do_not_break_the_xml(index_audit: tuple[AuditReport, ET.Element]) -> None:
    report, _ = index_audit
    odd = report.results[0].model_copy(update={"reasoning": "odd\x0bbyte\x00", "verdict": Verdict.INCONCLUSIVE})
    written = junit_xml(report.model_copy(update={"results": [odd, *report.results[1:]]}), 1.0)
    skipped = ET.fromstring(written).find("testsuite/testcase/skipped")
    assert skipped is not None and skipped.get("message") == "Inconclusive: odd\ufffdbyte\ufffd"


def test_fail_on_unsupported_says_what_failed(tmp_path: Path) -> None:
    dag = tmp_path / "dag.json"
    shutil.copy(SAMPLES / "handwritten-hierarchical" / "dag.json", dag)
    command = [sys.executable, "-m", "veritrail_graphrag", "verify", str(dag), "--verifier", "lexical"]
    done = subprocess.run([*command, "--fail-on-unsupported"], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1, done.stderr
    results = AuditReport.load(tmp_path / "dag.report.json").results
    counts = Counter(r.verdict.value for r in results if r.verdict is not Verdict.FULLY_SUPPORTED)
    which = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items()))
    said = f"Gate: --fail-on-unsupported: {counts.total()} of {len(results)} claims are not Fully Supported ({which})"
    assert counts and done.stderr.strip().splitlines()[-1] == said
