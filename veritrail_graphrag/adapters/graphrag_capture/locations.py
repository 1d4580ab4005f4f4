"""Where captured query runs live: next to the index they were asked against."""

from __future__ import annotations

from pathlib import Path

QUERIES_DIR = Path("output") / "veritrail" / "queries"


def queries_dir(root: str | Path) -> Path:
    """`ROOT/output/veritrail/queries`: one folder per captured run."""
    return Path(root) / QUERIES_DIR


def run_dir(root: str | Path, run_id: str) -> Path:
    """`ROOT/output/veritrail/queries/<run_id>`, the folder `QueryRun.save` writes into."""
    return queries_dir(root) / run_id
