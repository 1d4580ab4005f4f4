"""Every file of an audit's report folder, written together: all new or all as they were."""

from __future__ import annotations

from pathlib import Path

from veritrail_graphrag.files import Content, write_together
from veritrail_graphrag.report.html import write_html
from veritrail_graphrag.report.markdown import MD_LIMIT, render_markdown
from veritrail_graphrag.report.model import AuditReport
from veritrail_graphrag.report.tables import (
    CLAIMS_SCHEMA,
    EVIDENCE_FILE,
    EVIDENCE_SCHEMA,
    claims_table,
    evidence_batches,
    write_parquet,
)


def write_outputs(report: AuditReport, report_path: Path, markdown_path: Path | None, md_limit: int = MD_LIMIT) -> None:
    """report.json; with `markdown_path`, the folder's other readings too: report.md, report.html
    beside it, claims.parquet and evidence.parquet beside report.json, which then holds the sentence
    texts for report.json. All new or all as they were."""
    if markdown_path is None:
        write_together([(report_path, report.write_json)])
        return
    folder = report_path.parent
    files: list[tuple[Path, Content]] = [
        (report_path, lambda out: report.write_json(out, texts_in=EVIDENCE_FILE)),
        (markdown_path, render_markdown(report, md_limit).encode()),
        (markdown_path.with_suffix(".html"), lambda out: write_html(report, out)),
        (folder / "claims.parquet", lambda out: write_parquet(claims_table(report).to_batches(), CLAIMS_SCHEMA, out)),
        (folder / EVIDENCE_FILE, lambda out: write_parquet(evidence_batches(report), EVIDENCE_SCHEMA, out)),
    ]
    write_together(files)
