"""One audit at a time per report: an exclusive lock held from before the claims are extracted
until the report is written.

Two audits writing the same report would each end with the other's report on disk, and resume
from each other's checkpoints. The lock is `flock` on a hidden file beside the report, which the
kernel releases when the holder dies however it dies (kill -9 included), so a stale lock cannot
block the next run. The holder's pid is written into the file so the refused audit can name it.
The file is removed on release; a process that locked a file which was removed meanwhile (it
opened it just before the removal) sees that its file is no longer the one at the path and tries
again, so two holders are impossible.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from veritrail_graphrag.errors import OutputError, VeriTrailError


class OutputBusyError(VeriTrailError):
    """Another process is auditing into the same report (exit 2: run it again when that one ends)."""

    def __init__(self, report_path: Path, holder: str) -> None:
        super().__init__(
            f"another audit ({holder}) is writing {report_path.name} in this folder; wait for it to end "
            "(or stop it) and run this command again",
            file=report_path.parent,
        )
        self.holder = holder


def lock_path(report_path: Path) -> Path:
    return report_path.with_name(f".{report_path.name}.lock")


class OutputLock:
    """`with OutputLock(report_path):` holds the report for this process or raises `OutputBusyError`
    at once (no waiting: the other audit may run for hours)."""

    def __init__(self, report_path: Path) -> None:
        self.report_path = report_path
        self.path = lock_path(report_path)
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            while self._fd is None:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    holder = os.read(fd, 200).decode("utf-8", "replace").strip()
                    os.close(fd)
                    raise OutputBusyError(self.report_path, holder or "pid unknown") from None
                if self._is_current(fd):
                    os.ftruncate(fd, 0)
                    os.write(fd, f"pid {os.getpid()}\n".encode())
                    self._fd = fd
                else:
                    os.close(fd)
        except OSError as exc:
            raise OutputError(f"cannot lock the report ({exc.strerror or exc})", file=self.path) from exc

    def _is_current(self, fd: int) -> bool:
        try:
            held, current = os.fstat(fd), os.stat(self.path)
        except FileNotFoundError:
            return False
        return (held.st_dev, held.st_ino) == (current.st_dev, current.st_ino)

    def release(self) -> None:
        if self._fd is None:
            return
        self.path.unlink(missing_ok=True)
        os.close(self._fd)  # closing the descriptor releases the flock
        self._fd = None

    def __enter__(self) -> OutputLock:
        self.acquire()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.release()
