"""The cited-answer check without a model: which cited spans hold any evidence for the claim.

The lexical verifier cannot give probabilities, so no bits are computed (never invented); what it
can do is run its Evidence Selection on each cited span and report the spans in which nothing
bears on the claim, which is how most wrong citations show.
"""

from __future__ import annotations

from collections.abc import Sequence

from veritrail_graphrag.cited.spans import Span
from veritrail_graphrag.models import Claim, Sentence
from veritrail_graphrag.sentences import split_sentences
from veritrail_graphrag.verifiers.lexical import LexicalVerifier


def span_sentences(span: Span) -> list[Sentence]:
    return [
        Sentence(id=f"{span.sid}#{i}", node_id=span.sid, index=i, text=text)
        for i, text in enumerate(split_sentences(span.text))
    ]


async def spans_without_evidence(verifier: LexicalVerifier, claim_text: str, spans: Sequence[Span]) -> list[str]:
    """Ids of the spans in which lexical Evidence Selection finds nothing for the claim."""
    claim = Claim(id="claim", text=claim_text, sub_claims=await verifier.decompose(claim_text))
    empty: list[str] = []
    for span in spans:
        selection = await verifier.select_evidence(claim, span_sentences(span))
        if not selection.selected:
            empty.append(span.sid)
    return empty
