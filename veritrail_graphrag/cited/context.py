"""What the questions about one claim show, decided before any call: pure, no I/O.

Each span is read once per check: its questions, instructions and headings are removed
(`non_evidence`), and the report lists what each span lost. Per claim, the citations are
resolved against the spans, and a claim that no answer of the model could make supported gets
its status here, without a call:

- `no_citations` (context mode "cited", nothing cited: there is nothing to show), or
  `missing_citations` when citations are required;
- `unknown_citations`: every cited id names no span (some unknown and some known: the claim is
  checked on the known ones, and its status says unknown_citations unless it is contradicted);
- `no_evidence_text`: every cited span is questions, instructions or headings.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from veritrail_graphrag.cited.budget import Status
from veritrail_graphrag.cited.claims import CitedClaim, resolve_cite
from veritrail_graphrag.cited.non_evidence import evidence_text
from veritrail_graphrag.cited.spans import Span


class SpanEvidence:
    """The spans of one check, each with its non-evidence removed."""

    def __init__(self, spans: Sequence[Span]) -> None:
        self.spans = list(spans)
        self.ids = {span.sid for span in spans}
        self.removed: dict[str, list[str]] = {}
        self._shown: dict[str, Span] = {}
        for span in spans:
            kept = evidence_text(span.text)
            if kept.removed:
                self.removed[span.sid] = kept.removed
            if kept.text.strip():
                self._shown[span.sid] = span.model_copy(update={"text": kept.text})

    def shown(self, sid: str) -> Span | None:
        """The span as the model sees it, or None when nothing in it may assert anything."""
        return self._shown.get(sid)

    def all_shown(self) -> list[Span]:
        return [span for span in (self.shown(s.sid) for s in self.spans) if span is not None]


class ClaimContext(BaseModel):
    """The spans a claim's two questions show, or the status it gets without a question."""

    model_config = ConfigDict(frozen=True)

    shown: list[Span] = Field(default_factory=list, description="what the posterior shows")
    withheld: frozenset[str] = Field(default=frozenset(), description="span ids whose text the prior replaces")
    unknown: list[str] = Field(default_factory=list, description="cited ids that match no span")
    without_text: list[str] = Field(default_factory=list, description="cited spans with no evidence text left")
    skip: Status | None = Field(default=None, description="the status when no question is asked")


def claim_context(claim: CitedClaim, evidence: SpanEvidence, mode: str, require_citations: bool) -> ClaimContext:
    """Resolve the claim's citations and choose its context (`mode`: "cited" or "all")."""
    resolved = {cite: resolve_cite(cite, evidence.ids) for cite in claim.cites}
    unknown = [cite for cite, sid in resolved.items() if sid is None]
    cited_ids = list(dict.fromkeys(sid for sid in resolved.values() if sid is not None))
    cited = [span for span in (evidence.shown(sid) for sid in cited_ids) if span is not None]
    without_text = [sid for sid in cited_ids if evidence.shown(sid) is None]
    found = {"unknown": unknown, "without_text": without_text}
    if not claim.cites and mode == "cited":
        skip = Status.MISSING_CITATIONS if require_citations else Status.NO_CITATIONS
        return ClaimContext(skip=skip, **found)
    if claim.cites and not cited:
        return ClaimContext(skip=Status.UNKNOWN_CITATIONS if unknown else Status.NO_EVIDENCE_TEXT, **found)
    shown = cited if mode == "cited" else evidence.all_shown()
    withheld = frozenset(span.sid for span in (cited or shown))
    return ClaimContext(shown=shown, withheld=withheld, **found)
