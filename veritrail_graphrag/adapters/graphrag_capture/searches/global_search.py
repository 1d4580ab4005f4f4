"""Global search: map calls over batches of community reports, then reduce over their key points.

Recorded: each map batch's report ids (read from the context table GraphRAG showed the model) and
the scored key points it returned; with the config, the key points reduce left out for lack of
tokens. Batch `i` is the map call GraphRAG shows reduce as "Analyst i+1".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from veritrail_graphrag.adapters.graphrag import MapAnswer, MapBatch
from veritrail_graphrag.adapters.graphrag_capture.batches import batch_report_ids
from veritrail_graphrag.adapters.graphrag_capture.reduce_budget import points_over_budget
from veritrail_graphrag.adapters.graphrag_capture.searches.base import Recorded, Search, one_search, streaming
from veritrail_graphrag.errors import AdapterError

if TYPE_CHECKING:
    from veritrail_graphrag.adapters.graphrag_capture.recorder import QueryRecorder


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


def batches(recorder: QueryRecorder) -> list[MapBatch]:
    """Each map batch with its reports and key points, in the order GraphRAG numbered them."""
    one_search(recorder.map_starts)
    if len(recorder.map_results) != len(recorder.map_contexts):
        raise AdapterError(
            f"GraphRAG reported {len(recorder.map_contexts)} map contexts but {len(recorder.map_results)} map answers"
        )
    for index, (context, result) in enumerate(zip(recorder.map_contexts, recorder.map_results, strict=True)):
        if isinstance(result.context_data, str) and result.context_data != context:
            raise AdapterError(f"map answer {index} was computed from another context than map batch {index}")
    last = recorder.contexts[-1] if recorder.contexts else None
    reports = last.get("reports") if isinstance(last, dict) else None
    report_ids = batch_report_ids(recorder.map_contexts, reports, delimiter=recorder.column_delimiter)
    return [
        MapBatch(index=index, report_ids=ids, answers=_key_points(result.response))
        for index, (ids, result) in enumerate(zip(report_ids, recorder.map_results, strict=True))
    ]


def _left_out(recorder: QueryRecorder, found: list[MapBatch]) -> list[str]:
    """Key points with score > 0 that did not fit reduce's token budget (needs the config)."""
    if recorder.config is None:
        return []
    from graphrag.tokenizer.get_tokenizer import get_tokenizer

    search = recorder.config.global_search
    tokenizer = get_tokenizer(recorder.config.get_completion_model_config(search.completion_model_id))
    return points_over_budget(found, tokenizer.num_tokens, search.data_max_tokens)


def _record(recorder: QueryRecorder) -> Recorded:
    found = batches(recorder)
    left_out = _left_out(recorder, found)
    note = f"reduce left out {len(left_out)} key point(s) with score > 0 for lack of tokens" if left_out else ""
    return Recorded({"batches": found, "not_in_reduce": left_out}, note)


SEARCH = Search(
    name="global",
    tables=("entities", "communities", "community_reports"),
    stream=streaming("global_search_streaming"),
    heard=lambda recorder: recorder.map_starts > 0,
    record=_record,
)
