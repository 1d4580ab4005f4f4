"""The entailment question of the cited-answer check, written for this project.

One prompt asks whether the spans shown entail the claim and wants one word back, YES, NO or
UNSURE, so that the first answer token's log-probabilities are the model's belief. The prior asks
the same question with the cited spans' text replaced by a placeholder: the span ids stay, so the
two prompts differ only in the evidence. Spans go to the model in data blocks, like every text
that did not come from us (`veritrail_graphrag.llm.request`).

The two prompts of a claim share their longest possible start, for endpoints that cache prompt
prefixes (OpenAI, vLLM, llama.cpp): the instructions, then the spans both show (uncited spans in
context mode "all"), then the cited spans, and the claim last; and every prompt of one check
carries the same data-block tag (`seal`), so claims citing the same spans share their evidence.
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


def entailment_prompt(
    claim: str, spans: Sequence[Span], cited: frozenset[str], *, prior: bool, seal: str | None = None
) -> Prompt:
    """Ask whether `spans` entail `claim`. Spans in `cited` come after the others and, in the
    `prior` prompt, show the placeholder instead of their text."""
    blocks = DataBlocks(seal)
    if spans:
        blocks.text("The evidence spans:")
        for span in sorted(spans, key=lambda s: s.sid in cited):
            blocks.block(f"span {span.sid}", WITHHELD if prior and span.sid in cited else span.text)
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
