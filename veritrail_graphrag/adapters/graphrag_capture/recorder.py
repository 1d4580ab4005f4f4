"""`QueryRecorder`: a GraphRAG query callback that keeps what a global search did.

`graphrag query` prints the answer and throws away the map step: which reports each map call
read and the scored key points it returned. Those are stages 5 and 6 of the VeriTrail DAG, so
the recorder listens to GraphRAG's query callbacks and turns what it heard into a `QueryRun`:

- `on_map_response_start`: one context table per map batch, from which the batch's report ids
  (community numbers) are read;
- `on_map_response_end`: the key points (answer, score) of each batch, in batch order;
- `on_context`: the concatenated report records, used to check the batches were read right;
- `on_llm_new_token`: the streamed reduce answer (GraphRAG streams reduce even in `global_search`).

A recorder serves one query. Nothing is checked while GraphRAG runs (an exception inside a
callback would abort the user's search); `to_query_run` checks everything and raises
`AdapterError` naming what does not fit.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veritrail_graphrag.adapters.graphrag import MapAnswer, MapBatch, QueryRun
from veritrail_graphrag.adapters.graphrag import settings_fingerprint as project_fingerprint
from veritrail_graphrag.adapters.graphrag.layout import run_dir
from veritrail_graphrag.adapters.graphrag_capture.batches import batch_report_ids
from veritrail_graphrag.adapters.graphrag_capture.extra import GraphRAGMissingError
from veritrail_graphrag.adapters.graphrag_capture.reduce_budget import points_over_budget
from veritrail_graphrag.errors import AdapterError

try:
    from graphrag.callbacks.query_callbacks import QueryCallbacks
except ModuleNotFoundError as exc:
    raise GraphRAGMissingError(exc.name) from exc

if TYPE_CHECKING:
    import pandas as pd
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


def _key_points(response: Any) -> list[MapAnswer]:
    """A map call's points; GraphRAG's placeholder for an unparsable answer (empty text, score 0)
    is dropped, and a negative score is stored as 0: reduce ignores both the same way."""
    points: list[MapAnswer] = []
    for point in response if isinstance(response, list) else []:
        if not isinstance(point, dict):
            continue
        text = str(point.get("answer") or "")
        if not text.strip():
            continue
        points.append(MapAnswer(answer=text, score=max(float(point.get("score") or 0), 0.0)))
    return points


class QueryRecorder(QueryCallbacks):
    """Records one GraphRAG global search; pass it in `callbacks=[...]`, then `save` or `to_query_run`.

    `config` (the `GraphRagConfig` the search ran with) is optional: with it, key points that
    reduce had to leave out for lack of tokens are named in the run's notes. Batch `i` of the
    run is the map call GraphRAG shows reduce as "Analyst i+1".

        recorder = QueryRecorder(question, community_level=2, config=config)
        answer, _ = await graphrag.api.global_search(
            config=config, entities=entities, communities=communities, community_reports=reports,
            community_level=2, dynamic_community_selection=False,
            response_type="Multiple Paragraphs", query=question, callbacks=[recorder],
        )
        folder = recorder.save(project_root, final_answer=answer)  # output/veritrail/queries/<id>/
    """

    def __init__(
        self,
        query: str,
        *,
        community_level: int | None = None,
        config: GraphRagConfig | None = None,
        column_delimiter: str = "|",
    ) -> None:
        self.query = query
        self.community_level = community_level
        self.config = config
        self.column_delimiter = column_delimiter
        self.searches = 0
        self.contexts: list[str] = []
        self.map_results: list[SearchResult] = []
        self.report_records: pd.DataFrame | None = None
        self.tokens: list[str] = []
        self.reduce_output: str | None = None

    def on_map_response_start(self, map_response_contexts: list[str]) -> None:
        self.searches += 1
        self.contexts = [str(context) for context in map_response_contexts]

    def on_map_response_end(self, map_response_outputs: list[SearchResult]) -> None:
        self.map_results = list(map_response_outputs)

    def on_context(self, context: Any) -> None:
        if isinstance(context, dict) and "reports" in context:
            self.report_records = context["reports"]

    def on_reduce_response_end(self, reduce_response_output: str) -> None:
        self.reduce_output = reduce_response_output

    def on_llm_new_token(self, token: str) -> None:
        self.tokens.append(token or "")

    @property
    def streamed_answer(self) -> str:
        """The reduce answer as streamed so far ("" when reduce made no model call)."""
        return "".join(self.tokens)

    def batches(self) -> list[MapBatch]:
        """Each map batch with its reports and key points, in the order GraphRAG numbered them."""
        if self.searches > 1:
            raise AdapterError(f"one recorder heard {self.searches} searches; use one QueryRecorder per query")
        if len(self.map_results) != len(self.contexts):
            raise AdapterError(
                f"GraphRAG reported {len(self.contexts)} map contexts but {len(self.map_results)} map answers"
            )
        for index, (context, result) in enumerate(zip(self.contexts, self.map_results, strict=True)):
            if isinstance(result.context_data, str) and result.context_data != context:
                raise AdapterError(f"map answer {index} was computed from another context than map batch {index}")
        report_ids = batch_report_ids(self.contexts, self.report_records, delimiter=self.column_delimiter)
        return [
            MapBatch(index=index, report_ids=ids, answers=_key_points(result.response))
            for index, (ids, result) in enumerate(zip(report_ids, self.map_results, strict=True))
        ]

    def _left_out(self, batches: list[MapBatch]) -> list[str]:
        """Key points with score > 0 that did not fit reduce's token budget (needs the config)."""
        if self.config is None:
            return []
        from graphrag.tokenizer.get_tokenizer import get_tokenizer

        search = self.config.global_search
        tokenizer = get_tokenizer(self.config.get_completion_model_config(search.completion_model_id))
        return points_over_budget(batches, tokenizer.num_tokens, search.data_max_tokens)

    def to_query_run(
        self,
        *,
        final_answer: str | None = None,
        run_id: str | None = None,
        settings_fingerprint: str | None = None,
        notes: str = "",
    ) -> QueryRun:
        """The recorded search as a `QueryRun`.

        `final_answer` defaults to the streamed reduce answer; pass what GraphRAG returned when
        it answered without a model call (no key point scored above 0).
        """
        if self.searches == 0:
            raise AdapterError("the recorder heard no global search; pass it in callbacks=[...] of the search")
        answer = final_answer if final_answer is not None else self.streamed_answer or self.reduce_output or ""
        if not answer.strip():
            raise AdapterError("no final answer was recorded; pass final_answer=<the text GraphRAG returned>")
        batches = self.batches()
        left_out = self._left_out(batches)
        budget = f"reduce left out {len(left_out)} key point(s) with score > 0 for lack of tokens" if left_out else ""
        note_parts = [f"captured from graphrag {_graphrag_version()} global search", notes, budget]
        return QueryRun(
            run_id=run_id or new_run_id(),
            query=self.query,
            community_level=self.community_level,
            settings_fingerprint=settings_fingerprint,
            notes="; ".join(part for part in note_parts if part),
            batches=batches,
            not_in_reduce=left_out,
            final_answer=answer,
        )

    def save(self, root: str | Path, *, final_answer: str | None = None, run_id: str | None = None) -> Path:
        """Write the run to `ROOT/output/veritrail/queries/<run-id>/query_run.json`; returns that folder.

        `root` is the GraphRAG project root; its settings.yaml fingerprint is stored with the run.
        """
        run = self.to_query_run(
            final_answer=final_answer, run_id=run_id, settings_fingerprint=project_fingerprint(root)
        )
        folder = run_dir(root, run.run_id)
        run.save(folder)
        return folder
