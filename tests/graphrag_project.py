"""The tiny GraphRAG project (tests/data/graphrag_tiny) indexed offline by GraphRAG 3.3 itself.

The standard pipeline runs as `graphrag index` does, with the scripted completion model of
`graphrag_mock.py` and GraphRAG's mock embeddings. `settings` merges extra settings.yaml
sections into the copy (e.g. claim extraction), so each test module indexes the project it needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

# litellm fetches its model price list from the internet when first imported, unless told not to.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

TINY = Path(__file__).parent / "data" / "graphrag_tiny"


def warm_up_outside_memory_tracing(encoding: str) -> None:
    """GraphRAG runs each workflow under tracemalloc, which makes the first import of the vector
    store and the first load of the tokenizer ~10x slower (5 s of a 6 s index); doing both
    beforehand leaves the pipeline itself under a second."""
    import lancedb  # noqa: F401
    import tiktoken

    tiktoken.get_encoding(encoding)


def index_project(root: Path, *, update: bool = False) -> None:
    """`graphrag index` (or `graphrag update`) of the project at `root`, failing on any workflow error."""
    import graphrag.api as api
    import graphrag_mock
    from graphrag.config.load_config import load_config

    graphrag_mock.register()
    with contextlib.chdir(root):
        config = load_config(root_dir=root)
        warm_up_outside_memory_tracing(config.chunking.encoding_model)
        results = asyncio.run(api.build_index(config=config, is_update_run=update))
    assert [(r.workflow, r.error) for r in results if r.error is not None] == []


def tiny_project(root: Path, settings: dict[str, Any] | None = None) -> Path:
    """A copy of the tiny project at `root` with `settings` merged in, indexed."""
    shutil.copytree(TINY, root)
    if settings:
        path = root / "settings.yaml"
        path.write_text(yaml.safe_dump({**yaml.safe_load(path.read_text()), **settings}), encoding="utf-8")
    index_project(root)
    return root


def output_table(root: Path, name: str) -> pd.DataFrame:
    return pd.read_parquet(root / "output" / f"{name}.parquet")
