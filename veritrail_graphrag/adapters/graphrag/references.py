"""The index's own records named in a report's prose: "entity 438 describes ...", "relationships
353, 354 and 365", "(entities 2529-2534)", "HIV INFECTION (452)".

GraphRAG shows the model that writes a report the tables of its community with their short ids,
and reports quote those ids in their sentences as well as in `[Data: ...]` markers. Such a number
names a record; it counts nothing, and no description holds its own id, so a verifier that looks
for a claim's numbers in its evidence flags every one of them (on a Russian index with English
reports, most of the claims flagged). Where the id resolves to a record the index holds, as the
markers' ids do (`CitationIndex`), the characters are a reference (`Claim.references`) and
offline verifiers leave them unchecked. An id that names no record stays a number to check: a
reference to nothing is the report's own invention.

A keyword names the table (entity, relationship, community, record: any of them); a number in
parentheses, bare or labelled as an id ("(452)", "(ID 452)", "(id: 452)"), is a reference only
right after the title of the entity it resolves to. Some reports write every entity so ("TERMINAL
HEART FAILURE (ID 1667)": 697 times in one published index); an id given to another entity than
the one it follows ("DYSPNEA (ID 1625)", 1625 being another disease) stays a number to check.

GraphRAG also shows the writer each entity's degree and each relationship's combined degree, and
reports quote them ("The Gentleman's degree (degree: 3)", "a combined degree of 16"). A degree is
a reference when one of the report's own input records has it (an entity's `degree` for
"degree", a relationship's `combined_degree` for "combined degree"); any other stays a number to
check. Indexes that do not keep a record's degree (entities before GraphRAG 2.x) have none.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator

from veritrail_graphrag.adapters.graphrag.citations import CitationIndex, Dataset
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.markers import RECORD_IDS

Span = tuple[int, int]

_TABLES: dict[str, tuple[Dataset, ...]] = {
    "entit": ("entities",),
    "relationship": ("relationships",),
    "communit": ("reports",),
    "record": ("entities", "relationships", "reports"),
}
_BARE = re.compile(r"\((?:(?i:id)[ \t:#]*)?(?P<id>\d+)\)")
_NUMBER = re.compile(r"\d+")
_RANGE = re.compile(r"^(?:[ \t]*[\-\u2010\u2011\u2013][ \t]*|[ \t]+to[ \t]+)$")
_LONGEST_RANGE = 100
"""A range of more ids than this is no list of records a sentence names."""
_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2013": "-", "\u2014": "-", "\u00a0": " "})
_OWN_PARENTHESIS = re.compile(r"\s*\([^()]*\)$")
_DEGREE = re.compile(r"(?i:\b(?P<combined>combined\s+)?degree\b)[^\d.;!?]{0,12}?(?<![\w.])(?P<value>\d+)(?!\w|\.\d)")
"""A degree and its value: "degree of 2", "(degree: 3)", "combined degree of 16"; "3 degrees
north" puts the number first and is none."""


def _plain(text: str) -> str:
    """A name as compared: dashes and spaces of any kind alike, any case."""
    return " ".join(text.translate(_DASHES).split()).casefold()


class RecordIndex:
    """The records of one DAG by short id, with each entity's title (built once per DAG)."""

    def __init__(self, dag: DAG) -> None:
        self.citations = CitationIndex(dag)
        self.dag = dag

    def holds(self, datasets: tuple[Dataset, ...], record: int) -> bool:
        """Whether one of the tables holds the record ("record 452" may be any table's)."""
        return any(self.citations.node(dataset, record) is not None for dataset in datasets)

    def titled(self, record: int, before: str) -> bool:
        """Whether `before` ends with the title of entity `record` (or its title without its own
        closing parenthesis: "PROTOCOL (452)" for the entity "PROTOCOL (2023 REVISIONS)")."""
        node = self.citations.node("entities", record)
        title = str(self.dag.node(node).metadata.get("title") or "") if node is not None else ""
        said = _plain(before)
        for name in {_plain(title), _plain(_OWN_PARENTHESIS.sub("", title))} - {""}:
            if said.endswith(name) and (len(said) == len(name) or not said[-len(name) - 1].isalnum()):
                return True
        return False

    def _keyed(self, text: str) -> Iterator[Span]:
        """A table's name with its ids: the whole phrase when every id resolves (a range, every id
        in it), else only the ids that do, so that the others are still checked."""
        for match in RECORD_IDS.finditer(text):
            datasets = next(v for k, v in _TABLES.items() if match["table"].lower().startswith(k))
            numbers = list(_NUMBER.finditer(text, match.start("ids"), match.end()))
            resolved = [self.holds(datasets, int(n.group())) for n in numbers]
            for i, (left, right) in enumerate(zip(numbers, numbers[1:])):
                if _RANGE.match(text[left.end() : right.start()]):
                    low, high = int(left.group()), int(right.group())
                    between = range(low + 1, high) if 0 <= high - low <= _LONGEST_RANGE else None
                    if between is None or not all(self.holds(datasets, r) for r in between):
                        resolved[i] = resolved[i + 1] = False
            if all(resolved):
                yield match.start(), match.end()
            else:
                yield from (n.span() for n, ok in zip(numbers, resolved, strict=True) if ok)

    def _bare(self, text: str, taken: list[Span]) -> Iterator[Span]:
        """"(452)" or "(ID 452)" right after the title of entity 452; a year or a count after another
        name is no reference ("MILL POND (1900)")."""
        for match in _BARE.finditer(text):
            inside = any(start <= match.start("id") < end for start, end in taken)
            if not inside and self.titled(int(match["id"]), text[: match.start()].rstrip()):
                yield match.span()

    def references(self, text: str, terminal: str | None = None) -> list[Span]:
        """The characters of `text` that name records of the index, in order; with `terminal`
        (the output the text is a claim of), also the degrees its input records give."""
        keyed = list(self._keyed(text))
        degrees = list(self._degrees(text, terminal)) if terminal is not None else []
        return sorted(keyed + list(self._bare(text, keyed)) + degrees)

    def _degrees(self, text: str, terminal: str) -> Iterator[Span]:
        """A degree one of `terminal`'s inputs has: "degree" an entity's, "combined degree" a
        relationship's."""
        given: dict[str, set[float]] = {"degree": set(), "combined_degree": set()}
        for source in self.dag.src(terminal):
            metadata = self.dag.node(source).metadata
            for key, values in given.items():
                if isinstance(value := metadata.get(key), int | float):
                    values.add(float(value))
        for match in _DEGREE.finditer(text):
            key = "combined_degree" if match["combined"] else "degree"
            if float(match["value"]) in given[key]:
                yield match.span("value")


_INDEXES: weakref.WeakKeyDictionary[DAG, RecordIndex] = weakref.WeakKeyDictionary()
_CANDIDATE = re.compile(r"(?i:entit|relationship|communit|record|degree)[^\n]{0,12}?\d|\((?:(?i:id)[ \t:#]*)?\d+\)")


def record_references(dag: DAG, text: str, terminal: str | None = None) -> list[Span]:
    """The characters of `text` (a claim of one of `dag`'s outputs, `terminal` when known) that
    name the DAG's own records or quote their degrees. The DAG's records are indexed once, and
    only when some text could name one."""
    if _CANDIDATE.search(text) is None:
        return []
    index = _INDEXES.get(dag)
    if index is None:
        index = _INDEXES[dag] = RecordIndex(dag)
    return index.references(text, terminal)
