"""Interrupting a real `veritrail audit-index` process, as a user's terminal or a CI runner does:
the project it audits, the process, its checkpoint, and a signal sent at a chosen point.

Used by `tests/cli/test_interrupt.py` (does it stop, keep and resume?) and by
`benchmarks/interrupt_latency.py` (how fast, at index scale?).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

SIGNAL_AT = """
import importlib, os, signal, time
from pathlib import Path
module = importlib.import_module({module!r})
real = getattr(module, {function!r})
def signalled(*args, **kwargs):
    if not Path({sent!r}).exists():
        Path({sent!r}).write_text(str(time.monotonic()))
        os.kill(os.getpid(), signal.{number})
    return real(*args, **kwargs)
setattr(module, {function!r}, signalled)
from veritrail_graphrag.__main__ import main
main()
"""
"""A `veritrail` that sends itself `number` as `module.function` is first called, noting when in
the file `sent` (`time.monotonic()`, one clock for every process of the machine): a real signal at
a known point of a phase too short to hit from outside."""


def index_project(index: Path, root: Path, endpoint: str | None = None) -> Path:
    """A GraphRAG project at `root` with a copy of `index` as its `output/` (its parquet tables
    only); with `endpoint`, a settings.yaml whose chat model is served there."""
    shutil.copytree(index, root / "output", ignore=shutil.ignore_patterns("legacy", "*.csv", "README.md"))
    if endpoint is not None:
        (root / "settings.yaml").write_text(
            "completion_models:\n  default_completion_model:\n    model_provider: openai\n"
            f"    model: test-model\n    api_base: {endpoint}\n    api_key: not-a-real-key\n"
        )
    return root


def audit_folder(root: Path, name: str) -> Path:
    """Where `audit-index` writes the selection `name` (`index-audit-all`, ...) of project `root`."""
    return root / ("veritrail" if (root / "settings.yaml").exists() else "output/veritrail") / name


def checkpoint_lines(folder: Path) -> int:
    """Lines of the checkpoints in `folder`: a header, then one line per claim saved."""
    return sum(len(p.read_text().splitlines()) for p in folder.glob(".report.json.*.partial.jsonl"))


def start(
    root: Path, args: list[str], signal_at: str | None = None, number: str = "SIGINT"
) -> subprocess.Popen[str]:
    """`veritrail audit-index ROOT ARGS` in a process of its own, without the environment's model
    settings; with `signal_at` ("module:function"), sending itself `number` there, and noting when
    in `signal_file(root)`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERITRAIL_", "OPENAI_"))}
    command = [sys.executable, "-m", "veritrail_graphrag"]
    if signal_at is not None:
        module, function = signal_at.split(":")
        code = SIGNAL_AT.format(module=module, function=function, sent=str(signal_file(root)), number=number)
        command = [sys.executable, "-c", code]
    return subprocess.Popen(
        [*command, "audit-index", str(root), *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def signal_file(root: Path) -> Path:
    return root.parent / f"{root.name}.signal-sent"


def signal_sent(root: Path) -> float:
    """When the process started with `signal_at` sent its signal (`time.monotonic()`)."""
    return float(signal_file(root).read_text())
