"""The node id scheme: readable, stable across re-reads, and enough to find the row in GraphRAG.

- `text_unit:<human_readable_id>` (`text_unit:<id>` when the run has no usable human_readable_id)
- `entity:<title>`: the entity's final description (stage 3 when summarized, else stage 2)
- `relationship:<source>-><target>`: likewise for a relationship
- `entity:<title>@text_unit:<n>`: what one chunk's extraction said (only with the raw graph)
- `covariate:<human_readable_id>`, `report:<community>`
- `map_answer:<batch>.<point>` (global search), `drift_primer`, `drift_query:<action>` and
  `drift_answer:<action>` (DRIFT search, numbered as GraphRAG's action graph), `final_answer`

GraphRAG's own `id` and `human_readable_id` go in each node's metadata; a text unit's also holds
`row`, the id GraphRAG's query contexts show for it (`Sources (n)`).
"""

from __future__ import annotations

import pandas as pd

TEXT_UNIT = "text_unit:"
ENTITY = "entity:"
RELATIONSHIP = "relationship:"
COVARIATE = "covariate:"
REPORT = "report:"
MAP_ANSWER = "map_answer:"
DRIFT_PRIMER = "drift_primer"
DRIFT_QUERY = "drift_query:"
DRIFT_ANSWER = "drift_answer:"
FINAL_ANSWER = "final_answer"
ARROW = "->"
FROM_CHUNK = "@"


def report_id(community: int) -> str:
    return f"{REPORT}{community}"


def map_answer_id(batch: int, point: int) -> str:
    return f"{MAP_ANSWER}{batch}.{point}"


def drift_query_id(action: int) -> str:
    return f"{DRIFT_QUERY}{action}"


def drift_answer_id(action: int) -> str:
    return f"{DRIFT_ANSWER}{action}"


def chunk_ids(items: pd.Series, text_units: pd.Series) -> pd.Series:
    """Ids of per-chunk (stage-2) nodes: the item's node id, `@`, the text unit's node id."""
    return (items + FROM_CHUNK + text_units).astype(object)


def labelled(prefix: str, labels: pd.Series, fallback: pd.Series) -> pd.Series:
    """`prefix + label`, where empty or repeated labels get the GraphRAG id added to stay unique.

    Node ids are plain Python strings (object dtype): pandas' arrow strings hash slowly in `isin`.
    """
    labels = labels.astype("string").fillna("")
    fallback = fallback.astype("string")
    clash = labels.duplicated(keep=False) | (labels.str.strip() == "")
    named = labels.where(~clash, labels + "[" + fallback + "]")
    return (prefix + named).astype(object)
