"""An audit as JUnit XML, the test report every CI reads as it is (GitHub's dorny/test-reporter and
mikepenz/action-junit-report, GitLab's `artifacts:reports:junit`, Jenkins' `junit` step), so that
flagged claims show up where failing tests do.

A claim is a test case: class name its terminal (the output it is from), name its id. Not Fully
Supported is a <failure> whose message names the error stage(s) as the report writes them and
the verdict's reasoning; Inconclusive is <skipped> (nothing found wrong, nothing shown either), its
message saying when it is not traced to the source (no source text yielded evidence); a
claim the verifier could not judge is an <error>, as a test that could not run. Each case's
<system-out> is the claim's text, so a CI page shows what was checked without the report. Claims
are not timed one by one: a case's time is 0, the suite's is the audit's wall time.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.files import atomic_write_bytes
from veritrail_graphrag.models import Verdict
from veritrail_graphrag.report.model import AuditReport, stages_text, verdict_text

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(value: str) -> str:
    """`value` without the characters XML 1.0 cannot hold (control characters a model may write):
    ElementTree writes them as they are, and every CI's parser then refuses the whole file."""
    return _NOT_XML.sub("\ufffd", value)


def _case(suite: ET.Element, terminal: str, claim_id: str, outcome: ET.Element | None, text: str) -> None:
    """The outcome before <system-out>: the order of JUnit's schema, which the strictest readers check."""
    case = ET.SubElement(suite, "testcase", classname=_text(terminal), name=_text(claim_id), time="0")
    if outcome is not None:
        case.append(outcome)
    ET.SubElement(case, "system-out").text = _text(text)


def _outcome(result: ClaimResult) -> ET.Element | None:
    reasoning = _text(result.reasoning)
    if result.verdict is Verdict.INCONCLUSIVE:
        return ET.Element("skipped", message=f"{verdict_text(result)}: {reasoning}")
    if result.verdict is not Verdict.NOT_FULLY_SUPPORTED:
        return None
    stages = stages_text(result)
    message = f"Not Fully Supported; error stage(s): {stages}; {reasoning}"
    failure = ET.Element("failure", message=message, type=result.verdict.value)
    failure.text = "\n".join(x for x in (f"Error stage(s): {stages}", reasoning, _text(result.error_note)) if x)
    return failure


def junit_xml(report: AuditReport, seconds: float) -> bytes:
    """<testsuites> holding one <testsuite> with a <testcase> per claim, in the report's order, then
    the claims not verified; the counts are on both elements, as each CI reads one or the other."""
    verdicts = [r.verdict for r in report.results]
    counts = {
        "tests": str(len(report.results) + len(report.failed)),
        "failures": str(verdicts.count(Verdict.NOT_FULLY_SUPPORTED)),
        "errors": str(len(report.failed)),
        "skipped": str(verdicts.count(Verdict.INCONCLUSIVE)),
        "time": f"{seconds:.3f}",
    }
    root = ET.Element("testsuites", name="veritrail", **counts)
    suite = ET.SubElement(
        root, "testsuite", name=_text(f"veritrail: {report.source}"), timestamp=report.created, **counts
    )
    ET.SubElement(ET.SubElement(suite, "properties"), "property", name="verifier", value=report.verifier)
    for result in report.results:
        _case(suite, result.terminal, result.claim.id, _outcome(result), result.claim.text)
    for failed in report.failed:
        error = ET.Element("error", message=_text(failed.error), type="not verified")
        _case(suite, failed.terminal, failed.claim.id, error, failed.claim.text)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def write_junit(report: AuditReport, path: Path, seconds: float) -> None:
    """Atomically, as the report: a CI step never reads half a file from a run cut short."""
    atomic_write_bytes(path, junit_xml(report, seconds))
