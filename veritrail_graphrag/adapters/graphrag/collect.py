"""Collecting nodes and edges as column frames, stage by stage, before one DAG is built.

Nodes are kept as frames rather than `Node` objects until the end so that each stage is a handful
of vectorised pandas operations; what a stage leaves out is counted, never dropped silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

NODE_COLUMNS = ["id", "text", "stage", "kind", "metadata"]


@dataclass
class Parts:
    """Node and edge frames collected stage by stage, and what was skipped on the way."""

    nodes: list[pd.DataFrame] = field(default_factory=list)
    edges: list[pd.DataFrame] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)

    def add_nodes(self, frame: pd.DataFrame, *, stage: int, kind: str, meta: Mapping[str, str]) -> None:
        self.nodes.append(
            pd.DataFrame(
                {
                    "id": frame["node"].to_numpy(),
                    "text": frame["text"].to_numpy(),
                    "stage": stage,
                    "kind": kind,
                    "metadata": metadata_rows(frame, meta),
                }
            )
        )

    def add_edges(self, sources: pd.Series, targets: pd.Series) -> None:
        self.edges.append(pd.DataFrame({"u": sources.to_numpy(), "v": targets.to_numpy()}))

    def skip(self, path: Path, reason: str, count: int) -> None:
        if count:
            self.skipped[f"{path.name}: {reason}"] += int(count)


def metadata_rows(frame: pd.DataFrame, meta: Mapping[str, str]) -> list[dict[str, Any]]:
    """Per-row dicts of plain Python values; missing values are left out rather than stored as NaN."""
    columns = {key: frame[column].tolist() for key, column in meta.items() if column in frame.columns}
    rows: list[dict[str, Any]] = []
    for values in zip(*columns.values(), strict=True) if columns else [() for _ in range(len(frame))]:
        rows.append({k: v for k, v in zip(columns, values, strict=True) if not _missing(v)})
    return rows


def _missing(value: Any) -> bool:
    if value is None or value is pd.NA or (isinstance(value, str) and value == ""):
        return True
    return isinstance(value, float) and value != value
