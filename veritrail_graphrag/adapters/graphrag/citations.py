"""GraphRAG's own citations: `[Data: Reports (2, 7, 34, +more)]`, `[Data: Entities (5); Relationships
(12, 40); Sources (3)]`, and the DAG nodes they name. Outputs also write them under other keys or
none, in any case and without parentheses (`[records: Entities (12)]`, `[relationships (4)]`,
`[Relationship 424]`): every form `markers.MARKER` knows is read.

GraphRAG's prompts ask the model to cite record ids of the tables it was shown, at most five per
dataset, then `+more`. The ids are GraphRAG's short ids: a report's community number, the
`human_readable_id` of an entity, relationship or claim (covariate), and for a text unit
("Sources") its row in `text_units.parquet`, not its `human_readable_id` (GraphRAG's query side
numbers text units by position; the two differ after `graphrag update` and in 1.x indexes).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from veritrail_graphrag.adapters.graphrag import ids
from veritrail_graphrag.citations import SentenceCitations, mark_sentences
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.markers import MARKER, is_marker

Dataset = Literal["reports", "entities", "relationships", "claims", "sources"]

_GROUP = re.compile(
    r"(?P<name>[^\W\d_][^\W\d]*(?:[ \t][^\W\d]+)*?)[ \t]*"
    r"(?:\((?P<ids>[^()]*)\)|(?P<bare>(?:-?\d+|\+[ \t]*more)(?:[ \t]*,[ \t]*(?:-?\d+|\+[ \t]*more))*))"
)
_KEY = re.compile(r"^\s*[^\W\d_]\w*\s*:")
_LABEL = re.compile(r"^(?P<dataset>[a-z]+):(?P<record>-?\d+)$")
MORE = "+more"
_MORE = re.compile(r"^\+\s*more$", re.IGNORECASE)
_NAMES: dict[str, Dataset] = {
    "report": "reports",
    "reports": "reports",
    "entity": "entities",
    "entities": "entities",
    "relationship": "relationships",
    "relationships": "relationships",
    "claim": "claims",
    "claims": "claims",
    "source": "sources",
    "sources": "sources",
}
# Which node kinds a dataset's records become in the DAG, and the metadata key of the short id.
_KINDS: dict[Dataset, tuple[tuple[str, ...], str]] = {
    "reports": (("community_report",), "community"),
    "entities": (("entity", "entity_summary"), "human_readable_id"),
    "relationships": (("relationship", "relationship_summary"), "human_readable_id"),
    "claims": (("covariate",), "human_readable_id"),
    "sources": (("text_unit",), "row"),
}


def dataset_of(name: str) -> Dataset | None:
    """The dataset a citation or context table names (`Reports`, `entity`, `sources`), or None."""
    return _NAMES.get(name.strip().lower())


def record_id(value: object) -> int | None:
    """A short id as GraphRAG writes it (int, float or digits), or None."""
    if isinstance(value, bool) or value is None:
        return None
    text = str(value).strip()
    if text.endswith(".0"):
        text = text[:-2]
    return int(text) if text.lstrip("-").isdigit() else None


class DataCitation(BaseModel):
    """One dataset's part of a `[Data: ...]` marker."""

    model_config = ConfigDict(frozen=True)

    dataset: Dataset
    ids: list[int] = Field(default_factory=list)
    more: bool = Field(default=False, description="the list ended in +more: the model cited only some records")

    def labels(self) -> list[str]:
        return [f"{self.dataset}:{i}" for i in self.ids]


def _references(body: str) -> list[DataCitation]:
    """The dataset references of one marker's body, its key (`Data:`, `records:`) left aside."""
    found: list[DataCitation] = []
    for group in _GROUP.finditer(_KEY.sub("", body, count=1)):
        dataset = dataset_of(group["name"])
        if dataset is None:
            continue
        tokens = [t.strip() for t in (group["ids"] if group["ids"] is not None else group["bare"]).split(",")]
        numbers = [int(t) for t in tokens if t.lstrip("-").isdigit()]
        found.append(DataCitation(dataset=dataset, ids=numbers, more=any(_MORE.match(t) for t in tokens)))
    return found


def data_citations(text: str) -> list[DataCitation]:
    """Every dataset reference of every citation marker in `text`, in order; datasets we do not
    know and ids that are not numbers are skipped."""
    return [found for marker in MARKER.finditer(text) for found in _references(marker["body"])]


def read_data_group(body: str, keep_more: bool = False) -> list[str] | None:
    """What one bracket group cites, as `dataset:id` labels (`reports:2`), if it is a citation
    marker (`[]` when it names no record we know); None otherwise. `keep_more` adds
    `reports:+more` where the list was cut short."""
    if not is_marker(f"[{body}]"):
        return None
    citations = _references(body)
    more = [f"{c.dataset}:{MORE}" for c in citations if c.more] if keep_more else []
    return [label for citation in citations for label in citation.labels()] + more


def cited_ids(citations: Iterable[DataCitation], dataset: Dataset) -> list[int]:
    """The ids cited for one dataset, in order of first use."""
    return list(dict.fromkeys(i for c in citations if c.dataset == dataset for i in c.ids))


class CitationIndex:
    """Finds the node of a cited record: `report:<community>`, or the node whose metadata holds the
    record's `human_readable_id` (an entity's or relationship's final description, a claim, a
    text unit). Built once per DAG; per-chunk extraction nodes are never citation targets."""

    def __init__(self, dag: DAG) -> None:
        by_kind = {kind: (dataset, key) for dataset, (kinds, key) in _KINDS.items() for kind in kinds}
        self._nodes: dict[tuple[Dataset, int], str] = {}
        for node in dag:
            if node.kind not in by_kind or ids.FROM_CHUNK in node.id:
                continue
            dataset, key = by_kind[node.kind]
            record = record_id(node.metadata.get(key))
            if record is not None:
                self._nodes.setdefault((dataset, record), node.id)

    def node(self, dataset: Dataset, record: int) -> str | None:
        return self._nodes.get((dataset, record))

    def label_node(self, label: str) -> str | None:
        """The node of a `dataset:id` label such as `reports:2`, or None."""
        match = _LABEL.match(label)
        if match is None or match["dataset"] not in _KINDS:
            return None
        return self.node(match["dataset"], int(match["record"]))  # type: ignore[arg-type]

    def resolve(self, citations: Iterable[DataCitation]) -> tuple[list[str], list[str]]:
        """Node ids of the cited records, and the `dataset:id` labels that match no node."""
        found: list[str] = []
        unknown: list[str] = []
        for citation in citations:
            for record in citation.ids:
                node = self.node(citation.dataset, record)
                if node is None:
                    unknown.append(f"{citation.dataset}:{record}")
                else:
                    found.append(node)
        return list(dict.fromkeys(found)), list(dict.fromkeys(unknown))


def record_text(dag: DAG, node_id: str) -> str:
    """A cited record's text as evidence: entity and relationship descriptions get their names in
    front, since a description often does not repeat the name it describes."""
    node = dag.node(node_id)
    meta = node.metadata
    if node.kind.startswith("entity") and meta.get("title"):
        return f"{meta['title']}: {node.text}"
    if node.kind.startswith("relationship") and meta.get("source") and meta.get("target"):
        return f"{meta['source']} -> {meta['target']}: {node.text}"
    return node.text


def cited_records(dag: DAG, text: str) -> dict[str, str]:
    """`{label: evidence text}` for every record `text` cites that the index holds (`reports:2`)."""
    index = CitationIndex(dag)
    labels = dict.fromkeys(label for c in data_citations(text) for label in c.labels())
    nodes = {label: index.label_node(label) for label in labels}
    return {label: record_text(dag, node) for label, node in nodes.items() if node is not None}


def sentence_citations(dag: DAG, terminals: Iterable[str]) -> dict[str, list[SentenceCitations]]:
    """Per terminal, per sentence (`<terminal>#n` is index n), the records it cites and their nodes.

    GraphRAG cites once per paragraph as often as per sentence, so a sentence without a marker
    takes the next marker of its paragraph (`shared`)."""
    index = CitationIndex(dag)
    read = functools.partial(read_data_group, keep_more=True)
    out: dict[str, list[SentenceCitations]] = {}
    for terminal in terminals:
        sentences: list[SentenceCitations] = []
        for marked in mark_sentences(dag.node(terminal).text, read, inherit=True):
            labels = [label for label in marked.cites if not label.endswith(f":{MORE}")]
            nodes = {label: index.label_node(label) for label in labels}
            sentences.append(
                SentenceCitations(
                    cited=labels,
                    nodes=list(dict.fromkeys(n for n in nodes.values() if n is not None)),
                    unknown=[label for label, node in nodes.items() if node is None],
                    incomplete=len(labels) < len(marked.cites),
                    shared=marked.shared,
                )
            )
        out[terminal] = sentences
    return out
