# ruff: noqa: RUF001  (texts in Chinese, Japanese, Korean and Russian, on purpose)
"""The language of a claim or a node, told offline; texts written for the test, one per language
of the published GraphRAG indexes."""

from __future__ import annotations

import pytest

from veritrail_graphrag import languages
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.languages import detect_language, language_list, language_name


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("The mill on the river ground wheat for the village until 1921.", "en"),
        ("磨坊一直为村庄磨小麦，直到一九二一年才关闭。", "zh"),
        ("磨坊一直為村莊磨小麥，直到一九二一年才關閉。", "zh"),
        ("水車小屋は一九二一年まで村のために小麦を挽いていた。", "ja"),
        ("마을의 방앗간은 1921년까지 밀을 빻았다.", "ko"),
        ("Мельница молола пшеницу для деревни до 1921 года.", "ru"),
        ("Cối xay nước đã xay lúa mì cho làng cho đến năm 1921.", "vi"),
        ("Le moulin a moulu le blé du village jusqu'en 1921.", "fr"),
        ("Die Mühle mahlte bis 1921 den Weizen für das Dorf.", "de"),
        ("El molino molió el trigo del pueblo hasta 1921.", "es"),
    ],
)
def test_a_sentence_is_found_in_its_language(text: str, code: str) -> None:
    assert detect_language(text) == code


@pytest.mark.parametrize("text", ["", "1921", "12.5 | 13.0 | 14.5 | 99.1", "== -> :: ** !!", "OK"])
def test_a_text_without_language_has_none(text: str) -> None:
    assert detect_language(text) is None


def test_citation_markers_do_not_make_a_sentence_english() -> None:
    marked = "磨坊在一九二一年关闭了。[Data: Entities (12, 13, 14); Relationships (20, 21, +more)] [Data: Reports (4)]"
    assert detect_language(marked) == "zh"


def test_a_long_text_is_read_in_three_windows_and_found_in_its_language() -> None:
    english = "The mill ground wheat for the village and sold the flour in Selby. " * 40
    assert len(languages._sample(english)) <= languages.SAMPLE_CHARS + 2
    assert detect_language("磨坊为村庄磨小麦。" * 200) == "zh"


def test_a_node_is_detected_once_however_often_it_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = languages._identifier()

    class Counting:
        def classify(self, text: str) -> tuple[str, float]:
            calls.append(text)
            return real.classify(text)

    monkeypatch.setattr(languages, "_identifier", lambda: Counting())
    dag = DAG.from_records(
        [
            Node(id="a", text="Die Mühle mahlte bis 1921 den Weizen für das Dorf Selby.", stage=1),
            Node(id="b", text="x y z", stage=2),
        ],
        [("a", "b")],
    )
    assert dag.language_count == 0
    assert [dag.language("a") for _ in range(3)] == ["de", "de", "de"]
    assert len(calls) == 1 and dag.language_count == 1


def test_names() -> None:
    assert language_name("zh") == "Chinese" and language_name(None) == "an unknown language"
    assert language_list({"fr", "en", "de"}) == "German, English and French"
    assert language_list(["ja"]) == "Japanese" and language_list([]) == ""

