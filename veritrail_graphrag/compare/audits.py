"""Finished audits as `compare` sees them: one row per claim, and what the audit was made with.

A path is a report file or a folder holding one (a query run's folder, an index audit's
`index-audit` folder, a summary audit's `.veritrail` folder, or a GraphRAG project whose
`veritrail/` folder holds exactly one report). Reports are read by the report's own reader, claims
kept as stored records, so a big index audit is checked in full without rebuilding its texts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from veritrail_graphrag.adapters.graphrag.layout import INDEX_AUDIT
from veritrail_graphrag.errors import VeriTrailError
from veritrail_graphrag.llm.usage import Usage
from veritrail_graphrag.models import Verdict
from veritrail_graphrag.report import AuditReport

REPORT_NAME = "report.json"
_SPACE = re.compile(r"\s+")
_PUNCT = re.compile(r"[^\w\s]")


class CompareError(VeriTrailError):
    """An audit to compare cannot be found or read; names the path."""


class ClaimRow(BaseModel):
    id: str
    text: str
    terminal: str
    verdict: Verdict
    error_stages: list[int] | None = Field(description="None: flagged but no stage could be named")
    nodes_read: int = 0
    not_traced: bool = Field(default=False, description="Inconclusive, not traced to the source")

    @property
    def flagged(self) -> bool:
        return self.verdict is Verdict.NOT_FULLY_SUPPORTED

    @property
    def key(self) -> str:
        """Normalized text: case, punctuation and spacing do not make two claims different."""
        return _SPACE.sub(" ", _PUNCT.sub(" ", self.text.lower())).strip()


class Audit(BaseModel):
    """One audit, or several runs of one version pooled (`--group`): claims concatenated."""

    label: str
    paths: list[str]
    verifier: str
    verifier_settings: dict[str, Any]
    claims: list[ClaimRow]
    failed: int = 0
    calls: int = 0
    cached_calls: int = 0
    cost_usd: float | None = 0.0
    index_audit: bool = False

    @property
    def judge(self) -> str:
        """What decides the verdicts: audits whose judges differ compare the judge too."""
        return json.dumps({"verifier": self.verifier, "settings": _judge_settings(self.verifier_settings)}, sort_keys=True)


def _judge_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """Settings that change verdicts; what a run found out about its endpoint does not."""
    llm = settings.get("llm")
    if isinstance(llm, dict):
        return {**settings, "llm": {k: v for k, v in llm.items() if k != "answer_format"}}
    return settings


def find_report(path: Path) -> Path:
    """The report file a path names, or a clear error listing what was found."""
    if path.is_file():
        return path
    if not path.exists():
        raise CompareError("no such file or folder", file=path)
    direct = path / REPORT_NAME
    if direct.is_file():
        return direct
    found = sorted(p for p in path.rglob(REPORT_NAME) if ".partial" not in p.name)
    if len(found) == 1:
        return found[0]
    if not found:
        raise CompareError(f"holds no {REPORT_NAME}; run an audit first, or name the report file", file=path)
    listed = ", ".join(str(p.relative_to(path)) for p in found[:6])
    raise CompareError(f"holds {len(found)} reports ({listed}); name the one to compare", file=path)


def load_audit(path: Path, label: str | None = None) -> Audit:
    """The audit in a report file (or the folder holding it), read and checked by the report's own
    reader: a file `AuditReport.load` refuses is refused here too, with the same message."""
    report_path = find_report(path)
    report, records = AuditReport.read_stored(report_path)
    usage = report.usage.total if report.usage is not None else Usage()
    return Audit(
        label=label or _default_label(report_path),
        paths=[str(report_path)],
        verifier=report.verifier,
        verifier_settings=report.verifier_settings,
        claims=[
            ClaimRow(
                id=record.claim.id,
                text=record.claim.text,
                terminal=record.terminal,
                verdict=record.verdict,
                error_stages=record.error_stages,
                nodes_read=record.nodes_read,
                not_traced=record.not_traced,
            )
            for record in records
        ],
        failed=len(report.failed),
        calls=usage.calls,
        cached_calls=usage.cached_calls,
        cost_usd=usage.cost_usd,
        index_audit=report_path.parent.name.startswith(INDEX_AUDIT),
    )


def _default_label(report: Path) -> str:
    """The folder that tells audits apart: above `veritrail/` (and `output/`), or the report's own folder."""
    parts = report.parent.parts
    if "veritrail" in parts:
        above = parts[: parts.index("veritrail")]
        above = above[:-1] if above and above[-1] == "output" else above
        if above:
            return above[-1] + ("" if report.parent.name == INDEX_AUDIT else f"/{report.parent.name}")
    return report.parent.name


def pool(label: str, audits: list[Audit]) -> Audit:
    """Several runs of one version as one: claims pooled, so each run weighs by its claim count."""
    judges = {a.judge for a in audits}
    costs = [a.cost_usd for a in audits]
    return Audit(
        label=label,
        paths=[p for a in audits for p in a.paths],
        verifier=audits[0].verifier if len(judges) == 1 else "mixed",
        verifier_settings=audits[0].verifier_settings if len(judges) == 1 else {"mixed": sorted(judges)},
        claims=[c for a in audits for c in a.claims],
        failed=sum(a.failed for a in audits),
        calls=sum(a.calls for a in audits),
        cached_calls=sum(a.cached_calls for a in audits),
        cost_usd=None if any(c is None for c in costs) else sum(c or 0.0 for c in costs),
        index_audit=all(a.index_audit for a in audits),
    )
