"""The index nodes behind a search's context records, with GraphRAG's id rules.

Local, basic and DRIFT search show the model tables of records, each with a short id: a report's
community number, the `human_readable_id` of an entity, relationship or claim, and a text unit's
row number (`Sources (n)`). The same ids are what the answer cites, so records resolve through
`CitationIndex`. Each record's text is checked against its node: a run asked against another
version of the index (re-indexed, or after `graphrag update`, which renumbers text units) must
fail loudly, never be traced through the wrong text.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from veritrail_graphrag.adapters.graphrag.citations import CitationIndex, Dataset, dataset_of, record_id
from veritrail_graphrag.adapters.graphrag.query_run import Records, Scalar
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.errors import AdapterError, excerpt

# The column holding each dataset's text in GraphRAG 3.3's context tables, checked against the node.
_TEXT_COLUMN: dict[Dataset, str] = {
    "entities": "description",
    "relationships": "description",
    "claims": "description",
    "sources": "text",
}


@dataclass
class ContextNodes:
    """Which index nodes a context window showed, and what was left unwired and why."""

    nodes: list[str] = field(default_factory=list)
    outside_window: Counter[str] = field(default_factory=Counter)
    without_text: Counter[str] = field(default_factory=Counter)
    other_datasets: Counter[str] = field(default_factory=Counter)

    def summary(self) -> dict[str, object]:
        """What the DAG's metadata says about the records that are not inputs."""
        return {
            "records_wired": len(self.nodes),
            "records_outside_window": dict(self.outside_window),
            "records_without_text": dict(self.without_text),
            "datasets_not_wired": dict(self.other_datasets),
        }


def _text(value: Scalar) -> str:
    return "" if value is None else str(value).strip()


def _in_window(record: dict[str, Scalar]) -> bool:
    """GraphRAG marks candidates that did not fit with `in_context` false; unmarked records were shown."""
    flag = record.get("in_context", True)
    return flag is not False and str(flag).lower() != "false"


def _check(dag: DAG, node_id: str, dataset: Dataset, record: dict[str, Scalar], where: str) -> None:
    node = dag.node(node_id)
    if dataset == "reports":
        shown, stored = _text(record.get("title")), _text(node.metadata.get("title"))
        if not shown or not stored:
            return
    else:
        shown, stored = _text(record.get(_TEXT_COLUMN[dataset])), node.text.strip()
    if shown != stored:
        named_node = node_id if len(node_id) <= 40 else excerpt(node_id, 40)
        raise AdapterError(
            f"{where}: {dataset} record {excerpt(record.get('id'), 30)} does not match the index ({named_node} reads "
            f"{excerpt(stored, 30)}, the run was shown {excerpt(shown, 30)}); was the run asked against another "
            "version of the index (re-indexed, or before `graphrag update`)?",
            ids=[node_id],
        )


def context_nodes(dag: DAG, records: Records, where: str, citations: CitationIndex | None = None) -> ContextNodes:
    """The nodes of the records that were in the context window, in dataset order, without repeats."""
    index = citations or CitationIndex(dag)
    found = ContextNodes()
    for name, rows in records.items():
        dataset = dataset_of(name)
        if dataset is None:
            found.other_datasets[name] += len(rows)
            continue
        for row in rows:
            if not _in_window(row):
                found.outside_window[dataset] += 1
                continue
            if dataset != "reports" and not _text(row.get(_TEXT_COLUMN[dataset])):
                found.without_text[dataset] += 1
                continue
            record = record_id(row.get("id"))
            node = None if record is None else index.node(dataset, record)
            if node is None:
                raise AdapterError(
                    f"{where}: {dataset} record {excerpt(row.get('id'), 30)} is not in the index "
                    "(was the run asked against another index?)"
                )
            _check(dag, node, dataset, row, where)
            found.nodes.append(node)
    found.nodes = list(dict.fromkeys(found.nodes))
    return found
