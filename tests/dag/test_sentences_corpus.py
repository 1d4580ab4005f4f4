"""Sentence splitting on the published GraphRAG indexes (../shared/fixtures/graphrag-wild), in each
of their languages: properties that hold of every sentence, checked on the first 40 text units
and reports of each index. No text of theirs is copied here."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from samples import SHARED, needs_shared

from veritrail_graphrag.adapters.graphrag.layout import locate
from veritrail_graphrag.languages import detect_language
from veritrail_graphrag.markers import strip_markers
from veritrail_graphrag.sentences import HEADING, LIST_ITEM, split_paragraphs, splitting_language

WILD = SHARED / "fixtures" / "graphrag-wild"
pytestmark = needs_shared(WILD)
LANGUAGES = {  # the language of most of each index's text units, and of its reports
    "HenryHung90__yzuic114_stamindTask": ("zh", "zh"),
    "Mustapha-Dafa__GraphRAG": ("fr", "fr"),
    "SyDuc7421__land-law-graph-rag": ("vi", "vi"),
    "axardion__datasaur26": ("ru", "en"),
    "pguatibonza__python-whatsapp-bot": ("es", "en"),
    "piyo123__learning-microsoft-graphrag": ("ja", "en"),
    "rebibabo__graphrag-three-body": ("zh", "en"),
    "schauerstoff__TrapGPT": ("de", "de"),
    "khmelkoff__jm_project": ("en", "en"),
}
_CJK_END_INSIDE = re.compile(r"[\u3002\uff01\uff1f][^\W\d_]")
_QUOTED = re.compile(r"[\u201c\u300c\u300e\"]")
_CASED = {"en", "fr", "de", "es", "ru", "vi"}


def _texts(name: str) -> dict[str, list[str]]:
    layout = locate(WILD / name)
    return {
        table: pd.read_parquet(layout.file(table), columns=[column])[column].dropna().astype(str).tolist()[:40]
        for table, column in (("text_units", "text"), ("community_reports", "full_content"))
    }


def _language(texts: list[str]) -> str | None:
    found = [detect_language(t) for t in texts]
    return max(set(found), key=lambda code: (found.count(code), code or ""))


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_each_index_is_found_in_its_languages(name: str) -> None:
    texts = _texts(name)
    assert (_language(texts["text_units"]), _language(texts["community_reports"])) == LANGUAGES[name]


@pytest.mark.parametrize("name", sorted(p.name for p in WILD.iterdir() if p.is_dir()) if WILD.is_dir() else [])
def test_sentences_hold_no_end_inside_and_no_marker_alone(name: str) -> None:
    for text in [t for texts in _texts(name).values() for t in texts]:
        language = splitting_language(text)
        for paragraph in split_paragraphs(text):
            for position, sentence in enumerate(paragraph):
                words = strip_markers(sentence)
                assert words, f"{name}: a sentence that is only citation markers"
                if language in ("zh", "ja") and not _QUOTED.search(words):
                    assert not _CJK_END_INSIDE.search(words), f"{name}: a CJK sentence end inside a sentence"
                prose = not HEADING.match(sentence) and not LIST_ITEM.match(sentence)
                if language in _CASED - {"en"} and position and prose:
                    assert not words[:1].islower(), f"{name}: a {language} sentence cut before a lower-case word"


def test_the_corpus_is_there() -> None:
    assert isinstance(WILD, Path) and len([p for p in WILD.iterdir() if p.is_dir()]) == 20
