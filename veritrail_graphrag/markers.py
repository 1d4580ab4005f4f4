"""What a citation marker looks like, in any of the forms the outputs we audit write them.

GraphRAG's prompts ask for `[Data: Reports (2, 7, +more)]`; published indexes also hold
`[records: Entities (1292)]`, `[data: entities (3); relationships (5)]`, `[Relationships (2052)]`,
`[Relationship 424]` and `[+more]`; other pipelines cite `[S0]` or `[3, 4]`. A marker is a bracket
group holding record references only: an optional key (`Data:`, `records:`, any word), then
datasets with their ids, or ids alone, where an id has a digit or is `+more`; or whatever follows
GraphRAG's own keys (`Data:`, `Sources:`, `records:`), which never begin a bracket of text; or,
in round brackets, such a key and record references (`(Data: Relationships (334))`). A
bracket of words (`[Illustration: A flushed group]`, `[sic]`) is text, not a marker.

Sentence splitting gives a marker to the sentence it follows, and claims are made of the words
around markers, never of a marker.

Reports also name records in their prose, outside any marker: a table's name and ids ("entity
438", "relationships 353, 354 and 365", "(entities 2529-2534)"), `RECORD_IDS`.
"""

from __future__ import annotations

import re

_ID = r"(?:\+\s*more|[^\W\d_]{0,3}-?\d[\w.\-]*)"
_IDS = rf"{_ID}(?:\s*,\s*{_ID})*"
_REFERENCE = rf"(?:[^\W\d_][^\W\d]*(?:[ \t][^\W\d]+){{0,2}}[ \t]*(?:\(\s*{_IDS}\s*\)|{_IDS})|{_IDS})"
_BODY = rf"(?:[^\W\d_]\w{{0,20}}[ \t]*:[ \t]*)?{_REFERENCE}(?:[ \t]*[;,][ \t]*{_REFERENCE})*"
_KEYED = r"(?i:data|sources?|records)[ \t]*:[^\[\]\n]*"
_ROUND = rf"(?i:data|sources?|records)[ \t]*:[ \t]*{_REFERENCE}(?:[ \t]*[;,][ \t]*{_REFERENCE})*"
MARKER = re.compile(
    rf"(?:(?P<square>\[)|\()[ \t]*"
    rf"(?P<body>(?(square)(?:{_BODY}|{_KEYED})|{_ROUND}))"
    rf"[ \t]*(?(square)\](?!\()|\))"
)
"""One citation marker; its `body` is what is between the brackets. In round brackets only
GraphRAG's keys with record references are a marker ("(Data: Relationships (334))"), which three
published indexes write beside their square ones; "(1921)" or "(see Entities 3)" is prose."""


_RECORD_ID = r"\d+(?!\.?\d)"
_ID_JOIN = r"(?:[ \t]*,[ \t]*(?:and[ \t]+|or[ \t]+)?|[ \t]+(?:and|or|to)[ \t]+|[ \t]*[&\-\u2010\u2011\u2013][ \t]*)"
RECORD_IDS = re.compile(
    r"\b(?P<table>(?i:entit(?:y|ies)|relationships?|communit(?:y|ies)|records?))\b"
    r"[ \t]*(?:(?i:ids?|nos?\.?|numbers?|#)[ \t]*)?\(?[ \t]*"
    rf"(?P<ids>{_RECORD_ID}(?:{_ID_JOIN}{_RECORD_ID})*)"
)
"""A table's name and the ids of its records, in prose: `ids` is the list ("40, 41 and 42", "40-42")."""


def blank_record_ids(text: str) -> str:
    """`text` with every table's name and ids `RECORD_IDS` finds made spaces, so that the other
    characters stay where they were: an id names a record, it counts nothing, and "entity" beside
    it tells nothing of what a number near it counts."""
    return RECORD_IDS.sub(lambda m: " " * len(m.group()), text)


def is_marker(text: str) -> bool:
    """Whether `text` (a bracket group with its brackets) is one citation marker."""
    return MARKER.fullmatch(text.strip()) is not None


_ENDED = re.compile(r"[.!?\u3002\uff01\uff1f]\s*$")
_STOP_AFTER = re.compile(r"^\s*[.\u3002]")


def _after_dropped(kept: list[str], piece: str) -> str:
    """The text after a dropped marker without the spaces that would double those before it."""
    return piece.lstrip(" \t") if kept and kept[-1][-1:] in (" ", "\t") else piece


def strip_markers(text: str) -> str:
    """`text` without its citation markers, and without the space a marker left before a
    punctuation mark ("is here [Data: ...]." -> "is here."), or the full stop the markers were
    given after the sentence had ended ("ends. [Data: ...]." -> "ends.")."""
    kept: list[str] = []
    at = 0
    ended = False  # whether the markers being dropped stand after a sentence's end
    for marker in MARKER.finditer(text):
        piece = _after_dropped(kept, text[at : marker.start()])
        if piece.strip():
            piece = _STOP_AFTER.sub("", piece, count=1) if ended else piece
            ended = _ENDED.search(piece) is not None
        kept.append(piece)
        at = marker.end()
    tail = _after_dropped(kept, text[at:])
    kept.append(_STOP_AFTER.sub("", tail, count=1) if ended else tail)
    return re.sub(r"\s+([.,;:!?\u3002\uff0c\uff1b\uff1a\uff01\uff1f])", r"\1", "".join(kept)).strip()
