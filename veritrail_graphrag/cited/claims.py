"""Bracket citations in a written answer (`[S0]`, `[3]`, `[S1, S4]`) and the claims they belong to.

Markers are assigned to sentences as everywhere in veritrail (`veritrail_graphrag.citations`:
a marker after the full stop belongs to the sentence before it), but each sentence keeps only its
own: the check is per sentence, as the seed describes it. What a bracket group cites is decided by
a reader: `span_ids` here, or GraphRAG's `[Data: Reports (2, 7)]` reader for GraphRAG answers. A
caller's `citation_regex` (with a group named `id`) replaces bracket groups altogether.

Claims are the answer's sentences (`claim_split="sentences"`), its lines (`"lines"`: one claim per
line, for bulleted answers whose items lack full stops), or the caller's own list.

An id is resolved against the spans: exactly, then ignoring case, then `3` <-> `S3`. Ids that
match no span are kept as unknown, so the report can name them; they never raise.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from veritrail_graphrag.citations import GROUP, GroupReader, find_citations, mark_sentences
from veritrail_graphrag.errors import ClaimsError, UsageError
from veritrail_graphrag.sentences import HEADING

ClaimSplit = Literal["sentences", "lines"]

_ITEM_SEPARATOR = re.compile(r"\s*[,;]\s*|\s+and\s+")
_ID_SHAPE = re.compile(r"^[A-Za-z]{0,3}\d+[A-Za-z]?$")
_WORDS = re.compile(r"\w")


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


@dataclass(frozen=True)
class Markers:
    """How citations are found: candidate markers (`pattern`), the group of a match that `read` gets,
    and `read`, which says what that group cites (None: not a citation)."""

    read: GroupReader
    pattern: re.Pattern[str] = GROUP
    group: str = "body"


def regex_markers(citation_regex: str) -> Markers:
    """Markers matched by a caller's regex; its group `id` holds one id or a list (`S1, S4`)."""
    try:
        pattern = re.compile(citation_regex)
    except re.error as exc:
        raise UsageError(f"citation_regex {citation_regex!r} is not a regular expression ({exc})") from None
    if "id" not in pattern.groupindex:
        raise UsageError(f"citation_regex {citation_regex!r} needs a group named id, e.g. \\[(?P<id>S\\d+)\\]")

    def read(body: str | None) -> list[str] | None:
        items = [item.strip() for item in _ITEM_SEPARATOR.split(body or "") if item.strip()]
        return items or None

    return Markers(read=read, pattern=pattern, group="id")


def _has_words(text: str) -> bool:
    return not HEADING.match(text) and bool(_WORDS.search(text.strip("-*+>|# ")))


def _lines(answer: str, markers: Markers) -> list[tuple[str, list[str]]]:
    """One claim per line; a line holding only markers cites for the line before it."""
    claims: list[tuple[str, list[str]]] = []
    for line in answer.splitlines():
        text, cites = find_citations(line, markers.read, markers.pattern, markers.group)
        if _has_words(text):
            claims.append((text.strip(), cites))
        elif cites and claims:
            claims[-1] = (claims[-1][0], list(dict.fromkeys(claims[-1][1] + cites)))
    return claims


def _given(claims: Sequence[str], markers: Markers) -> list[tuple[str, list[str]]]:
    found = [find_citations(claim, markers.read, markers.pattern, markers.group) for claim in claims]
    empty = [str(i) for i, (text, _) in enumerate(found) if not _WORDS.search(text)]
    if empty:
        raise ClaimsError(f"claim(s) {', '.join(empty)} of the list have no text besides citations")
    return found


def split_cited_claims(
    answer: str | Sequence[str], markers: Markers | None = None, split: ClaimSplit = "sentences"
) -> list[CitedClaim]:
    """The claims of `answer` with their citations: its sentences or lines (headings and empty
    pieces skipped), or, when `answer` is a list, its items as they are."""
    markers = markers or Markers(read=span_ids())
    if not isinstance(answer, str):
        pieces = _given(answer, markers)
    elif split == "lines":
        pieces = _lines(answer, markers)
    else:
        marked = mark_sentences(answer, markers.read, pattern=markers.pattern, group=markers.group)
        pieces = [(m.text, m.cites) for m in marked if _has_words(m.text)]
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
