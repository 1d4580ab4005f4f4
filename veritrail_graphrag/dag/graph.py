"""A generative process as a DAG of texts (the paper's section 2).

Nodes are pydantic models; the structure lives in a networkx DiGraph of ids. Texts are split into
sentences lazily, once per node, the first time the engine reads the node: a GraphRAG index has
~100K nodes and one claim reads well under 1% of them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import networkx as nx
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from veritrail_graphrag.errors import DagError, TerminalError, excerpt, named, validation_problem
from veritrail_graphrag.files import atomic_write_text, read_json
from veritrail_graphrag.languages import detect_language
from veritrail_graphrag.models import Sentence
from veritrail_graphrag.sentences import split_sentences, splitting_language

FORMAT_NAME = "veritrail-dag"
FORMAT_VERSION = 1


class Node(BaseModel):
    """One text of the process. `stage` never decreases along an edge; roots are the source."""

    model_config = ConfigDict(frozen=True)

    id: str
    text: str
    stage: int = Field(ge=0)
    kind: str = "node"
    metadata: dict[str, Any] = Field(default_factory=dict)


class DagFile(BaseModel):
    """The on-disk JSON form; the manual's "A DAG file and your own claims" has an example."""

    format: str = FORMAT_NAME
    version: int = FORMAT_VERSION
    metadata: dict[str, Any] = Field(default_factory=dict)
    nodes: list[Node]
    edges: list[tuple[str, str]]


def _edge_pair(edge: Any, position: int) -> tuple[str, str]:
    if isinstance(edge, Mapping):
        try:
            return str(edge["source"]), str(edge["target"])
        except KeyError as exc:
            raise DagError(f"edge #{position} has no {exc.args[0]!r} field", row=position) from None
    try:
        source, target = edge
    except (TypeError, ValueError):
        raise DagError(f"edge #{position} is not a (source, target) pair: {excerpt(edge)}", row=position) from None
    return str(source), str(target)


class DAG:
    """Validated, immutable DAG. Build it with `from_records` or `from_json`."""

    def __init__(self, nodes: dict[str, Node], graph: nx.DiGraph, metadata: dict[str, Any]) -> None:
        self._nodes = nodes
        self._graph = graph
        self.metadata = metadata
        self._sentences: dict[str, list[Sentence]] = {}
        self._languages: dict[str, str | None] = {}
        self._roots = frozenset(n for n in graph if graph.in_degree(n) == 0)
        self._sinks = [n for n in graph if graph.out_degree(n) == 0]
        self._fingerprint: str | None = None

    @classmethod
    def from_records(
        cls,
        nodes: Iterable[Node | Mapping[str, Any]],
        edges: Iterable[tuple[str, str] | Mapping[str, Any]],
        metadata: Mapping[str, Any] | None = None,
    ) -> DAG:
        """Validate and build. Refuses cycles, dangling edges, decreasing stages, empty/duplicate ids."""
        table: dict[str, Node] = {}
        duplicates: list[str] = []
        for position, record in enumerate(nodes):
            node = record if isinstance(record, Node) else _parse_node(record, position)
            if not node.id.strip():
                raise DagError(f"node #{position} has an empty id", row=position, ids=[node.id])
            if node.id in table:
                duplicates.append(node.id)
            table[node.id] = node
        if duplicates:
            raise DagError(f"duplicate node ids: {named(duplicates)}", ids=duplicates)
        empty = [n.id for n in table.values() if not n.text.strip()]
        if empty:
            raise DagError(f"nodes with empty text: {named(empty)}", ids=empty)

        graph = nx.DiGraph()
        graph.add_nodes_from(table)
        pairs = [_edge_pair(edge, i) for i, edge in enumerate(edges)]
        dangling = sorted({f"{u} -> {v}" for u, v in pairs if u not in table or v not in table})
        if dangling:
            raise DagError(f"edges naming unknown nodes: {named(dangling)}", ids=dangling)
        graph.add_edges_from(pairs)

        decreasing = [f"{u} -> {v}" for u, v in graph.edges if table[v].stage < table[u].stage]
        if decreasing:
            raise DagError(
                f"stage decreases along edges (stage(target) must be >= stage(source)): {named(decreasing)}",
                ids=decreasing,
            )
        if not nx.is_directed_acyclic_graph(graph):
            cycle = [u for u, _ in nx.find_cycle(graph)]
            raise DagError(f"the graph has a cycle through: {named(cycle)}", ids=cycle)
        return cls(table, graph, dict(metadata or {}))

    @classmethod
    def from_json(cls, path: str | Path) -> DAG:
        path = Path(path)
        data = read_json(path, DagError)
        if not isinstance(data, dict) or "nodes" not in data:
            raise DagError(f"expected an object with 'nodes' and 'edges' (format {FORMAT_NAME!r})", file=path)
        version = data.get("version", 1)
        newer = isinstance(version, int | float) and version > FORMAT_VERSION
        if data.get("format", FORMAT_NAME) != FORMAT_NAME or newer:
            raise DagError(
                f"format {excerpt(data.get('format'))} version {excerpt(version)} is not "
                f"{FORMAT_NAME!r} <= {FORMAT_VERSION}",
                file=path,
            )
        raw_edges = data.get("edges") or []
        if not isinstance(raw_edges, list):
            raise DagError(f"'edges' must be a list of [source, target] pairs, not {excerpt(raw_edges)}", file=path)
        try:
            edges = [_edge_pair(edge, i) for i, edge in enumerate(raw_edges)]
        except DagError as exc:
            raise DagError(exc.problem, file=path, row=exc.row) from None
        try:
            parsed = DagFile.model_validate({**data, "edges": edges})
        except ValidationError as exc:
            raise DagError(_describe(exc, data), file=path) from None
        try:
            return cls.from_records(parsed.nodes, parsed.edges, parsed.metadata)
        except DagError as exc:
            raise DagError(exc.problem, file=path, row=exc.row, ids=exc.ids) from None

    def to_json(self, path: str | Path) -> None:
        """Write the JSON form atomically (temp file + rename)."""
        document = DagFile(
            metadata=self.metadata,
            nodes=list(self._nodes.values()),
            edges=list(self._graph.edges),
        )
        atomic_write_text(Path(path), document.model_dump_json(indent=1))

    def fingerprint(self) -> str:
        """sha256 of every node's id, stage and text and of every edge: two DAGs with the same
        fingerprint give an audit the same texts (a report stores it so that a DAG re-read from
        the run's artifacts can be checked before its texts fill in the report's)."""
        if self._fingerprint is None:
            digest = hashlib.sha256()
            for node in self._nodes.values():
                digest.update(f"{node.id}\0{node.stage}\0{node.text}\0".encode())
            for source, target in self._graph.edges:
                digest.update(f"{source}\0{target}\0".encode())
            self._fingerprint = digest.hexdigest()
        return self._fingerprint

    def __len__(self) -> int:
        return len(self._nodes)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._nodes

    def __iter__(self) -> Iterator[Node]:
        return iter(self._nodes.values())

    @property
    def graph(self) -> nx.DiGraph:
        """The structure (ids only). Do not mutate it."""
        return self._graph

    @property
    def edges(self) -> list[tuple[str, str]]:
        return list(self._graph.edges)

    def node(self, node_id: str) -> Node:
        try:
            return self._nodes[node_id]
        except KeyError:
            raise DagError(f"unknown node id {excerpt(node_id)}", ids=[node_id]) from None

    def src(self, node_id: str) -> list[str]:
        """The inputs of the step that produced `node_id`."""
        self.node(node_id)
        return list(self._graph.predecessors(node_id))

    def outputs(self, node_id: str) -> list[str]:
        self.node(node_id)
        return list(self._graph.successors(node_id))

    @property
    def roots(self) -> frozenset[str]:
        """Nodes with no inputs: the source material."""
        return self._roots

    def is_root(self, node_id: str) -> bool:
        return node_id in self._roots

    @property
    def sinks(self) -> list[str]:
        return list(self._sinks)

    @property
    def terminal(self) -> str:
        """The unique node with no outputs; an error naming the sinks when there are several."""
        if len(self._sinks) != 1:
            raise DagError(
                f"the DAG has {len(self._sinks)} terminal nodes, choose one with --terminal: {named(self._sinks)}",
                ids=self._sinks,
            )
        return self._sinks[0]

    def resolve_terminal(self, terminal: str | None) -> str:
        """The node whose claims are traced: `terminal`, or the unique sink. A node without inputs
        is source text: there is nothing to trace it to, so it is refused rather than blamed."""
        node_id = self.terminal if terminal is None else self.node(terminal).id
        if self.is_root(node_id):
            raise TerminalError(
                f"node {node_id!r} has no inputs (it is source text), so its claims cannot be traced; "
                "verify a node that was produced from other nodes",
                node_id,
            )
        return node_id

    def stage(self, node_id: str) -> int:
        return self.node(node_id).stage

    def language(self, node_id: str) -> str | None:
        """The language the node is written in (an ISO 639-1 code), or None when it cannot be told;
        detected on first use and once, like its sentences (`languages.detect_language`)."""
        if node_id not in self._languages:
            self._languages[node_id] = detect_language(self.node(node_id).text)
        return self._languages[node_id]

    def sentences(self, node_id: str) -> list[Sentence]:
        """The node's sentences with stable ids `<node id>#<n>`, split on first use only, by the
        rules of the node's language (`sentences.split_sentences`)."""
        cached = self._sentences.get(node_id)
        if cached is None:
            text = self.node(node_id).text
            language = splitting_language(text, lambda _: self.language(node_id))
            cached = [
                Sentence(id=f"{node_id}#{i}", node_id=node_id, index=i, text=s)
                for i, s in enumerate(split_sentences(text, language))
            ]
            self._sentences[node_id] = cached
        return cached

    @property
    def split_count(self) -> int:
        """How many nodes have been split into sentences so far (nodes actually read)."""
        return len(self._sentences)

    @property
    def language_count(self) -> int:
        """How many nodes' languages have been detected so far (nodes a traversal reached)."""
        return len(self._languages)

    def stages(self) -> dict[int, int]:
        """Node count per stage, for summaries."""
        counts: dict[int, int] = {}
        for node in self._nodes.values():
            counts[node.stage] = counts.get(node.stage, 0) + 1
        return dict(sorted(counts.items()))


def _parse_node(record: Mapping[str, Any], position: int) -> Node:
    try:
        return Node.model_validate(record)
    except ValidationError as exc:
        node_id = record.get("id", f"#{position}") if isinstance(record, Mapping) else f"#{position}"
        raise DagError(f"node {excerpt(node_id)}: {validation_problem(exc)}", row=position, ids=[str(node_id)]) from None


def _describe(exc: ValidationError, data: dict[str, Any]) -> str:
    """Name the node id (not just the list index) behind the first validation problem."""
    loc = list(exc.errors()[0]["loc"])
    if len(loc) >= 2 and loc[0] == "nodes" and isinstance(loc[1], int):
        node = data["nodes"][loc[1]]
        if isinstance(node, dict) and "id" in node:
            return validation_problem(exc, f"node {excerpt(node['id'])} ({'.'.join(map(str, loc))})")
    return validation_problem(exc)
