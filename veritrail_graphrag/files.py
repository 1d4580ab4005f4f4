"""File I/O at the edges: atomic writes (a report is complete on disk or absent, never half
written; a report's files are all new or all as they were) and strict reads whose errors name
the file."""

from __future__ import annotations

import errno
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from veritrail_graphrag import interruption
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
    write_together([(path, data)])


Content = bytes | Callable[[BinaryIO], None]
"""A file's bytes, or a function that writes them to an open binary file (e.g. a parquet table)."""


def write_together(files: Sequence[tuple[Path, Content]]) -> None:
    """Write several files so that none is replaced unless all could be written: a report and the
    pages and tables beside it are never from two runs, or half there.

    Every file is first written to a temp file beside it and fsynced; only then are they renamed
    over their paths. A failure before the renames (or a stop asked for: `interruption`) removes the
    temps and leaves the old files as they were; a rename failing midway (which the checks before make unlikely) removes the files
    already renamed too, so what is left is never a mix. `OutputError` names the file and the OS
    error (no space left, permission denied, is a folder)."""
    temps: list[tuple[Path, Path]] = []
    current = files[0][0] if files else Path()
    try:
        for current, content in files:
            interruption.check()  # a stop asked for while writing: nothing replaced, the checkpoint kept
            temps.append((_write_temp(current, content), current))
        placed: list[Path] = []
        try:
            for tmp, current in temps:
                os.replace(tmp, current)
                placed.append(current)
        except BaseException:
            for path in placed:
                path.unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise OutputError(f"not writable ({exc.strerror or exc})", file=current) from exc
    finally:
        for tmp, _ in temps:
            tmp.unlink(missing_ok=True)


def _write_temp(path: Path, content: Content) -> Path:
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp's 0600 would survive the rename
        with os.fdopen(fd, "wb") as handle:
            if isinstance(content, bytes):
                handle.write(content)
            else:
                content(handle)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def writable_folder(folder: Path) -> str | None:
    """Why files cannot be written into `folder` (created if missing), or None when they can: tried
    for real with a temp file, so a read-only mount, a file in the folder's place or a full quota
    show before an audit pays for anything, not after it."""
    try:
        if folder.exists() and not folder.is_dir():
            return "a file, not a folder"
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".veritrail-probe.", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


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
