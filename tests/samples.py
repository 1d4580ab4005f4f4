"""Copies of the bundled sample runs for tests that write into them.

The README's first command audits a sample in place, which leaves reports and checkpoints in its
folder; a test's copy must start without them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[1] / "sample_runs"
GENERATED = shutil.ignore_patterns("report.json", "report.md", ".*.partial.jsonl", "index-audit", "*.veritrail")


def copy_sample(name: str, target: Path) -> Path:
    shutil.copytree(SAMPLES / name, target, ignore=GENERATED)
    return target
