"""Where the tests' data lives: the bundled sample runs, and the shared data beside the checkout.

The README's first command audits a sample in place, which leaves reports and checkpoints in its
folder; a test's copy must start without them.

`../shared` (benchmarks and real GraphRAG indexes) is not in every checkout: a test that needs
it is skipped there, but fails when `CI=true`, so CI can never pass by skipping it silently.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[1] / "sample_runs"
SHARED = Path(__file__).resolve().parents[2] / "shared"
GENERATED = shutil.ignore_patterns(
    "report.json", "report.md", "report.html", "claims.parquet", "evidence.parquet", ".*.partial.jsonl", ".*.lock",
    "index-audit*", "*.veritrail", "check-cited.json", "*.check-cited.json",
)  # fmt: skip


def copy_sample(name: str, target: Path) -> Path:
    shutil.copytree(SAMPLES / name, target, ignore=GENERATED)
    return target


def llm_sample(root: Path, url: str) -> Path:
    """A copy of the GraphRAG sample whose settings.yaml names `url` (the fake OpenAI server)."""
    copy_sample("graphrag-christmas-carol", root)
    (root / "settings.yaml").write_text(
        "completion_models:\n  default_completion_model:\n    model_provider: openai\n"
        f"    model: test-model\n    api_base: {url}\n    api_key: not-a-real-key\n"
    )
    return root


def require_shared(*paths: Path) -> None:
    """Skip the calling test when a path under ../shared is missing; fail instead under CI=true."""
    missing = [str(p) for p in paths if not p.exists()]
    if not missing:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"shared data missing under CI=true (tests must not skip there): {', '.join(missing)}")
    pytest.skip(f"shared data missing: {', '.join(missing)}")


def needs_shared(*paths: Path) -> pytest.MarkDecorator:
    """Mark a test (or `pytestmark` a module) as needing these paths; `conftest.py` applies
    `require_shared` before it runs."""
    return pytest.mark.needs_shared(*paths)
