"""Citations in an output: the markers of each sentence, what a sentence cites, and how a claim's
citations stand against its evidence trail (the models; `citation_accuracy` computes them).

Markers are `[S0]`-style ids, GraphRAG's `[Data: Reports (2, 7)]`, ... A reader (`GroupReader`)
decides what one bracket group cites; this module decides which sentence a marker belongs to:

- a marker inside a sentence belongs to it;
- markers that open a sentence (`... the issuer. [S0] Tokens expire.` splits before `[S0]`, and a
  marker on a line of its own becomes its own piece) belong to the sentence before them;
- with `inherit=True`, a sentence without markers takes those of the next marked sentence of its
  paragraph, as GraphRAG's reports and answers often cite once at the end of a paragraph; the
  sentences that share one marker this way (its own sentence included) are marked `shared`.

Sentences stay aligned with `split_sentences(text)`, so index n is the DAG's sentence `<node>#n`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field, computed_field

from veritrail_graphrag.sentences import split_paragraphs

GroupReader = Callable[[str], list[str] | None]
"""The ids one bracket group's body cites, or None when the group is not a citation."""

GROUP = re.compile(r"\[(?!\^)(?P<body>[^\[\]\n]{1,200})\](?!\()")


class MarkedSentence(BaseModel):
    """One sentence: its text without markers, what it cites, and whether its paragraph shares that."""

    model_config = ConfigDict(frozen=True)

    text: str
    cites: list[str] = Field(default_factory=list)
    shared: bool = False


def find_citations(
    text: str, read: GroupReader, pattern: re.Pattern[str] = GROUP, group: str = "body"
) -> tuple[str, list[str]]:
    """The text with its citation groups removed, and the cited ids in order of first use.
    `pattern` finds candidate markers (bracket groups by default) and `read` gets its `group`."""
    cites: dict[str, None] = {}
    kept: list[str] = []
    last = 0
    for match in pattern.finditer(text):
        items = read(match[group])
        if items is None:
            continue
        kept.append(text[last : match.start()])
        last = match.end()
        cites.update(dict.fromkeys(items))
    kept.append(text[last:])
    cleaned = re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"[ \t]{2,}", " ", "".join(kept))).strip()
    return cleaned, list(cites)


def _leading(sentence: str, read: GroupReader, pattern: re.Pattern[str], group: str) -> tuple[list[str], str]:
    """Citation groups at the very start of a sentence, and the rest of it."""
    cites: list[str] = []
    rest = sentence.lstrip()
    while (match := pattern.match(rest)) and match.end() and (items := read(match[group])) is not None:
        cites += items
        rest = rest[match.end() :].lstrip()
    return cites, rest


def mark_sentences(
    text: str, read: GroupReader, *, inherit: bool = False, pattern: re.Pattern[str] = GROUP, group: str = "body"
) -> list[MarkedSentence]:
    """Per sentence of `text` (aligned with `split_sentences`), its text and citations; `pattern`
    and `group` as for `find_citations`."""
    texts: list[str] = []
    cites: list[list[str]] = []
    paragraph_of: list[int] = []
    for number, paragraph in enumerate(split_paragraphs(text)):
        for sentence in paragraph:
            leading, rest = _leading(sentence, read, pattern, group)
            if leading and cites:
                cites[-1] = list(dict.fromkeys(cites[-1] + leading))
                sentence = rest
            clean, own = find_citations(sentence, read, pattern, group)
            texts.append(clean)
            cites.append(own)
            paragraph_of.append(number)
    shared = [False] * len(texts)
    if inherit:
        for i in range(len(texts) - 2, -1, -1):
            if not cites[i] and paragraph_of[i] == paragraph_of[i + 1] and cites[i + 1]:
                cites[i] = cites[i + 1]
                shared[i] = shared[i + 1] = True
    return [MarkedSentence(text=t, cites=c, shared=h) for t, c, h in zip(texts, cites, shared, strict=True)]


class SentenceCitations(BaseModel):
    """What one sentence of an output cites, resolved against the DAG (the adapter resolves it)."""

    model_config = ConfigDict(frozen=True)

    cited: list[str] = Field(default_factory=list, description="cited records as written, e.g. reports:48")
    nodes: list[str] = Field(default_factory=list, description="the DAG nodes of the cited records")
    unknown: list[str] = Field(default_factory=list, description="cited records that are not nodes of the DAG")
    incomplete: bool = Field(default=False, description="the list ended in +more: only some records were named")
    shared: bool = Field(default=False, description="one marker cites for several sentences of the paragraph")


class ClaimCitations(BaseModel):
    """What the claim's sentence cites, and where those nodes stand in the claim's evidence trail."""

    cited: list[str] = Field(description="records cited, as written (e.g. reports:48)")
    incomplete: bool = Field(description="the citation list ended in +more")
    shared: bool = Field(description="one marker cites for several sentences of the paragraph, this one included")
    unknown: list[str] = Field(description="cited records that are not nodes upstream of this output")
    supporting: list[str] = Field(description="cited nodes that yielded evidence")
    no_evidence: list[str] = Field(description="cited nodes read without yielding evidence (mis-cited)")
    not_reached: list[str] = Field(description="cited nodes the traversal never read")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def uncited(self) -> bool:
        return not self.cited

    @computed_field  # type: ignore[prop-decorator]
    @property
    def in_trail(self) -> bool:
        """The evidence trail passes through a cited node."""
        return bool(self.supporting)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def miscited(self) -> bool:
        """A node the sentence cites was read and yielded no evidence. A marker shared by a
        paragraph lists the records of all its sentences, so a shared list is wrong only when none
        of the nodes read from it yielded evidence."""
        if self.shared:
            return bool(self.no_evidence) and not self.supporting
        return bool(self.no_evidence)
