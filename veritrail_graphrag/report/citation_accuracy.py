"""Citation accuracy: does a claim cite the nodes its evidence trail actually passes through?

The adapter says what each sentence of an output cites (`SentenceCitations`: GraphRAG's
`[Data: Reports (2, 7, +more)]` resolved to DAG nodes); the engine says which nodes yielded
evidence for each claim. Per claim, every cited node is then one of:

- `supporting`: it yielded evidence in some iteration (the trail passes through it);
- `no_evidence`: it was read and yielded none, so the citation is wrong (mis-cited; for a list
  shared by the sentences of a paragraph, only when no cited node yielded evidence);
- `not_reached`: the traversal stopped before reading it, so nothing can be said.

Claims with no known sentence (a claims file) have no citations entry. Rates are over the claims
that have one; `in_trail` and `miscited` are over the claims that cite a node of the DAG.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field, computed_field

from veritrail_graphrag.citations import ClaimCitations, SentenceCitations
from veritrail_graphrag.engine.trail import ClaimResult


def claim_citations(result: ClaimResult, cited: SentenceCitations) -> ClaimCitations:
    evidence = {n for it in result.iterations for n in it.nodes_with_evidence}
    read = {n for it in result.iterations for n in it.checked}
    return ClaimCitations(
        cited=cited.cited,
        incomplete=cited.incomplete,
        shared=cited.shared,
        unknown=cited.unknown,
        supporting=[n for n in cited.nodes if n in evidence],
        no_evidence=[n for n in cited.nodes if n in read and n not in evidence],
        not_reached=[n for n in cited.nodes if n not in read],
    )


def attach_citations(
    results: Sequence[ClaimResult], citations: Mapping[str, Sequence[SentenceCitations]]
) -> list[ClaimResult]:
    """The results with `citations` filled in where the claim's terminal and sentence are known."""
    out: list[ClaimResult] = []
    for result in results:
        sentences = citations.get(result.terminal)
        index = result.claim.sentence
        if sentences is None or index is None or index >= len(sentences):
            out.append(result)
            continue
        out.append(result.model_copy(update={"citations": claim_citations(result, sentences[index])}))
    return out


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


class CitationSummary(BaseModel):
    claims: int = Field(description="claims whose sentence is known")
    uncited: int
    citing_known_nodes: int = Field(description="claims citing at least one node of the DAG")
    in_trail: int
    miscited: int
    incomplete: int = Field(description="claims whose citation list ends in +more")
    with_unknown: int = Field(description="claims citing records that are not in the DAG")
    shared: int = Field(description="claims citing through a marker their paragraph shares")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def uncited_rate(self) -> float | None:
        return _rate(self.uncited, self.claims)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def in_trail_rate(self) -> float | None:
        return _rate(self.in_trail, self.citing_known_nodes)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def miscited_rate(self) -> float | None:
        return _rate(self.miscited, self.citing_known_nodes)


def summarize_citations(results: Sequence[ClaimResult]) -> CitationSummary | None:
    entries = [r.citations for r in results if r.citations is not None]
    if not entries:
        return None
    return CitationSummary(
        claims=len(entries),
        uncited=sum(c.uncited for c in entries),
        citing_known_nodes=sum(bool(c.supporting or c.no_evidence or c.not_reached) for c in entries),
        in_trail=sum(c.in_trail for c in entries),
        miscited=sum(c.miscited for c in entries),
        incomplete=sum(c.incomplete for c in entries),
        with_unknown=sum(bool(c.unknown) for c in entries),
        shared=sum(c.shared for c in entries),
    )
