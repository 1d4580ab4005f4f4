"""Sentences split by the rules of their language, and citation markers kept with their sentence.

The examples are written for these tests, one per language of the published GraphRAG indexes; the
indexes themselves are checked in test_sentences_corpus.py.
"""

# ruff: noqa: RUF001  (texts in Chinese, Japanese and Russian, on purpose)
from __future__ import annotations

import pytest

from veritrail_graphrag import sentences
from veritrail_graphrag.sentences import split_paragraphs, split_sentences, splitting_language


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        (
            "zh",
            "磨坊建于一八二一年。它为村庄磨了一百年的面粉！谁在经营它？",
            ["磨坊建于一八二一年。", "它为村庄磨了一百年的面粉！", "谁在经营它？"],
        ),
        (
            "zh",  # Traditional script, and a quotation that goes on after its closing mark
            "磨坊主說：「明天再來。」然後關上了門。村民們都回家了。",
            ["磨坊主說：「明天再來。」然後關上了門。", "村民們都回家了。"],
        ),
        (
            "zh",  # a sentence may begin with a Latin word in lower case
            "该程序管理磨坊的账本。ledger.exe 是它的主程序。",
            ["该程序管理磨坊的账本。", "ledger.exe 是它的主程序。"],
        ),
        (
            "ja",
            "水車小屋は川のそばにある。村人は毎朝そこへ行く。「今日も晴れだ。」と彼は言った。",
            ["水車小屋は川のそばにある。", "村人は毎朝そこへ行く。", "「今日も晴れだ。」と彼は言った。"],
        ),
        (
            "ru",
            "Мельница, т.е. водяная мельница, стоит у реки. Её построили в 1821 г. и ремонтировали в ст. 5 плана. "
            "Сейчас она закрыта.",
            [
                "Мельница, т.е. водяная мельница, стоит у реки.",
                "Её построили в 1821 г. и ремонтировали в ст. 5 плана.",
                "Сейчас она закрыта.",
            ],
        ),
        (
            "vi",
            "Điều 5. Người sử dụng đất có quyền chuyển nhượng. Nhà nước không thu hồi đất khi chưa bồi thường.",
            ["Điều 5.", "Người sử dụng đất có quyền chuyển nhượng.", "Nhà nước không thu hồi đất khi chưa bồi thường."],
        ),
        (
            "fr",
            "Le C.G.I. lui-même fixe le taux. L'impôt suit l'art. 12 du code. Les sociétés déclarent avant mai.",
            [
                "Le C.G.I. lui-même fixe le taux.",
                "L'impôt suit l'art. 12 du code.",
                "Les sociétés déclarent avant mai.",
            ],
        ),
        (
            "de",
            "Der Verein zahlt z.B. die Miete. Er zahlt bzw. erstattet Beiträge nach Nr. 4 der Satzung. "
            "Das Jahr endet im Mai.",
            [
                "Der Verein zahlt z.B. die Miete.",
                "Er zahlt bzw. erstattet Beiträge nach Nr. 4 der Satzung.",
                "Das Jahr endet im Mai.",
            ],
        ),
        (
            "es",
            "El Sr. Pérez compró el coche. La pág. 4 del catálogo muestra el precio. Los frenos son de disco.",
            ["El Sr. Pérez compró el coche.", "La pág. 4 del catálogo muestra el precio.", "Los frenos son de disco."],
        ),
        (
            "en",
            "Cooper et al. measured the flow. Cooper et al. (2019) did so twice. The rate, e.g. in May, was low. "
            "It rose.",
            [
                "Cooper et al. measured the flow.",
                "Cooper et al. (2019) did so twice.",
                "The rate, e.g. in May, was low.",
                "It rose.",
            ],
        ),
    ],
)
def test_sentences_end_where_their_language_ends_them(language: str, text: str, expected: list[str]) -> None:
    assert splitting_language(text) in (language, None)
    assert split_sentences(text) == expected


def test_et_al_still_ends_a_sentence_before_a_capital() -> None:
    assert split_sentences("The flow was measured by Cooper et al. The rate was low.") == [
        "The flow was measured by Cooper et al.",
        "The rate was low.",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "The farm grows crops (wheat, maize, etc.) and sells them to the mill.",
        "It sells tools, seeds, etc. to the village.",
        "The rate (Cooper et al.) was low in winter.",
        "The code (C.G.I.) applies to every firm.",
    ],
)
def test_an_abbreviation_closed_by_a_bracket_ends_nothing_before_a_lower_case_word(text: str) -> None:
    assert split_sentences(text) == [text]


def test_etc_still_ends_a_sentence_before_a_capital() -> None:
    assert split_sentences("It grows wheat, maize, etc. The mill buys it.") == [
        "It grows wheat, maize, etc.",
        "The mill buys it.",
    ]


def test_a_text_of_ascii_letters_is_split_as_english_without_asking_a_detector(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_detector(text: str) -> str:
        raise AssertionError("an English text must not depend on language detection")

    monkeypatch.setattr(sentences, "detect_language", no_detector)
    text = "Dr. Smith met Mr. Jones on Jan. 5 \u201cin Washington\u201d \u2014 they talked. The U.S. team won."
    assert split_sentences(text) == [
        "Dr. Smith met Mr. Jones on Jan. 5 \u201cin Washington\u201d \u2014 they talked.",
        "The U.S. team won.",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The mill closed in 1921. [Data: Entities (3, 4)]", ["The mill closed in 1921. [Data: Entities (3, 4)]"]),
        (
            "The mill closed. [records: Entities (12)] It reopened in 1930.",
            ["The mill closed. [records: Entities (12)]", "It reopened in 1930."],
        ),
        (
            "The mill closed. [Data: Reports (2)] [Data: Entities (5, +more)] It reopened.",
            ["The mill closed. [Data: Reports (2)] [Data: Entities (5, +more)]", "It reopened."],
        ),
        (
            "The mill closed [DATA: relationships (7)]. It reopened.",
            ["The mill closed [DATA: relationships (7)].", "It reopened."],
        ),
        ("磨坊关闭了。[Data: Entities (3)] 后来又开了。", ["磨坊关闭了。[Data: Entities (3)]", "后来又开了。"]),
        (  # in round brackets, as three published indexes write some of theirs
            "The mill closed. (Data: Relationships (1037)). It reopened.",
            ["The mill closed. (Data: Relationships (1037)).", "It reopened."],
        ),
        (  # a full stop after the marker as well: no sentence "." of its own
            "The mill closed. [Data: Entities (58)]. It reopened.",
            ["The mill closed. [Data: Entities (58)].", "It reopened."],
        ),
    ],
)
def test_a_citation_marker_after_the_end_belongs_to_the_sentence_it_follows(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_a_paragraph_of_markers_alone_goes_to_the_sentence_before_it() -> None:
    text = (
        "## The mill\n\nThe mill closed in 1921. It stood empty.\n\n[Data: Entities (3); Relationships (9)]\n\n"
        "It reopened.\n\n[Data: Entities (4)]."
    )
    assert split_paragraphs(text) == [
        ["## The mill"],
        ["The mill closed in 1921.", "It stood empty. [Data: Entities (3); Relationships (9)]"],
        ["It reopened. [Data: Entities (4)]."],
    ]


def test_brackets_of_words_are_text_not_markers() -> None:
    text = "The mill closed.\n\n[Illustration: THE MILL IN WINTER]\n\nIt reopened. [sic] The end."
    assert split_sentences(text) == [
        "The mill closed.",
        "[Illustration: THE MILL IN WINTER]",
        "It reopened.",
        "[sic] The end.",
    ]
