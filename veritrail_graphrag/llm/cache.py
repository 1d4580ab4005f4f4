"""The answer cache: re-running an audit costs no calls, a new index version pays only for changes.

The key is a sha256 of a canonical JSON of everything that changes the answer (endpoint, model,
messages, response format, temperature, seed, output limit, sample index) and nothing that does
not (API key, timeouts, retry settings): see `request_payload`. Only answers that parsed
are stored, so a malformed answer is asked again next time instead of being replayed forever.

`SQLiteCache` uses WAL mode and a busy timeout, so several processes auditing at once can share
one file; `MemoryCache` is for tests and one-off runs.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from veritrail_graphrag.errors import LLMConfigError
from veritrail_graphrag.llm.completion import TokenLogprobs
from veritrail_graphrag.llm.config import LLMConfig
from veritrail_graphrag.llm.request import Prompt

CACHE_FORMAT = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    model TEXT NOT NULL,
    record TEXT NOT NULL,
    created_at REAL NOT NULL
)
"""


class CachedAnswer(BaseModel):
    """A stored answer with the usage it cost when it was first asked."""

    key: str
    kind: str
    model: str
    answer: str
    logprobs: list[TokenLogprobs] | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    estimated: bool = False
    created_at: float


def request_payload(
    config: LLMConfig,
    prompt: Prompt,
    sample: int,
    temperature: float,
    structured: bool,
    *,
    logprobs: int | None = None,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """Everything that changes the answer, and nothing else (no key, timeout or retry setting).

    `structured` is the configured wish and the payload holds the answer's schema, not the rung
    the endpoint accepted: the question is the same either way, and a re-run must find the
    answers of a run that stepped down the ladder.
    The same holds for `logprobs`. It is left out when not asked for, so that the keys of
    answers cached before it existed stay valid.
    """
    payload = {
        "endpoint": config.endpoint(),
        "model": config.model,
        "messages": [m.model_dump() for m in prompt.messages],
        "response_format": prompt.answer_schema if structured else None,
        "temperature": temperature,
        "seed": config.seed,
        "max_output_tokens": max_tokens or config.max_output_tokens,
        "sample": sample,
    }
    if logprobs is not None:
        payload["logprobs"] = logprobs
    return payload


def cache_key(payload: Mapping[str, Any]) -> str:
    canonical = json.dumps(
        {"cache_format": CACHE_FORMAT, **payload}, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache(ABC):
    @abstractmethod
    async def get(self, key: str) -> CachedAnswer | None: ...

    @abstractmethod
    async def put(self, record: CachedAnswer) -> None: ...

    @abstractmethod
    def close(self) -> None: ...


class MemoryCache(ResponseCache):
    def __init__(self) -> None:
        self._records: dict[str, CachedAnswer] = {}

    async def get(self, key: str) -> CachedAnswer | None:
        return self._records.get(key)

    async def put(self, record: CachedAnswer) -> None:
        self._records[record.key] = record

    def __len__(self) -> int:
        return len(self._records)

    def close(self) -> None:
        """Nothing to release: the answers live as long as the object."""


class SQLiteCache(ResponseCache):
    """One SQLite file. Calls run in a worker thread so a busy database never blocks the event loop."""

    def __init__(self, path: Path, busy_timeout: float = 60.0) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError):  # could not be opened or created
                raise LLMConfigError(
                    f"cannot open the LLM cache at {self.path}: {exc}; set cache_path to a writable "
                    "file or disable the cache (cache = false)"
                ) from exc
            raise LLMConfigError(  # opened, but not a database: damaged, or another file
                f"the LLM cache at {self.path} is damaged ({exc}): move it aside or delete it; it holds "
                "only model answers, which are then asked again"
            ) from exc
        except OSError as exc:
            raise LLMConfigError(
                f"cannot create the LLM cache's folder {self.path.parent}: {exc.strerror or exc}; set "
                "cache_path to a writable file or disable the cache (cache = false)"
            ) from exc
        self._lock = threading.Lock()

    def _get(self, key: str) -> CachedAnswer | None:
        with self._lock:
            row = self._db.execute("SELECT record FROM answers WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return CachedAnswer.model_validate_json(row[0])
        except ValidationError:
            return None

    def _put(self, record: CachedAnswer) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO answers (key, kind, model, record, created_at) VALUES (?, ?, ?, ?, ?)",
                (record.key, record.kind, record.model, record.model_dump_json(), record.created_at),
            )

    async def get(self, key: str) -> CachedAnswer | None:
        return await asyncio.to_thread(self._get, key)

    async def put(self, record: CachedAnswer) -> None:
        await asyncio.to_thread(self._put, record)

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
