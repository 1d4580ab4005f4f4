"""Run a GraphRAG search the way `graphrag query --method <method>` does, and keep it.

The project's settings and index tables are loaded as GraphRAG's own CLI loads them (same config
loader, same storage and table provider, the same tables per method, covariates optional), the
search runs through `graphrag.api.<method>_search_streaming` with a `QueryRecorder` attached, and
the run is saved next to the index. GraphRAG resolves the relative paths of settings.yaml against
the working directory and its config loader changes into the project root; here that change is
undone when the capture ends, so the caller's working directory is the same before and after.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veritrail_graphrag.adapters.graphrag import Method, QueryRun
from veritrail_graphrag.adapters.graphrag_capture.extra import GraphRAGMissingError
from veritrail_graphrag.adapters.graphrag_capture.failures import watch_model_calls
from veritrail_graphrag.adapters.graphrag_capture.searches import SEARCHES
from veritrail_graphrag.errors import AdapterError

if TYPE_CHECKING:
    from graphrag.config.models.graph_rag_config import GraphRagConfig


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


async def load_search_tables(config: GraphRagConfig, root: Path, method: Method = "global") -> dict[str, Any]:
    """The tables a search method reads, through the storage and table provider the config names;
    an optional table the index lacks is None, as in `graphrag query`."""
    from graphrag.data_model.data_reader import DataReader
    from graphrag_storage import create_storage
    from graphrag_storage.tables.table_provider_factory import create_table_provider

    provider = create_table_provider(config.table_provider, storage=create_storage(config.output_storage))
    reader = DataReader(provider)
    tables: dict[str, Any] = {}
    search = SEARCHES[method]
    for name in search.tables + search.optional_tables:
        if name in search.optional_tables and not await provider.has(name):
            tables[name] = None
            continue
        try:
            tables[name] = await getattr(reader, name)()
        except (OSError, ValueError) as exc:
            raise AdapterError(
                f"cannot read the index table {name!r} from {config.output_storage.base_dir!r} ({exc}); "
                "run `graphrag index` first",
                file=root,
            ) from None
    return tables


def query_log(root: Path, config: GraphRagConfig) -> Path | None:
    """The file GraphRAG logs a search to (`logs/query.log` by default), when it logs to files."""
    reporting = config.reporting
    return root / reporting.base_dir / "query.log" if reporting.type == "file" else None


async def capture_search(
    root: str | Path,
    query: str,
    *,
    method: Method = "global",
    response_type: str = DEFAULT_RESPONSE_TYPE,
    community_level: int = DEFAULT_COMMUNITY_LEVEL,
    dynamic_community_selection: bool = False,
    data_dir: str | Path | None = None,
    run_id: str | None = None,
    on_token: Callable[[str], None] | None = None,
    verbose: bool = False,
) -> QueryRun:
    """Ask `query` of the GraphRAG project at `root` with `method`; save and return the run.

    Defaults are `graphrag query`'s (`dynamic_community_selection` is for global search only).
    Prints nothing: `on_token` receives the answer as it streams (GraphRAG's own logs go to the
    project's reporting folder, `logs/query.log` by default). The run is written to
    `ROOT/veritrail/queries/<run_id>/query_run.json`. A search in which a model call failed for
    good raises `EndpointError` and saves nothing (see `failures.py`).
    """
    from veritrail_graphrag.adapters.graphrag_capture.recorder import QueryRecorder

    try:
        import graphrag.api as api
    except ModuleNotFoundError as exc:
        raise GraphRAGMissingError(exc.name) from exc

    root = Path(root).resolve()
    if not root.is_dir():
        raise AdapterError("no such folder (give the GraphRAG project root, where settings.yaml is)", file=root)
    data = Path(data_dir).resolve() if data_dir is not None else None
    chunks: list[str] = []
    with contextlib.chdir(root), watch_model_calls() as failures:
        config = load_project_config(root, data)
        tables = await load_search_tables(config, root, method)
        recorder = QueryRecorder(query, method=method, community_level=community_level, config=config)
        common = {"config": config, "query": query, "callbacks": [recorder], **tables}
        options = {
            "community_level": community_level,
            "dynamic_community_selection": dynamic_community_selection,
            "response_type": response_type,
            "verbose": verbose,
        }
        stream = SEARCHES[method].stream(api, common, options)
        log = query_log(root, config)
        try:
            async for chunk in stream:
                chunks.append(chunk)
                if on_token is not None:
                    on_token(chunk)
        except Exception:
            failures.check(
                f"GraphRAG's {method} search", "no query run was saved", log
            )  # the model's own exception, after GraphRAG's retries
            raise
        failures.check(f"GraphRAG's {method} search", "no query run was saved", log)
    notes = f"response_type={response_type!r}"
    if method == "global":
        notes += f", dynamic_community_selection={dynamic_community_selection}"
    return QueryRun.load(recorder.save(root, final_answer="".join(chunks), run_id=run_id, notes=notes))
