"""`QueryRecorder`: a GraphRAG query callback that keeps what a search showed the model.

`graphrag query` prints the answer and throws away what it was built from. The recorder listens
to GraphRAG 3.3's query callbacks and keeps all it hears: `on_context` (every call, never just
the last), `on_llm_new_token`, the map calls' contexts and answers (global search), the action
graph and reduce answer (DRIFT), and the reports DRIFT's primer read (told by
`searches.drift_search.watch_primers`, since no callback reports them). Which method it heard, and
what of it becomes the `QueryRun`, is each method's own module in `searches/`.

A recorder serves one search. Nothing is checked while GraphRAG runs (an exception inside a
callback would abort the user's search); `to_query_run` checks everything and raises
`AdapterError` naming what does not fit.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from veritrail_graphrag.adapters.graphrag import Method, QueryRun
from veritrail_graphrag.adapters.graphrag import settings_fingerprint as project_fingerprint
from veritrail_graphrag.adapters.graphrag.layout import run_dir
from veritrail_graphrag.adapters.graphrag_capture.extra import GraphRAGMissingError
from veritrail_graphrag.adapters.graphrag_capture.searches import SEARCHES
from veritrail_graphrag.errors import AdapterError
from veritrail_graphrag.files import atomic_write_text

try:
    from graphrag.callbacks.query_callbacks import QueryCallbacks
except ModuleNotFoundError as exc:
    raise GraphRAGMissingError(exc.name) from exc

if TYPE_CHECKING:
    from graphrag.config.models.graph_rag_config import GraphRagConfig
    from graphrag.query.structured_search.base import SearchResult


def new_run_id() -> str:
    """Sortable by time, unique without coordination: `20260109T101500Z-3f9a1c2e`."""
    return f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}"


def _graphrag_version() -> str:
    try:
        return version("graphrag")
    except PackageNotFoundError:
        return "unknown"


class QueryRecorder(QueryCallbacks):
    """Records one GraphRAG search (any method); pass it in `callbacks=[...]`, then `save`.

    `method` is checked against what GraphRAG reported, and inferred when not given. `config`
    (the `GraphRagConfig` the search ran with) is optional: with it, key points that global
    search's reduce step had to leave out for lack of tokens are named in the run's notes. Batch
    `i` of a global run is the map call GraphRAG shows reduce as "Analyst i+1".

        recorder = QueryRecorder(question, method="local", community_level=2, config=config)
        answer, _ = await graphrag.api.local_search(..., query=question, callbacks=[recorder])
        folder = recorder.save(project_root, final_answer=answer)  # veritrail/queries/<id>/
    """

    def __init__(
        self,
        query: str,
        *,
        method: Method | None = None,
        community_level: int | None = None,
        config: GraphRagConfig | None = None,
        column_delimiter: str = "|",
    ) -> None:
        for search in SEARCHES.values():
            if search.prepare is not None:
                search.prepare()
        self.query = query
        self.method = method
        self.community_level = community_level
        self.config = config
        self.column_delimiter = column_delimiter
        self.map_starts = 0
        self.map_contexts: list[str] = []
        self.map_results: list[SearchResult] = []
        self.contexts: list[Any] = []
        self.action_graphs: list[dict[str, Any]] = []
        self.primer_context: Any = None
        self.tokens: list[str] = []
        self.reduce_output: str | None = None

    def on_map_response_start(self, map_response_contexts: list[str]) -> None:
        self.map_starts += 1
        self.map_contexts = [str(context) for context in map_response_contexts]

    def on_map_response_end(self, map_response_outputs: list[SearchResult]) -> None:
        self.map_results = list(map_response_outputs)

    def on_context(self, context: Any) -> None:
        self.contexts.append(context)

    def on_reduce_response_start(self, reduce_response_context: str | dict[str, Any]) -> None:
        if isinstance(reduce_response_context, dict) and "nodes" in reduce_response_context:
            self.action_graphs.append(reduce_response_context)

    def on_reduce_response_end(self, reduce_response_output: str) -> None:
        self.reduce_output = reduce_response_output

    def on_llm_new_token(self, token: str) -> None:
        self.tokens.append(token or "")

    def on_drift_primer(self, context_data: Any) -> None:
        """The primer's search result context (`{"top_k_reports": frame}`), from `drift_search.watch_primers`."""
        self.primer_context = context_data

    @property
    def streamed_answer(self) -> str:
        """The tokens streamed so far (for DRIFT they mix follow-up answers with the final one)."""
        return "".join(self.tokens)

    def heard_method(self) -> Method:
        """The search method, from the callbacks GraphRAG made (checked against `method` if given)."""
        heard = next((name for name, search in SEARCHES.items() if search.heard(self)), None)
        if heard is None:
            raise AdapterError("the recorder heard no search; pass it in callbacks=[...] of the search")
        if self.method is not None and self.method != heard:
            raise AdapterError(f"the recorder was made for a {self.method} search but heard a {heard} search")
        return heard

    def to_query_run(
        self,
        *,
        final_answer: str | None = None,
        run_id: str | None = None,
        settings_fingerprint: str | None = None,
        notes: str = "",
    ) -> QueryRun:
        """The recorded search as a `QueryRun`.

        `final_answer` defaults to the answer GraphRAG streamed or reported (DRIFT: the reduce
        answer); pass what GraphRAG returned when it answered without a model call (global search
        with no key point scored above 0).
        """
        method = self.heard_method()
        streamed = self.streamed_answer if method != "drift" else ""
        answer = final_answer if final_answer is not None else streamed or self.reduce_output or ""
        if not answer.strip():
            raise AdapterError("no final answer was recorded; pass final_answer=<the text GraphRAG returned>")
        recorded = SEARCHES[method].record(self)
        note_parts = [f"captured from graphrag {_graphrag_version()} {method} search", notes, recorded.note]
        return QueryRun(
            run_id=run_id or new_run_id(),
            query=self.query,
            method=method,
            community_level=self.community_level if method != "basic" else None,
            settings_fingerprint=settings_fingerprint,
            notes="; ".join(part for part in note_parts if part),
            final_answer=answer,
            **recorded.parts,
        )

    def raw(self, final_answer: str) -> dict[str, Any]:
        """Everything heard, as JSON values: kept when a paid search cannot be turned into a run."""

        def tables(value: Any) -> Any:
            if isinstance(value, pd.DataFrame):
                return json.loads(value.to_json(orient="records"))
            if isinstance(value, dict):
                return {str(k): tables(v) for k, v in value.items()}
            if isinstance(value, list):
                return [tables(v) for v in value]
            return value if isinstance(value, str | int | float | bool) or value is None else str(value)

        return {
            "query": self.query,
            "method": self.method,
            "final_answer": final_answer,
            "map_contexts": self.map_contexts,
            "map_responses": [str(result.response) for result in self.map_results],
            "contexts": tables(self.contexts),
            "action_graphs": tables(self.action_graphs),
            "primer_context": tables(self.primer_context),
        }

    def save(
        self, root: str | Path, *, final_answer: str | None = None, run_id: str | None = None, notes: str = ""
    ) -> Path:
        """Write the run to `ROOT/veritrail/queries/<run-id>/query_run.json`; returns that folder.

        `root` is the GraphRAG project root; its settings.yaml fingerprint is stored with the run.
        A search that cannot be turned into a run was still paid for: everything heard is kept in
        that folder's `raw_capture.json` before the `AdapterError` is raised.
        """
        run_id = run_id or new_run_id()
        folder = run_dir(root, run_id)
        try:
            run = self.to_query_run(
                final_answer=final_answer, run_id=run_id, settings_fingerprint=project_fingerprint(root), notes=notes
            )
        except AdapterError as exc:
            raw = folder / "raw_capture.json"
            atomic_write_text(raw, json.dumps(self.raw(final_answer or ""), indent=1, default=str))
            raise AdapterError(f"{exc} (the search was paid for: what GraphRAG returned is kept in {raw})") from None
        run.save(folder)
        return folder
