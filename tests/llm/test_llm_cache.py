"""The SQLite answer cache: WAL mode, persistence, and several processes writing at once."""

from __future__ import annotations

import asyncio
import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from veritrail_graphrag.errors import LLMConfigError
from veritrail_graphrag.llm.cache import CachedAnswer, SQLiteCache, cache_key


def record(key: str, answer: str = "{}") -> CachedAnswer:
    return CachedAnswer(key=key, kind="verdict", model="m", answer=answer, input_tokens=3, created_at=0.0)


def test_key_is_canonical_json() -> None:
    assert cache_key({"a": 1, "b": [1, 2]}) == cache_key({"b": [1, 2], "a": 1})
    assert cache_key({"a": 1}) != cache_key({"a": 2})
    assert len(cache_key({})) == 64


async def test_round_trip_and_persistence(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "cache.sqlite"
    cache = SQLiteCache(path)
    assert await cache.get("k") is None
    await cache.put(record("k", "answer"))
    await cache.put(record("k", "newer"))
    cache.close()
    reopened = SQLiteCache(path)
    hit = await reopened.get("k")
    assert hit is not None and hit.answer == "newer" and hit.input_tokens == 3
    assert len(reopened) == 1
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    reopened.close()


async def test_unreadable_record_is_a_miss(tmp_path: Path) -> None:
    cache = SQLiteCache(tmp_path / "c.sqlite")
    db = sqlite3.connect(tmp_path / "c.sqlite")
    db.execute("INSERT INTO answers VALUES ('bad', 'verdict', 'm', 'not json', 0)")
    db.commit()
    assert await cache.get("bad") is None
    cache.close()


def _writer(path: str, worker: int, count: int) -> None:
    async def run() -> None:
        cache = SQLiteCache(Path(path))
        for i in range(count):
            await cache.put(record(f"{worker}-{i}"))
            await cache.get(f"{(worker + 1) % 4}-{i}")
        cache.close()

    asyncio.run(run())


def test_concurrent_writers_in_several_processes(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(str(path), w, 150)) for w in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=60)
    assert [p.exitcode for p in workers] == [0, 0, 0, 0]
    cache = SQLiteCache(path)
    assert len(cache) == 600
    cache.close()


def test_a_damaged_cache_file_says_to_move_it_aside(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"this is not a database, only a file that took its name" * 40)
    with pytest.raises(LLMConfigError, match=r"is damaged .*: move it aside or delete it"):
        SQLiteCache(path)
