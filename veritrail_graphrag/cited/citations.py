"""Bracket citations in a written answer (`[S0]`, `[3]`, `[S1, S4]`) and the claims they belong to.

What a bracket group cites is decided by a reader (`GroupReader`): `span_ids` for span ids, or
another syntax's reader, such as GraphRAG's `[Data: Reports (2, 7)]`.

The answer is cut into sentences with the project's splitter. Citations written after a full
stop (`Auth checks the issuer. [S0] Tokens expire.` splits before `[S0]`) open the next piece:
they belong to the sentence before it, whether they stand alone or not.
Each claim keeps the ids it cites, in order, with the markers removed from its text.

An id is resolved against the spans: exactly, then ignoring case, then `3` <-> `S3`. Ids that
match no span are kept as unknown, so the report can name them; they never raise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from pydantic import BaseModel, ConfigDict, Field

from veritrail_graphrag.sentences import HEADING, split_sentences

_GROUP = re.compile(r"\[(?!\^)(?P<body>[^\[\]\n]{1,200})\](?!\()")
_ITEM_SEPARATOR = re.compile(r"\s*[,;]\s*|\s+and\s+")
_ID_SHAPE = re.compile(r"^[A-Za-z]{0,3}\d+[A-Za-z]?$")
_WORDS = re.compile(r"\w")

GroupReader = Callable[[str], list[str] | None]
"""The ids a bracket group's body cites, or None when the group is not a citation."""


class CitedClaim(BaseModel):
    """One sentence-sized claim: its text without markers and the ids it cites, as written."""

    model_config = ConfigDict(frozen=True)

    idx: int = Field(ge=0)
    text: str
    cites: list[str] = Field(default_factory=list)


def span_ids(known: Collection[str] = ()) -> GroupReader:
    """Reads `[S0]`, `[3]`, `[S1, S4; S5]`: every item must be a known span id or look like one
    (S0, 3, P12b), so link texts and notes in brackets are not taken for citations."""

    def read(body: str) -> list[str] | None:
        items = [item.strip() for item in _ITEM_SEPARATOR.split(body.strip())]
        if not items or any(not item for item in items):
            return None
        if all(item in known or _ID_SHAPE.match(item) for item in items):
            return items
        return None

    return read


def find_citations(text: str, read: GroupReader | None = None) -> tuple[str, list[str]]:
    """The text with its citation groups removed, and the cited ids in order of first use."""
    read = read or span_ids()
    cites: dict[str, None] = {}
    kept: list[str] = []
    last = 0
    for match in _GROUP.finditer(text):
        items = read(match["body"])
        if items is None:
            continue
        kept.append(text[last : match.start()])
        last = match.end()
        cites.update(dict.fromkeys(items))
    kept.append(text[last:])
    cleaned = re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"[ \t]{2,}", " ", "".join(kept))).strip()
    return cleaned, list(cites)


def _leading_citations(sentence: str, read: GroupReader) -> tuple[list[str], str]:
    """Citation groups at the very start of a sentence, and the rest of the sentence."""
    cites: list[str] = []
    rest = sentence
    while (match := _GROUP.match(rest.lstrip())) and (items := read(match["body"])) is not None:
        cites += items
        rest = rest.lstrip()[match.end() :]
    return cites, rest


def split_cited_claims(answer: str, read: GroupReader | None = None) -> list[CitedClaim]:
    """Sentence-sized claims of `answer` with their citations; headings and empty pieces skipped."""
    read = read or span_ids()
    pieces: list[tuple[str, list[str]]] = []
    for sentence in split_sentences(answer):
        if HEADING.match(sentence):
            continue
        leading, rest = _leading_citations(sentence, read)
        if leading and pieces:
            previous_text, previous_cites = pieces[-1]
            pieces[-1] = (previous_text, list(dict.fromkeys(previous_cites + leading)))
            sentence = rest
        text, cites = find_citations(sentence, read)
        if _WORDS.search(text.strip("-*+>|# ")):
            pieces.append((text, cites))
    return [CitedClaim(idx=i, text=text, cites=cites) for i, (text, cites) in enumerate(pieces)]


def resolve_cite(cite: str, known: Collection[str]) -> str | None:
    """The span id a cite refers to, or None: exact, then case-insensitive, then `3` <-> `S3`."""
    if cite in known:
        return cite
    lowered = {k.lower(): k for k in known}
    if cite.lower() in lowered:
        return lowered[cite.lower()]
    if cite.isdigit() and f"s{cite}" in lowered:
        return lowered[f"s{cite}"]
    if cite[:1] in "sS" and cite[1:].isdigit() and cite[1:] in known:
        return cite[1:]
    return None
