"""Which key points the reduce step could not fit into its token budget.

Reduce reads the map answers with a score above 0, highest score first, and stops adding them
once `global_search.data_max_tokens` is reached. A saved run says nothing about that cut, so the
DAG would treat a point reduce never saw as one of its inputs; naming the cut points in the
run's notes keeps that visible. This mirrors GraphRAG 3.3's `_stream_reduce_response`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from veritrail_graphrag.adapters.graphrag import MapBatch
from veritrail_graphrag.adapters.graphrag.ids import map_answer_id


def _score_text(score: float) -> str:
    """GraphRAG formats the integer it parsed; 90.0 is shown to the model as 90."""
    return str(int(score)) if score == int(score) else str(score)


def points_over_budget(batches: Sequence[MapBatch], num_tokens: Callable[[str], int], max_tokens: int) -> list[str]:
    """Map answer ids (`map_answer:<batch>.<point>`) with score > 0 that reduce left out."""
    points = [
        (batch.index, position, answer)
        for batch in batches
        for position, answer in enumerate(batch.answers)
        if answer.score > 0
    ]
    points.sort(key=lambda point: point[2].score, reverse=True)
    used = 0
    for rank, (batch, _, answer) in enumerate(points):
        text = "\n".join(
            [f"----Analyst {batch + 1}----", f"Importance Score: {_score_text(answer.score)}", answer.answer]
        )
        tokens = num_tokens(text)
        if used + tokens > max_tokens:
            return [map_answer_id(b, p) for b, p, _ in points[rank:]]
        used += tokens
    return []
