"""Bracket citations in a written answer (`[S0]`, `[3]`, `[S1, S4]`) and the claims they belong to.

Markers are assigned to sentences as everywhere in veritrail (`veritrail_graphrag.citations`:
a marker after the full stop belongs to the sentence before it), but each sentence keeps only its
own: the check is per sentence, as the seed describes it. What a bracket group cites is decided by
a reader: `span_ids` here, or GraphRAG's `[Data: Reports (2, 7)]` reader for GraphRAG answers.

An id is resolved against the spans: exactly, then ignoring case, then `3` <-> `S3`. Ids that
match no span are kept as unknown, so the report can name them; they never raise.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from pydantic import BaseModel, ConfigDict, Field

from veritrail_graphrag.citations import GroupReader, mark_sentences
from veritrail_graphrag.sentences import HEADING

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


def split_cited_claims(answer: str, read: GroupReader | None = None) -> list[CitedClaim]:
    """Sentence-sized claims of `answer` with their citations; headings and empty pieces skipped."""
    marked = mark_sentences(answer, read or span_ids())
    kept = [m for m in marked if not HEADING.match(m.text) and _WORDS.search(m.text.strip("-*+>|# "))]
    return [CitedClaim(idx=i, text=m.text, cites=m.cites) for i, m in enumerate(kept)]


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
