"""Index shapes met in published GraphRAG outputs that the generations' own test data lacks.

GraphRAG 0.3 and 0.4 wrote `create_final_communities.parquet` with the community number in `id`
(as text) and no `community` column; the tables here are small ones written for the test, in
that shape. The published indexes themselves are read from ../shared (test_wild_corpus.py).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from veritrail_graphrag.adapters.graphrag import read_index
from veritrail_graphrag.errors import AdapterError


def write_graphrag_03(folder: Path) -> Path:
    """A GraphRAG 0.3/0.4 output: entities by `name`, communities numbered in `id`, membership
    by level in create_final_nodes (an entity outside every community has none)."""
    folder.mkdir(parents=True, exist_ok=True)
    units = pd.DataFrame(
        {
            "id": ["tu-a", "tu-b", "tu-c"],
            "text": [
                "The mill on the river Ouse ground wheat for the village until 1921.",
                "Ada Pell kept the mill's ledgers and sold flour to the bakery in Selby.",
                "The bakery in Selby closed when the railway brought cheaper bread.",
            ],
            "n_tokens": [15, 16, 13],
        }
    )
    entities = pd.DataFrame(
        {
            "id": ["e-mill", "e-ada", "e-bakery"],
            "name": ["OUSE MILL", "ADA PELL", "SELBY BAKERY"],
            "description": [
                "A mill on the river Ouse that ground wheat until 1921.",
                "The mill's bookkeeper, who sold its flour to the bakery.",
                "A bakery in Selby that bought the mill's flour.",
            ],
            "human_readable_id": [0, 1, 2],
            "text_unit_ids": [["tu-a"], ["tu-b"], ["tu-b", "tu-c"]],
        }
    )
    relationships = pd.DataFrame(
        {
            "id": ["r-0", "r-1"],
            "source": ["ADA PELL", "OUSE MILL"],
            "target": ["OUSE MILL", "SELBY BAKERY"],
            "description": ["Ada Pell kept the mill's ledgers.", "The mill sold its flour to the bakery."],
            "human_readable_id": ["0", "1"],
            "text_unit_ids": [["tu-b"], ["tu-b"]],
        }
    )
    communities = pd.DataFrame(
        {
            "id": ["0", "1"],
            "title": ["Community 0", "Community 1"],
            "level": [0, 1],
            "relationship_ids": [["r-0", "r-1"], ["r-0"]],
            "text_unit_ids": [["tu-a", "tu-b", "tu-c"], ["tu-b"]],
        }
    )
    nodes = pd.DataFrame(
        {
            "level": [0, 0, 0, 1, 1, 1],
            "title": ["OUSE MILL", "ADA PELL", "SELBY BAKERY"] * 2,
            "community": ["0", "0", "0", "1", "1", None],
        }
    )
    reports = pd.DataFrame(
        {
            "community": ["0", "1"],
            "level": [0, 1],
            "full_content": [
                "# The Ouse mill\n\nThe mill on the Ouse sold flour to a bakery in Selby.",
                "# Ada Pell\n\nAda Pell kept the ledgers of the Ouse mill.",
            ],
            "rank": [7.5, 4.0],
            "title": ["The Ouse mill", "Ada Pell"],
        }
    )
    for name, frame in (
        ("text_units", units),
        ("entities", entities),
        ("relationships", relationships),
        ("communities", communities),
        ("nodes", nodes),
        ("community_reports", reports),
    ):
        frame.to_parquet(folder / f"create_final_{name}.parquet")
    return folder


def test_graphrag_03_communities_numbered_in_id_load(tmp_path: Path) -> None:
    dag = read_index(write_graphrag_03(tmp_path / "output"))
    assert dag.metadata["layout"] == "0.x-early"
    assert {n.id for n in dag if n.kind == "community_report"} == {"report:0", "report:1"}
    assert set(dag.src("report:1")) >= {"entity:OUSE MILL", "entity:ADA PELL", "relationship:ADA PELL->OUSE MILL"}
    assert "entity:SELBY BAKERY" not in dag.src("report:1")  # no community at level 1
    assert "report:1" in dag.src("report:0")  # sub-community, derived as GraphRAG 0.x did


def test_community_ids_that_are_not_numbers_are_named(tmp_path: Path) -> None:
    folder = write_graphrag_03(tmp_path / "output")
    path = folder / "create_final_communities.parquet"
    pd.read_parquet(path).assign(id=["c-one", "c-two"]).to_parquet(path)
    with pytest.raises(AdapterError, match=r"column 'id' \(the community number of GraphRAG 0\.3/0\.4\) should hold"):
        read_index(folder)
