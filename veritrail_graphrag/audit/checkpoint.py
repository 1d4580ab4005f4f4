"""The checkpoint of an audit: finished claims, one JSON line each, beside the report.

A line is the claim's record as report.json version 2 stores it (`report/records.py`): ids, whose
texts come back from the DAG on resume.

Each finished claim is appended (flushed and fsynced), so a crash, Ctrl-C or kill loses at most
the claims that were in flight. A re-run with the same DAG, terminal, verifier and settings (the
key, in the file's name and its first line) takes those claims from here instead of verifying
them again. Audits with other settings have other files, so their claims are never mixed: an
interrupted audit's checkpoint survives a run with other settings into the same folder, and only
the process holding the report's lock (`output_lock.py`) writes one.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel, ValidationError

from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.errors import DagError, OutputError
from veritrail_graphrag.files import atomic_write_text
from veritrail_graphrag.models import TrailConfig
from veritrail_graphrag.report.records import ClaimRecord, DagTexts, from_record, to_record


class CheckpointHeader(BaseModel):
    """First line of a checkpoint: what the finished claims were computed for."""

    checkpoint: str = "veritrail-audit"
    key: str


def audit_key(
    dag: DAG, terminal: str | Mapping[str, str], verifier: str, settings: Mapping[str, Any], config: TrailConfig
) -> str:
    """Fingerprint of everything that changes a claim's result except the claim itself: the DAG,
    the terminal(s), the verifier and its settings, the traversal settings (not concurrency)."""
    digest = hashlib.sha256()
    where = terminal if isinstance(terminal, str) else json.dumps(sorted(terminal.items()))
    traversal = config.model_dump_json(exclude={"concurrency"})
    for part in (where, verifier, json.dumps(settings, sort_keys=True), traversal):
        digest.update(part.encode())
        digest.update(b"\0")
    digest.update(dag.fingerprint().encode())
    return digest.hexdigest()


class Checkpoint:
    """Append-only JSONL of finished claims; torn or foreign lines are ignored, never trusted.

    Appends go through the handle opened by `start`: if the file were replaced behind our back,
    they would land in the file this audit started, never in another one."""

    def __init__(self, report_path: Path, key: str) -> None:
        self.path = checkpoint_path(report_path, key)
        self.key = key
        self._handle: TextIO | None = None

    def load(self, dag: DAG) -> dict[str, ClaimResult]:
        """The finished claims, texts resolved from `dag` (the key guarantees it is theirs)."""
        if not self.path.exists():
            return {}
        lines = self.path.read_text(encoding="utf-8", errors="replace").splitlines()
        try:
            header = CheckpointHeader.model_validate_json(lines[0]) if lines else None
        except ValidationError:
            header = None
        if header is None or header.key != self.key:
            return {}
        done: dict[str, ClaimResult] = {}
        for line in lines[1:]:
            try:
                result = from_record(ClaimRecord.model_validate_json(line), DagTexts(dag))
            except (ValidationError, ValueError, IndexError, DagError):
                continue
            done[result.claim.id] = result
        return done

    def start(self, keep: bool) -> None:
        """Begin a checkpoint (or continue a matching one when `keep`)."""
        if keep and self.path.exists():
            self._drop_torn_tail()
        else:
            atomic_write_text(self.path, CheckpointHeader(key=self.key).model_dump_json() + "\n")
        try:
            self._handle = self.path.open("a", encoding="utf-8")
        except OSError as exc:
            raise OutputError(f"not writable ({exc.strerror or exc})", file=self.path) from exc

    def _drop_torn_tail(self) -> None:
        """A kill mid-write leaves a line without its newline; appending after it would glue the
        next result onto the fragment, so cut back to the last complete line."""
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with self.path.open("r+b") as handle:
                handle.truncate(data.rfind(b"\n") + 1)

    def append(self, result: ClaimResult) -> None:
        if self._handle is None:
            raise RuntimeError("Checkpoint.append before start")
        try:
            self._handle.write(to_record(result).dump().decode() + "\n")
            self._handle.flush()
            os.fsync(self._handle.fileno())
        except OSError as exc:
            raise OutputError(f"not writable ({exc.strerror or exc})", file=self.path) from exc

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)


def checkpoint_path(report_path: Path, key: str) -> Path:
    """Hidden, beside the report it will become; one per settings key."""
    return report_path.with_name(f".{report_path.name}.{key[:16]}.partial.jsonl")
