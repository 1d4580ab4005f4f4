"""Run a GraphRAG global search the way `graphrag query --method global` does, and keep it.

The project's settings and index tables are loaded as GraphRAG's own CLI loads them (same config
loader, same storage and table provider, same three tables), the search runs through
`graphrag.api.global_search_streaming` with a `QueryRecorder` attached, and the run is saved
next to the index. GraphRAG resolves the relative paths of settings.yaml against the working
directory and its config loader changes into the project root; here that change is undone when
the capture ends, so the caller's working directory is the same before and after.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from veritrail_graphrag.adapters.graphrag import QueryRun, settings_fingerprint
from veritrail_graphrag.adapters.graphrag.layout import run_dir
from veritrail_graphrag.adapters.graphrag_capture.extra import GraphRAGMissingError
from veritrail_graphrag.errors import AdapterError
from veritrail_graphrag.files import atomic_write_text

if TYPE_CHECKING:
    from graphrag.config.models.graph_rag_config import GraphRagConfig

    from veritrail_graphrag.adapters.graphrag_capture.recorder import QueryRecorder

GLOBAL_SEARCH_TABLES = ("entities", "communities", "community_reports")
DEFAULT_RESPONSE_TYPE = "Multiple Paragraphs"
DEFAULT_COMMUNITY_LEVEL = 2


def load_project_config(root: Path, data_dir: Path | None = None) -> GraphRagConfig:
    """settings.yaml (and .env) of the project, with `--data`'s override of the output folder."""
    try:
        from graphrag.config.load_config import load_config
    except ModuleNotFoundError as exc:
        raise GraphRAGMissingError(exc.name) from exc
    overrides: dict[str, Any] = {}
    if data_dir is not None:
        overrides["output_storage"] = {"base_dir": str(data_dir)}
    try:
        return load_config(root_dir=root, cli_overrides=overrides)
    except (FileNotFoundError, ValueError) as exc:
        raise AdapterError(f"cannot load the GraphRAG settings ({exc})", file=root) from None


async def load_search_tables(config: GraphRagConfig, root: Path) -> dict[str, pd.DataFrame]:
    """The tables global search reads, through the storage and table provider the config names."""
    from graphrag.data_model.data_reader import DataReader
    from graphrag_storage import create_storage
    from graphrag_storage.tables.table_provider_factory import create_table_provider

    reader = DataReader(create_table_provider(config.table_provider, storage=create_storage(config.output_storage)))
    tables: dict[str, pd.DataFrame] = {}
    for name in GLOBAL_SEARCH_TABLES:
        try:
            tables[name] = await getattr(reader, name)()
        except (OSError, ValueError) as exc:
            raise AdapterError(
                f"cannot read the index table {name!r} from {config.output_storage.base_dir!r} ({exc}); "
                "run `graphrag index` first",
                file=root,
            ) from None
    return tables


async def capture_global_search(
    root: str | Path,
    query: str,
    *,
    response_type: str = DEFAULT_RESPONSE_TYPE,
    community_level: int | None = DEFAULT_COMMUNITY_LEVEL,
    dynamic_community_selection: bool = False,
    data_dir: str | Path | None = None,
    run_id: str | None = None,
    on_token: Callable[[str], None] | None = None,
    verbose: bool = False,
) -> QueryRun:
    """Ask `query` of the GraphRAG project at `root` by global search; save and return the run.

    Defaults are `graphrag query`'s. Prints nothing: `on_token` receives the answer as it streams
    (GraphRAG's own logs go to the project's reporting folder, `logs/query.log` by default). The
    run is written to `ROOT/output/veritrail/queries/<run_id>/query_run.json`.
    """
    from veritrail_graphrag.adapters.graphrag_capture.recorder import QueryRecorder, new_run_id

    try:
        import graphrag.api as api
    except ModuleNotFoundError as exc:
        raise GraphRAGMissingError(exc.name) from exc

    root = Path(root).resolve()
    if not root.is_dir():
        raise AdapterError("no such folder (give the GraphRAG project root, where settings.yaml is)", file=root)
    data = Path(data_dir).resolve() if data_dir is not None else None
    chunks: list[str] = []
    with contextlib.chdir(root):
        config = load_project_config(root, data)
        tables = await load_search_tables(config, root)
        recorder = QueryRecorder(query, community_level=community_level, config=config)
        stream = api.global_search_streaming(
            config=config,
            entities=tables["entities"],
            communities=tables["communities"],
            community_reports=tables["community_reports"],
            community_level=community_level,
            dynamic_community_selection=dynamic_community_selection,
            response_type=response_type,
            query=query,
            callbacks=[recorder],
            verbose=verbose,
        )
        async for chunk in stream:
            chunks.append(chunk)
            if on_token is not None:
                on_token(chunk)
    run_id = run_id or new_run_id()
    try:
        run = recorder.to_query_run(
            final_answer="".join(chunks),
            run_id=run_id,
            settings_fingerprint=settings_fingerprint(root),
            notes=f"response_type={response_type!r}, dynamic_community_selection={dynamic_community_selection}",
        )
    except AdapterError as exc:
        raw = _save_raw(run_dir(root, run_id), query, "".join(chunks), recorder)
        raise AdapterError(f"{exc} (the search was paid for: what GraphRAG returned is kept in {raw})") from None
    run.save(run_dir(root, run.run_id))
    return run


def _save_raw(folder: Path, query: str, answer: str, recorder: QueryRecorder) -> Path:
    """Keep a search whose map step could not be read, so nothing paid for is lost."""
    raw = {
        "query": query,
        "final_answer": answer,
        "map_contexts": recorder.contexts,
        "map_responses": [str(result.response) for result in recorder.map_results],
    }
    path = folder / "raw_capture.json"
    atomic_write_text(path, json.dumps(raw, indent=1, default=str))
    return path
