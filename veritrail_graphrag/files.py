"""File I/O at the edges: atomic writes (a report is complete on disk or absent, never half
written) and strict reads whose errors name the file."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from veritrail_graphrag.errors import OutputError, VeriTrailError


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def atomic_write_text(path: Path, text: str) -> None:
    """Write to a temp file in the same folder, fsync, then rename over `path`; `OutputError`
    naming the file when the folder or the file cannot be written."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """`atomic_write_text` for bytes (images, tables)."""
    try:
        _atomic_write(path, data)
    except OSError as exc:
        raise OutputError(f"not writable ({exc.strerror or exc})", file=path) from exc


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp's 0600 would survive the rename
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_text(path: Path, error: type[VeriTrailError]) -> str:
    """The file as UTF-8, or `error` naming the file (and the first byte that is not UTF-8)."""
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise error("no such file", file=path) from None
    except IsADirectoryError:
        raise error("is a folder, not a file", file=path) from None
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 (byte {exc.start} is {exc.object[exc.start]:#04x})", file=path) from None


def read_json(path: Path, error: type[VeriTrailError]) -> Any:
    """Parsed JSON, or `error` naming the file and the line and column of the problem."""
    try:
        return json.loads(read_text(path, error))
    except json.JSONDecodeError as exc:
        raise error(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", file=path) from None
