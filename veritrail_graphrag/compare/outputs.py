"""compare.json, compare.md and the chart, written together: what `veritrail compare` and the
audit after a `graphrag update` leave in their folder."""

from __future__ import annotations

from pathlib import Path

from veritrail_graphrag.compare.audits import Audit
from veritrail_graphrag.compare.compute import Comparison, compare
from veritrail_graphrag.compare.render import render_chart, render_markdown
from veritrail_graphrag.files import Content, write_together

CHART = "compare.png"


def write_comparison(audits: list[Audit], out: Path) -> tuple[Comparison, list[Path]]:
    """Compare `audits` and write the files into `out` (all or none); returns them and their paths."""
    comparison = compare(audits)
    chart = CHART if comparison.stages else None
    files: list[tuple[Path, Content]] = [
        (out / "compare.json", comparison.model_dump_json(indent=1).encode()),
        (out / "compare.md", render_markdown(comparison, chart).encode()),
    ]
    if chart is not None:
        files.append((out / chart, render_chart(comparison)))
    write_together(files)
    return comparison, [path for path, _ in files]
