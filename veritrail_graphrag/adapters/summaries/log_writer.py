"""`SummaryLog`: the helper a summarizer calls to append its texts to a `veritrail-summary-log`.

Each record is one line, written with one unbuffered `write` on an O_APPEND descriptor and then
fsynced, so a crash loses at most the record being written. Mistakes are caught at
write time (unknown inputs, duplicate ids, empty texts), while the run that made them is still
running, instead of when someone audits it later.
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError

from veritrail_graphrag.adapters.summaries.log_format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    LogHeader,
    MetadataRecord,
    QuestionRecord,
    TextRecord,
    derive_stage,
)
from veritrail_graphrag.adapters.summaries.log_reader import (
    TornLineWarning,
    read_summary_log,
    scan_log,
)
from veritrail_graphrag.errors import AdapterError


class SummaryLog:
    """Append-only writer. `with SummaryLog(path) as log: log.source(...); log.summary(...)`.

    A new log refuses an existing file (two runs mixed in one log cannot be told apart); pass
    `resume=True` to continue a log after a crash: an incomplete last line is cut off first.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        metadata: Mapping[str, Any] | None = None,
        resume: bool = False,
    ) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._texts: dict[str, str] = {}
        self._stages: dict[str, int] = {}
        exists = self.path.exists() and self.path.stat().st_size > 0
        if exists and not resume:
            raise AdapterError("the log already exists; pass resume=True to append to it", file=self.path)
        if exists:
            self._load_existing()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        if not exists:
            created = datetime.now(UTC).isoformat(timespec="seconds")
            header = LogHeader(
                format=FORMAT_NAME, version=FORMAT_VERSION, created_at=created, metadata=dict(metadata or {})
            )
            self._append(header)
        elif metadata:
            self._append(MetadataRecord(type="metadata", metadata=dict(metadata)))

    def _load_existing(self) -> None:
        """Remember the logged texts (inputs may name them) and cut a torn last line off."""
        scan = scan_log(self.path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TornLineWarning)
            dag = read_summary_log(self.path)
        self._texts = {node.id: node.text for node in dag}
        self._stages = {node.id: node.stage for node in dag}
        if scan.torn_line is not None:
            warnings.warn(
                f"{self.path}, line {scan.torn_line}: incomplete last line removed before resuming",
                TornLineWarning,
                stacklevel=3,
            )
            os.truncate(self.path, scan.complete_bytes)
        if not scan.ends_with_newline:
            with self.path.open("ab") as handle:
                handle.write(b"\n")

    @property
    def texts(self) -> Mapping[str, str]:
        """Every text logged so far by id (capture helpers match prompts against them)."""
        return dict(self._texts)

    def source(
        self,
        id: str,
        text: str,
        *,
        kind: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> str:
        """Log a source chunk (a root, stage 1). Returns the id for use in `inputs`."""
        return self._text(self._record(id=id, text=text, kind=kind, metadata=dict(metadata or {})))

    def summary(
        self,
        id: str,
        text: str,
        inputs: Sequence[str],
        *,
        stage: int | None = None,
        kind: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> str:
        """Log a text made from `inputs` (already logged ids). Returns the id."""
        if not inputs:
            raise AdapterError(f"summary {id!r} has no inputs; log sources with source()", file=self.path)
        record = self._record(
            id=id, text=text, inputs=list(inputs), stage=stage, kind=kind, metadata=dict(metadata or {})
        )
        return self._text(record)

    def _record(self, **fields: Any) -> TextRecord:
        try:
            return TextRecord(**fields)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise AdapterError(f"record {fields.get('id')!r}: {problems}", file=self.path) from None

    def question(self, text: str) -> None:
        """Log the question a query-focused summary answers (context for claim extraction)."""
        if not text.strip():
            raise AdapterError("the question is empty", file=self.path)
        self._append(QuestionRecord(type="question", text=text))

    def add_metadata(self, metadata: Mapping[str, Any]) -> None:
        """Log run facts known only later (model, cost...); readers merge them in file order."""
        self._append(MetadataRecord(type="metadata", metadata=dict(metadata)))

    def _text(self, record: TextRecord) -> str:
        where = f"{self.path}: record {record.id!r}"
        if not record.id.strip():
            raise AdapterError("a record has a blank id", file=self.path)
        if not record.text.strip():
            raise AdapterError(f"{where} has empty text")
        with self._lock:
            if record.id in self._texts:
                raise AdapterError("the id is already logged", file=where)
            unknown = [i for i in record.inputs if i not in self._stages]
            if unknown:
                raise AdapterError(
                    f"{where} names input(s) not logged yet: {', '.join(map(repr, unknown))} "
                    "(log a text before the summaries that use it)"
                )
            try:
                stage = derive_stage([self._stages[i] for i in record.inputs], record.stage)
            except ValueError as exc:
                raise AdapterError(f"{exc}", file=where) from None
            self._write(record)
            self._texts[record.id] = record.text
            self._stages[record.id] = stage
        return record.id

    def _append(self, record: BaseModel) -> None:
        with self._lock:
            self._write(record)

    def _write(self, record: BaseModel) -> None:
        if self._fd is None:
            raise AdapterError("the log is closed", file=self.path)
        try:
            payload = record.model_dump(mode="json", exclude_none=True)
            if not payload.get("metadata", True):
                del payload["metadata"]
            line = json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n"
        except (TypeError, ValueError, PydanticSerializationError) as exc:
            who = f"record {record.id!r}" if isinstance(record, TextRecord) else "a record"
            raise AdapterError(f"{who} cannot be written as JSON: {exc}", file=self.path) from None
        data = line.encode("utf-8")
        written = 0
        while written < len(data):
            written += os.write(self._fd, data[written:])
        os.fsync(self._fd)

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> SummaryLog:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
