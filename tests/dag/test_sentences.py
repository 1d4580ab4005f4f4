"""Sentence splitting works offline with NLTK's trained Punkt parameters."""

from __future__ import annotations

import subprocess
import sys

import pytest

from veritrail_graphrag import sentences
from veritrail_graphrag.sentences import punkt_tokenizer, split_sentences


def test_abbreviations_do_not_split() -> None:
    text = "Dr. Smith met Mr. Jones on Jan. 5 in Washington. They talked for an hour. The U.S. team won."
    assert split_sentences(text) == [
        "Dr. Smith met Mr. Jones on Jan. 5 in Washington.",
        "They talked for an hour.",
        "The U.S. team won.",
    ]


def test_untrained_punkt_would_have_split_here() -> None:
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    text = "Dr. Smith arrived on Jan. 5."
    assert len(PunktSentenceTokenizer().tokenize(text)) > 1
    assert len(punkt_tokenizer().tokenize(text)) == 1


def test_markdown_headings_and_list_items_are_sentences() -> None:
    report = (
        "# Scrooge and Marley\n\n"
        "The community centres on Ebenezer Scrooge. He runs a counting-house.\n\n"
        "## Key findings\n"
        "- Scrooge is a miser. He refuses charity.\n"
        "- Marley's ghost\n  visits on Christmas Eve.\n"
        "1. First numbered point.\n"
    )
    assert split_sentences(report) == [
        "# Scrooge and Marley",
        "The community centres on Ebenezer Scrooge.",
        "He runs a counting-house.",
        "## Key findings",
        "- Scrooge is a miser.",
        "He refuses charity.",
        "- Marley's ghost visits on Christmas Eve.",
        "1. First numbered point.",
    ]


def test_table_rows_are_kept_whole_and_rules_dropped() -> None:
    assert split_sentences("| a | b |\n|---|---|\n| 1. x | 2 |") == ["| a | b |", "| 1. x | 2 |"]


def test_works_without_nltk_data_or_network(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Sentences, and the language that picks their rules (py3langid's model ships in its wheel)."""
    code = (
        "import nltk, socket\n"
        "nltk.data.path[:] = []\n"
        "socket.socket = None\n"
        "from veritrail_graphrag.sentences import split_sentences\n"
        "print(len(split_sentences('Prof. X left at 5 p.m. today. Then he slept.')))\n"
        "print(len(split_sentences('Le moulin a fermé selon l’art. 5 du code. Il a rouvert en 1930.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"NLTK_DATA": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2", "2"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # the hierarchical sample's sentence, which Punkt cut into three
            "On a foggy Christmas Eve, Scrooge answers his nephew with 'Bah! Humbug!' and refuses his invitation.",
            ["On a foggy Christmas Eve, Scrooge answers his nephew with 'Bah! Humbug!' and refuses his invitation."],
        ),
        ('He cries "What is this?" and runs out.', ['He cries "What is this?" and runs out.']),
        ("'Are you mad?' asked Fred. Scrooge said no.", ["'Are you mad?' asked Fred.", "Scrooge said no."]),
        ('Scrooge says: "Bah! Humbug!" Then he leaves.', ['Scrooge says: "Bah! Humbug!"', "Then he leaves."]),
        ("He said \u201cGo! Now!\u201d and left. Done.", ["He said \u201cGo! Now!\u201d and left.", "Done."]),
        (  # a quotation closed by a quote Punkt put at the start of the next piece
            "His nephew calls 'A merry Christmas, uncle!', and Scrooge answers 'Bah! Humbug!'. Then he leaves.",
            ["His nephew calls 'A merry Christmas, uncle!', and Scrooge answers 'Bah! Humbug!'.", "Then he leaves."],
        ),
        ("Wow! That was fast.", ["Wow!", "That was fast."]),  # a real end stays one
        ("Scrooge's clerk is cold! The fire is small.", ["Scrooge's clerk is cold!", "The fire is small."]),
        ('A stray " quote here. Next sentence. Third one.', ['A stray " quote here.', "Next sentence.", "Third one."]),
    ],
)
def test_a_quotation_ending_in_an_exclamation_stays_in_its_sentence(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_a_text_is_split_once_however_often_it_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A source text is shown to many claims (and its excerpts sized for every verdict): Punkt
    reads it once. Each caller gets its own list, free to change."""
    calls: list[str] = []
    real = sentences._sentences
    monkeypatch.setattr(sentences, "_sentences", lambda text, language: calls.append(text) or real(text, language))
    text = "Marley was dead, to begin with. Scrooge signed the register of his burial, once and only once."
    first = split_sentences(text)
    first.append("changed by a caller")
    assert split_sentences(text) == first[:2]
    assert len(calls) == 1
