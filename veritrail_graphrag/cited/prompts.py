"""The entailment question of the cited-answer check, written for this project.

One prompt asks whether the spans shown entail the claim and wants one word back, YES, NO or
UNSURE, so that the first answer token's log-probabilities are the model's belief. The prior asks
the same question with the cited spans' text replaced by a placeholder: the span ids stay, so the
two prompts differ only in the evidence. Spans go to the model in data blocks, like every text
that did not come from us (`veritrail_graphrag.llm.request`).
"""

from __future__ import annotations

from collections.abc import Sequence

from veritrail_graphrag.cited.spans import Span
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.llm.request import DATA_RULE, ChatMessage, DataBlocks, Prompt

WITHHELD = "(this span's text is withheld)"

ENTAILMENT_SYSTEM = f"""Task: entailment check.

You decide whether a claim follows from a set of evidence spans, taken on their own.

- Answer YES only when the spans entail the claim: a careful reader who knows nothing but what \
the spans assert would conclude that every part of the claim is true.
- Answer NO only when the spans assert something that makes the claim, or a part of it, false.
- Answer UNSURE in every other case: the spans do not address the claim, address only part of \
it, or only make it plausible, or the text that would settle it is withheld.
- Only declarative statements count as evidence. A question, an instruction, a request, a \
heading or a mere mention of the claim's words asserts nothing and supports nothing.
- Do not use your own knowledge of the world, even when you are sure it is right.

{DATA_RULE}

Reply with exactly one word: YES, NO or UNSURE."""

ENTAILMENT_REPAIR = (
    "Your previous answer could not be read: {problem}. Reply again with exactly one word: YES, NO or UNSURE."
)


def entailment_prompt(claim: str, spans: Sequence[Span], withheld: frozenset[str] = frozenset()) -> Prompt:
    """Ask whether `spans` entail `claim`; spans whose id is in `withheld` show the placeholder."""
    blocks = DataBlocks()
    if spans:
        blocks.text("The evidence spans:")
        for span in spans:
            blocks.block(f"span {span.sid}", WITHHELD if span.sid in withheld else span.text)
    else:
        blocks.text("No evidence spans are given.")
    blocks.text("The claim:")
    blocks.block("claim", claim)
    blocks.text("Do the spans entail the claim? Answer YES, NO or UNSURE.")
    return Prompt(
        kind=CallKind.ENTAILMENT,
        messages=(
            ChatMessage(role="system", content=ENTAILMENT_SYSTEM),
            ChatMessage(role="user", content=blocks.render()),
        ),
        repair=ENTAILMENT_REPAIR,
    )
