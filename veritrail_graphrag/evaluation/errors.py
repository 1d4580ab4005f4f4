"""Typed errors of the evaluation package; the CLI turns them into one line and exit code 2."""

from __future__ import annotations

from veritrail_graphrag.errors import VeriTrailError


class BenchmarkDataError(VeriTrailError):
    """Benchmark data is missing or malformed: names the file (and record) and what to pass instead."""
