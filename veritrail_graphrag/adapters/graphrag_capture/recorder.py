"""`QueryRecorder`: a GraphRAG query callback that keeps what a search showed the model.

`graphrag query` prints the answer and throws away what it was built from. The recorder listens
to GraphRAG 3.3's query callbacks and turns what it heard into a `QueryRun`:

- every method: `on_context` (every call is kept, never just the last) and `on_llm_new_token`;
- global: `on_map_response_start` gives each map batch's context table (its report ids are read
  from it), `on_map_response_end` the key points of each batch, `on_context` the report records;
- local and basic: `on_context` gives the one context window's records, per dataset;
- DRIFT: `on_context` fires once per follow-up local search, `on_reduce_response_start` hands over
  the action graph (each action's query, answer, score and context records; which action proposed
  which) and `on_reduce_response_end` the final answer. No callback tells which reports the primer
  read, so the recorder also wraps the one method that receives them (see `watch_drift_primers`).

A recorder serves one search. Nothing is checked while GraphRAG runs (an exception inside a
callback would abort the user's search); `to_query_run` checks everything and raises
`AdapterError` naming what does not fit.
"""

from __future__ import annotations

import functools
import json
import secrets
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from veritrail_graphrag.adapters.graphrag import DriftAction, DriftRun, MapAnswer, MapBatch, Method, QueryRun
from veritrail_graphrag.adapters.graphrag import settings_fingerprint as project_fingerprint
from veritrail_graphrag.adapters.graphrag.layout import run_dir
from veritrail_graphrag.adapters.graphrag.query_run import Records
from veritrail_graphrag.adapters.graphrag_capture.batches import batch_report_ids
from veritrail_graphrag.adapters.graphrag_capture.extra import GraphRAGMissingError
from veritrail_graphrag.adapters.graphrag_capture.reduce_budget import points_over_budget
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


def records_of(context: Any) -> Records:
    """GraphRAG's context records (dataset -> DataFrame) as plain JSON values; NaN becomes None."""
    if not isinstance(context, dict):
        raise AdapterError(f"GraphRAG's context records are a {type(context).__name__}, not a dict of tables")
    records: Records = {}
    for name, frame in context.items():
        if not isinstance(frame, pd.DataFrame):
            raise AdapterError(f"context records {name!r} are a {type(frame).__name__}, not a table")
        records[str(name)] = json.loads(frame.to_json(orient="records"))
    return records


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


def _score(value: Any) -> float | None:
    """A DRIFT action's score; GraphRAG uses -inf for "none", which JSON cannot hold."""
    try:
        score = float(value)
    except (TypeError, ValueError):
        return None
    return score if score == score and abs(score) != float("inf") else None


def _one_search(heard: int) -> None:
    if heard != 1:
        raise AdapterError(f"one recorder heard {heard} searches; use one QueryRecorder per query")


def watch_drift_primers() -> None:
    """Let recorders hear which reports DRIFT's primer read (once per process; idempotent).

    GraphRAG 3.3 passes the primer's reports (the `drift_k_followups` most similar to a
    hypothetical answer) to no callback. `DRIFTSearch._process_primer_results` receives them;
    it is wrapped so that every `QueryRecorder` among that search's callbacks is told, and the
    search itself is unchanged. If a GraphRAG version renames the method, nothing is wrapped and
    a DRIFT run records the primer's reports as unknown.
    """
    from graphrag.query.structured_search.drift_search.search import DRIFTSearch

    original = DRIFTSearch.__dict__.get("_process_primer_results")
    if original is None or getattr(original, "veritrail_watch", False):
        return

    @functools.wraps(original)
    def process_primer_results(self: Any, query: str, search_results: Any) -> Any:
        for callback in getattr(self, "callbacks", None) or []:
            if isinstance(callback, QueryRecorder):
                callback.on_drift_primer(search_results.context_data)
        return original(self, query, search_results)

    process_primer_results.veritrail_watch = True  # type: ignore[attr-defined]
    DRIFTSearch._process_primer_results = process_primer_results  # type: ignore[method-assign]


class QueryRecorder(QueryCallbacks):
    """Records one GraphRAG search (any method); pass it in `callbacks=[...]`, then `save`.

    `method` is checked against what GraphRAG reported, and inferred when not given. `config`
    (the `GraphRagConfig` the search ran with) is optional: with it, key points that global
    search's reduce step had to leave out for lack of tokens are named in the run's notes. Batch
    `i` of a global run is the map call GraphRAG shows reduce as "Analyst i+1".

        recorder = QueryRecorder(question, method="local", community_level=2, config=config)
        answer, _ = await graphrag.api.local_search(..., query=question, callbacks=[recorder])
        folder = recorder.save(project_root, final_answer=answer)  # output/veritrail/queries/<id>/
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
        watch_drift_primers()
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
        """The primer's search result context (`{"top_k_reports": frame}`), from `watch_drift_primers`."""
        self.primer_context = context_data

    @property
    def streamed_answer(self) -> str:
        """The tokens streamed so far (for DRIFT they mix follow-up answers with the final one)."""
        return "".join(self.tokens)

    def heard_method(self) -> Method:
        """The search method, from the callbacks GraphRAG made (checked against `method` if given)."""
        if self.map_starts:
            heard: Method = "global"
        elif self.action_graphs:
            heard = "drift"
        elif self.contexts:
            keys = set(self.contexts[-1]) if isinstance(self.contexts[-1], dict) else set()
            heard = "basic" if keys <= {"sources"} else "local"
        else:
            raise AdapterError("the recorder heard no search; pass it in callbacks=[...] of the search")
        if self.method is not None and self.method != heard:
            raise AdapterError(f"the recorder was made for a {self.method} search but heard a {heard} search")
        return heard

    def batches(self) -> list[MapBatch]:
        """Each map batch with its reports and key points, in the order GraphRAG numbered them."""
        _one_search(self.map_starts)
        if len(self.map_results) != len(self.map_contexts):
            raise AdapterError(
                f"GraphRAG reported {len(self.map_contexts)} map contexts but {len(self.map_results)} map answers"
            )
        for index, (context, result) in enumerate(zip(self.map_contexts, self.map_results, strict=True)):
            if isinstance(result.context_data, str) and result.context_data != context:
                raise AdapterError(f"map answer {index} was computed from another context than map batch {index}")
        reports = self.contexts[-1].get("reports") if self.contexts and isinstance(self.contexts[-1], dict) else None
        report_ids = batch_report_ids(self.map_contexts, reports, delimiter=self.column_delimiter)
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

    def context(self) -> Records:
        """The one context window of a local or basic search."""
        _one_search(len(self.contexts))
        return records_of(self.contexts[0])

    def drift(self) -> DriftRun:
        """The action graph of a DRIFT search, each follow-up with the context it was answered from."""
        _one_search(len(self.action_graphs))
        graph = self.action_graphs[0]
        parents: dict[int, list[int]] = {}
        for edge in graph.get("edges", []):
            parents.setdefault(int(edge["target"]), []).append(int(edge["source"]))
        heard = [records_of(context) for context in self.contexts]
        actions: list[DriftAction] = []
        for node in graph["nodes"]:
            context = (node.get("metadata") or {}).get("context_data")
            records = records_of(context) if context is not None else None
            if records is not None and node.get("answer") and records not in heard:
                raise AdapterError(
                    f"DRIFT action {node['id']} ({node['query']!r}) was answered from a context no on_context call "
                    "reported; the callbacks of this GraphRAG version are not understood"
                )
            actions.append(
                DriftAction(
                    id=int(node["id"]),
                    query=str(node["query"]),
                    answer=node.get("answer"),
                    score=_score(node.get("score")),
                    parents=sorted(set(parents.get(int(node["id"]), []))),
                    context=records,
                )
            )
        answered = sum(1 for a in actions if a.context is not None and a.answered)
        if answered > len(heard):
            raise AdapterError(f"{answered} follow-up searches were answered but on_context fired {len(heard)} times")
        return DriftRun(primer_report_ids=self._primer_reports(), actions=actions)

    def _primer_reports(self) -> list[int] | None:
        reports = self.primer_context.get("top_k_reports") if isinstance(self.primer_context, dict) else None
        if not isinstance(reports, pd.DataFrame) or "short_id" not in reports.columns:
            return None
        return [int(community) for community in reports["short_id"]]

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
        parts: dict[str, Any] = {}
        extra = ""
        if method == "global":
            batches = self.batches()
            left_out = self._left_out(batches)
            parts = {"batches": batches, "not_in_reduce": left_out}
            if left_out:
                extra = f"reduce left out {len(left_out)} key point(s) with score > 0 for lack of tokens"
        elif method == "drift":
            parts = {"drift": self.drift()}
            if parts["drift"].primer_report_ids is None:
                extra = "the reports the DRIFT primer read were not recorded"
        else:
            parts = {"context": self.context()}
        note_parts = [f"captured from graphrag {_graphrag_version()} {method} search", notes, extra]
        return QueryRun(
            run_id=run_id or new_run_id(),
            query=self.query,
            method=method,
            community_level=self.community_level if method != "basic" else None,
            settings_fingerprint=settings_fingerprint,
            notes="; ".join(part for part in note_parts if part),
            final_answer=answer,
            **parts,
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
        """Write the run to `ROOT/output/veritrail/queries/<run-id>/query_run.json`; returns that folder.

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
