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

    def references(self, text: str) -> list[Span]:
        """The characters of `text` that name records of the index, in order."""
        keyed = list(self._keyed(text))
        return sorted(keyed + list(self._bare(text, keyed)))


_INDEXES: weakref.WeakKeyDictionary[DAG, RecordIndex] = weakref.WeakKeyDictionary()
_CANDIDATE = re.compile(r"(?i:entit|relationship|communit|record)[^\n]{0,12}?\d|\((?:(?i:id)[ \t:#]*)?\d+\)")


def record_references(dag: DAG, text: str) -> list[Span]:
    """The characters of `text` (a claim of one of `dag`'s outputs) that name the DAG's own
    records. The DAG's records are indexed once, and only when some text could name one."""
    if _CANDIDATE.search(text) is None:
        return []
    index = _INDEXES.get(dag)
    if index is None:
        index = _INDEXES[dag] = RecordIndex(dag)
    return index.references(text)
