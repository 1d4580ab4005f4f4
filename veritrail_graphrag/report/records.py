"""A claim's result as report.json version 2 and the checkpoint store it: ids, not texts.

Version 1 repeated every evidence sentence as a whole object, every root's full text in each
iteration's verdict input, and each Evidence Selection summary twice (batch and excerpt): 1 MB for
the 7-claim sample, 140 MB for a 3,365-claim index audit. A record keeps sentence ids (their texts
live once in evidence.parquet beside the report or in its sentence table, or in the DAG for a
checkpoint), node ids (stage, kind and GraphRAG ids live once in the report's node table) and its
own summaries once, referenced by position. `from_record` puts the texts back through a
`TextSource`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from pydantic import BaseModel, Field, ValidationError

from veritrail_graphrag.citations import ClaimCitations
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.engine.trail import BatchRecord, ClaimResult, Iteration, StopReason, untraced
from veritrail_graphrag.errors import excerpt
from veritrail_graphrag.models import Claim, Excerpt, Sentence, SupportGap, Verdict

ID_KEYS = ("id", "human_readable_id", "community", "title", "row")
"""Node metadata worth a reader's join: GraphRAG's own ids (and a report's community and title)."""


NodeRef = str | int
"""A node: its id, or in report.json its position in the node table (ids are long; a claim names
hundreds of nodes)."""


class NodeInfo(BaseModel):
    """What a reader needs of a node the audit touched; its text only with --full-trail (otherwise
    the run's artifacts hold it: see the report's `dag_fingerprint`)."""

    stage: int
    kind: str
    ids: dict[str, Any] = Field(default_factory=dict)
    language: str | None = Field(default=None, description="the node's language (ISO 639-1), None when unknown")
    text: str | None = None

    @classmethod
    def of(cls, node: Node, with_text: bool, language: str | None = None) -> NodeInfo:
        ids = {key: node.metadata[key] for key in ID_KEYS if node.metadata.get(key) is not None}
        return cls(stage=node.stage, kind=node.kind, ids=ids, language=language, text=node.text if with_text else None)


NODE_COLUMNS = ("node_id", "stage", "kind", *ID_KEYS, "language", "text")
"""report.json's node table, column by column (as `pd.DataFrame(report["nodes"])` reads it): our
node id, then GraphRAG's ids under GraphRAG's names, as in evidence.parquet."""


def node_columns(nodes: Mapping[str, NodeInfo]) -> dict[str, list[Any]]:
    """The node table as columns: a row per node, an id or text column no node has left out.
    Columns, not one object per node, because hundreds of nodes would repeat every key (a third of
    the table)."""
    optional = {key: [info.ids.get(key) for info in nodes.values()] for key in ID_KEYS}
    optional["language"] = [info.language for info in nodes.values()]
    optional["text"] = [info.text for info in nodes.values()]
    return {
        "node_id": list(nodes),
        "stage": [info.stage for info in nodes.values()],
        "kind": [info.kind for info in nodes.values()],
        **{name: values for name, values in optional.items() if any(v is not None for v in values)},
    }


def nodes_from_columns(columns: Mapping[str, list[Any]]) -> dict[str, NodeInfo]:
    """The node table back; `ValueError` naming the column, or the row and its node id."""
    unknown = sorted(set(columns) - set(NODE_COLUMNS))
    if unknown:
        raise ValueError(f"nodes: unknown column {unknown[0]!r}")
    ids = columns.get("node_id")
    if not isinstance(ids, list):
        raise ValueError("nodes.node_id: a list of node ids is required")
    for name, values in columns.items():
        if not isinstance(values, list) or len(values) != len(ids):
            raise ValueError(f"nodes.{name}: not a list of {len(ids)} values, one per node")
    nodes: dict[str, NodeInfo] = {}
    for row, node_id in enumerate(ids):
        if not isinstance(node_id, str):
            raise ValueError(f"nodes.node_id row {row}: a node id is a string, not {excerpt(node_id)}")
        value = {name: values[row] for name, values in columns.items() if values[row] is not None}
        try:
            nodes[node_id] = NodeInfo(
                stage=value.get("stage"),  # type: ignore[arg-type]
                kind=value.get("kind"),  # type: ignore[arg-type]
                ids={key: value[key] for key in ID_KEYS if key in value},
                language=value.get("language"),
                text=value.get("text"),
            )
        except ValidationError as exc:
            problem = exc.errors()[0]
            raise ValueError(
                f"nodes row {row} ({node_id!r}): {'.'.join(map(str, problem['loc']))}: {problem['msg']}"
            ) from None
    return nodes


class BatchRef(BaseModel):
    node_ids: list[NodeRef]
    shown: list[str]
    selected: list[str]
    context: list[str]
    discarded: list[str] = Field(default_factory=list)
    summary: int | None = Field(default=None, description="position in the record's `texts`")
    reselection: bool = False


class ExcerptRef(BaseModel):
    node_id: NodeRef
    is_root: bool
    covers: list[NodeRef] = Field(default_factory=list)
    abridged: bool = False
    beside_checked: bool = False
    text: int | None = Field(
        default=None, description="position in `texts`; None for a root shown whole: the node's text"
    )


class IterationRecord(BaseModel):
    index: int
    checked: list[NodeRef]
    carried_roots: list[NodeRef] = Field(default_factory=list)
    nodes_with_evidence: list[NodeRef]
    evidence: list[str] = Field(description="sentence ids")
    context: list[str] = Field(default_factory=list, description="sentence ids")
    batches: list[BatchRef] = Field(default_factory=list)
    skipped: list[str] = Field(
        default_factory=list, description="sentences the prefilter left out, as `<node id>#<first>-<last>`"
    )
    not_read: dict[str, list[NodeRef]] = Field(
        default_factory=dict, description="candidates not shown to the verifier, by their language"
    )
    excerpts: list[ExcerptRef] = Field(default_factory=list)
    reselections: int = 0
    omitted_from_verdict: list[NodeRef] = Field(default_factory=list)
    verdict: Verdict
    reasoning: str = ""
    score: float | None = None
    gaps: list[SupportGap] = Field(default_factory=list)
    no_agreement: bool = False


class ClaimRecord(BaseModel):
    claim: Claim
    terminal: str
    language: str | None = None
    unread_languages: list[str] = Field(default_factory=list)
    verdict: Verdict
    reasoning: str | None = Field(default=None, description="None: the last iteration's, which it usually is")
    score: float | None = None
    error_stages: list[int] | None
    error_note: str = ""
    stop_reason: StopReason
    citations: ClaimCitations | None = None
    nodes_read: int = 0
    texts: list[StoredText] = Field(default_factory=list, description="Evidence Selection summaries, each once")
    iterations: list[IterationRecord]
    gaps: list[SupportGap] | None = Field(
        default=None, description="None: the last iteration's, which they usually are"
    )

    @property
    def not_traced(self) -> bool:
        return untraced(self.verdict, self.stop_reason)

    def dump(self) -> bytes:
        """Compact JSON, fields at their defaults left out (`error_stages` has no default: its None
        says that no stage could be named)."""
        return self.model_dump_json(exclude_defaults=True).encode()


class TextSource(Protocol):
    """Where the texts of a record come from: the report's tables, or the DAG itself."""

    def node_id(self, ref: NodeRef) -> str: ...

    def sentence(self, sentence_id: str) -> Sentence: ...

    def node_text(self, node_id: str) -> str: ...


def split_sentence_id(sentence_id: str) -> tuple[str, int]:
    """`<node id>#<n>` -> (node id, n); node ids may themselves hold '#'. `ValueError` quoting a
    short excerpt of an id that is not of that form (a hand-edited report)."""
    node_id, _, index = sentence_id.rpartition("#")
    if not index.isdecimal():
        raise ValueError(f"sentence id {excerpt(sentence_id)} is not '<node id>#<n>'")
    return node_id, int(index)


class DagTexts:
    """Texts from the DAG the record was computed on (a checkpoint's DAG matches by its key)."""

    def __init__(self, dag: DAG) -> None:
        self.dag = dag

    def node_id(self, ref: NodeRef) -> str:
        if isinstance(ref, int):
            raise ValueError(f"node {ref} by position, but a checkpoint names nodes by id")
        return ref

    def sentence(self, sentence_id: str) -> Sentence:
        node_id, index = split_sentence_id(sentence_id)
        return self.dag.sentences(node_id)[index]

    def node_text(self, node_id: str) -> str:
        return self.dag.node(node_id).text


def full_sentence_id(sentence_ref: str, node_ids: list[str]) -> str:
    """`<row>#<n>` -> `<node id>#<n>` (a ref that names its node by id stays as it is)."""
    node, _, index = sentence_ref.rpartition("#")
    return f"{node_ids[int(node)]}#{index}" if node.isdigit() and int(node) < len(node_ids) else sentence_ref


class TableTexts:
    """Texts from a report's tables: sentence texts by sentence id (`<node id>#<n>`), from the
    report's sentence table or evidence.parquet, else from `dag` when given; a root's full text
    from the node table (--full-trail), else from `dag`, else empty (its selected sentences are
    known). In the file a sentence is `<row>#<n>`, by its node's row in the node table."""

    def __init__(self, sentences: dict[str, str], nodes: dict[str, NodeInfo], dag: DAG | None = None) -> None:
        self.sentences = sentences
        self.nodes = nodes
        self.ids = list(nodes)
        self.dag = dag

    def node_id(self, ref: NodeRef) -> str:
        return self.ids[ref] if isinstance(ref, int) else ref

    def sentence(self, sentence_id: str) -> Sentence:
        full = full_sentence_id(sentence_id, self.ids)
        node_id, index = split_sentence_id(full)
        text = self.sentences.get(full)
        if text is None:
            if self.dag is None:
                raise KeyError(full)
            return self.dag.sentences(node_id)[index]
        return Sentence(id=full, node_id=node_id, index=index, text=text)

    def node_text(self, node_id: str) -> str:
        info = self.nodes.get(node_id)
        if info is not None and info.text is not None:
            return info.text
        return self.dag.node(node_id).text if self.dag is not None else ""


StoredText = str | list[str]
"""A text, or the sentences it is made of: their ids, joined by spaces, with "\n" for a line break."""

_PREFIX = 12


class _Texts:
    """A record's own texts, each stored once. A summary that only strings together sentences of
    the trail (the lexical verifier's are made so) is stored as their ids: their texts are in the
    sentence table already."""

    def __init__(self, sentences: list[tuple[str, str]]) -> None:
        """`sentences`: (ref, text) of the sentences the record names."""
        self.items: list[StoredText] = []
        self.position: dict[str, int] = {}
        self.starting: dict[str, list[tuple[str, str]]] = {}
        for ref, full in sentences:
            text = full.strip()
            if text:
                self.starting.setdefault(text[:_PREFIX], []).append((text, ref))

    def ref(self, text: str) -> int | None:
        if not text:
            return None
        if text not in self.position:
            self.position[text] = len(self.items)
            self.items.append(self._as_sentences(text) or text)
        return self.position[text]

    def _as_sentences(self, text: str) -> list[str] | None:
        pieces: list[str] = []
        for number, line in enumerate(text.split("\n")):
            if number:
                pieces.append("\n")
            at = 0
            while at < len(line):
                found = next(
                    ((t, i) for t, i in self.starting.get(line[at : at + _PREFIX], ()) if line.startswith(t, at)), None
                )
                if found is None:
                    return None
                pieces.append(found[1])
                at += len(found[0])
                if at < len(line):
                    if line[at] != " ":
                        return None
                    at += 1
        return pieces


def stored_text(stored: StoredText, source: TextSource) -> str:
    """A text back from its stored form."""
    if isinstance(stored, str):
        return stored
    lines: list[list[str]] = [[]]
    for piece in stored:
        if piece == "\n":
            lines.append([])
        else:
            lines[-1].append(source.sentence(piece).text.strip())
    return "\n".join(" ".join(line) for line in lines)


def sentence_ref(sentence: Sentence, number: Mapping[str, int]) -> str:
    """`<row>#<n>` when the sentence's node has a row in the report's node table, else its id."""
    row = number.get(sentence.node_id)
    return sentence.id if row is None else f"{row}#{sentence.index}"


def _iteration_record(it: Iteration, texts: _Texts, batches: bool, number: Mapping[str, int]) -> IterationRecord:
    def refs(ids: list[str]) -> list[NodeRef]:
        return [number.get(n, n) for n in ids]

    return IterationRecord(
        index=it.index,
        checked=refs(it.checked),
        carried_roots=refs(it.carried_roots),
        nodes_with_evidence=refs(it.nodes_with_evidence),
        evidence=[sentence_ref(s, number) for s in it.evidence],
        context=[sentence_ref(s, number) for s in it.context],
        batches=[
            BatchRef(
                **b.model_dump(exclude={"summary", "node_ids"}), node_ids=refs(b.node_ids), summary=texts.ref(b.summary)
            )
            for b in it.batches
        ]
        if batches
        else [],
        skipped=it.skipped if batches else [],
        not_read={language: refs(nodes) for language, nodes in it.not_read.items()},
        excerpts=[
            ExcerptRef(
                node_id=number.get(e.node_id, e.node_id),
                is_root=e.is_root,
                covers=refs(e.covers),
                abridged=e.abridged,
                beside_checked=e.beside_checked,
                text=None if e.is_root and not e.abridged else texts.ref(e.text),
            )
            for e in it.excerpts
        ],
        reselections=it.reselections,
        omitted_from_verdict=refs(it.omitted_from_verdict),
        verdict=it.verdict,
        reasoning=it.reasoning,
        score=it.score,
        gaps=it.gaps,
        no_agreement=it.no_agreement,
    )


def to_record(result: ClaimResult, batches: bool = True, number: Mapping[str, int] | None = None) -> ClaimRecord:
    """The record of a result; without `batches`, the Evidence Selection prompts' records (which
    sentences each prompt showed: for debugging a verifier) are left out. `number`: node ids by
    their position in the report's node table (ids not in it stay ids)."""
    number = number or {}
    texts = _Texts([(sentence_ref(s, number), s.text) for it in result.iterations for s in (*it.evidence, *it.context)])
    iterations = [_iteration_record(it, texts, batches, number) for it in result.iterations]
    return ClaimRecord(
        claim=result.claim,
        terminal=result.terminal,
        language=result.language,
        unread_languages=result.unread_languages,
        verdict=result.verdict,
        reasoning=None if iterations and iterations[-1].reasoning == result.reasoning else result.reasoning,
        score=result.score,
        error_stages=result.error_stages,
        error_note=result.error_note,
        stop_reason=result.stop_reason,
        citations=result.citations,
        nodes_read=result.nodes_read,
        texts=texts.items,
        iterations=iterations,
        gaps=None if iterations and iterations[-1].gaps == result.gaps else result.gaps,
    )


def _iteration(record: IterationRecord, texts: list[str], source: TextSource) -> Iteration:
    """`texts`: the record's texts, already resolved."""

    def ids(refs: list[NodeRef]) -> list[str]:
        return [source.node_id(n) for n in refs]

    return Iteration(
        index=record.index,
        checked=ids(record.checked),
        carried_roots=ids(record.carried_roots),
        nodes_with_evidence=ids(record.nodes_with_evidence),
        evidence=[source.sentence(s) for s in record.evidence],
        context=[source.sentence(s) for s in record.context],
        batches=[
            BatchRecord(
                **b.model_dump(exclude={"summary", "node_ids"}),
                node_ids=ids(b.node_ids),
                summary="" if b.summary is None else texts[b.summary],
            )
            for b in record.batches
        ],
        skipped=record.skipped,
        not_read={language: ids(nodes) for language, nodes in record.not_read.items()},
        excerpts=[
            Excerpt(
                node_id=source.node_id(e.node_id),
                is_root=e.is_root,
                covers=ids(e.covers),
                abridged=e.abridged,
                beside_checked=e.beside_checked,
                text=source.node_text(source.node_id(e.node_id)) if e.text is None else texts[e.text],
            )
            for e in record.excerpts
        ],
        reselections=record.reselections,
        omitted_from_verdict=ids(record.omitted_from_verdict),
        verdict=record.verdict,
        reasoning=record.reasoning,
        score=record.score,
        gaps=record.gaps,
        no_agreement=record.no_agreement,
    )


def _claim_reasoning(record: ClaimRecord) -> str:
    if record.reasoning is not None:
        return record.reasoning
    return record.iterations[-1].reasoning if record.iterations else ""


def from_record(record: ClaimRecord, source: TextSource) -> ClaimResult:
    """The full result, texts resolved; `KeyError`/`IndexError` when a text is not in `source`."""
    return ClaimResult(
        claim=record.claim,
        terminal=record.terminal,
        language=record.language,
        unread_languages=record.unread_languages,
        verdict=record.verdict,
        reasoning=_claim_reasoning(record),
        score=record.score,
        error_stages=record.error_stages,
        error_note=record.error_note,
        stop_reason=record.stop_reason,
        iterations=[_iteration(it, [stored_text(t, source) for t in record.texts], source) for it in record.iterations],
        citations=record.citations,
        gaps=record.gaps if record.gaps is not None else (record.iterations[-1].gaps if record.iterations else []),
    )


def touched_nodes(result: ClaimResult) -> set[str]:
    """Every node a result names: the report's node table describes them all."""
    nodes = {result.terminal}
    for it in result.iterations:
        nodes.update(it.checked, it.carried_roots, it.nodes_with_evidence, it.omitted_from_verdict)
        nodes.update(n for unread in it.not_read.values() for n in unread)
        nodes.update(s.node_id for s in (*it.evidence, *it.context))
        for shown in it.excerpts:
            nodes.update(shown.nodes)
        for batch in it.batches:
            nodes.update(batch.node_ids)
    return nodes
