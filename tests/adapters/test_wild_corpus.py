"""The 20 GraphRAG indexes that users published (../shared/fixtures/graphrag-wild): each is located
and its communities read, and the smallest index of each layout is audited end to end.

Their texts carry no licence: the tests read them where they lie and copy nothing.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from samples import SHARED, needs_shared

from veritrail_graphrag.adapters.graphrag.layout import locate
from veritrail_graphrag.adapters.graphrag.tables import read_table
from veritrail_graphrag.audit import audit_index

WILD = SHARED / "fixtures" / "graphrag-wild"
pytestmark = needs_shared(WILD)

LAYOUTS = {
    "Coder-Dilip__BhagwatRag": "0.x-early",
    "HenryHung90__yzuic114_stamindTask": "2.x",
    "JamesFein__gyrw-graphrag": "2.x",
    "Minda93__III_2024_golf": "1.x",
    "Musbell__graph-rag-learning": "0.x-early",
    "Mustapha-Dafa__GraphRAG": "2.x",
    "Nooryasser74__solar-market-kg-demo-": "3.x",
    "SyDuc7421__land-law-graph-rag": "3.x",
    "VinceMu__PDFChat": "0.x-early",
    "axardion__datasaur26": "3.x",
    "hzy9981__aviation-accident-analysis": "3.x",
    "jh941213__mvp_final": "2.x",
    "khmelkoff__jm_project": "3.x",
    "maxistaebler__eKNOW_2025": "1.x",
    "pguatibonza__python-whatsapp-bot": "2.x",
    "piyo123__learning-microsoft-graphrag": "3.x",
    "qk-antares__cse-kg-rag": "0.x",
    "rebibabo__graphrag-three-body": "0.x-early",
    "schauerstoff__TrapGPT": "2.x",
    "sher1ock-jp__graph-rag-paper": "0.x-early",
}
SMALLEST = {
    "GraphRAG 0.3/0.4 (communities numbered in id)": "VinceMu__PDFChat",
    "0.x-early (raw_community)": "sher1ock-jp__graph-rag-paper",
    "0.x": "qk-antares__cse-kg-rag",
    "1.x": "maxistaebler__eKNOW_2025",
    "2.x": "JamesFein__gyrw-graphrag",
    "3.x": "Nooryasser74__solar-market-kg-demo-",
}


def test_the_corpus_is_the_one_described() -> None:
    assert sorted(p.name for p in WILD.iterdir() if p.is_dir()) == sorted(LAYOUTS)


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_every_index_is_located_and_every_report_names_a_community(name: str) -> None:
    layout = locate(WILD / name)
    assert layout.name == LAYOUTS[name]
    communities = read_table("communities", layout.file("communities")).frame
    reports = read_table("community_reports", layout.file("community_reports")).frame
    assert pd.api.types.is_integer_dtype(communities["community"])
    # GraphRAG 0.x also reported on the entities no community took in, as community -1
    assert set(reports["community"]) - {-1} <= set(communities["community"])


@pytest.mark.parametrize("shape", sorted(SMALLEST))
def test_the_smallest_index_of_each_layout_is_audited(shape: str, tmp_path: Path) -> None:
    report = audit_index(WILD / SMALLEST[shape], reports=1, out=tmp_path)
    assert report.results and not report.failed
    assert (tmp_path / "report.html").is_file()
