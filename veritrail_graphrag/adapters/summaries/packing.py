"""Replay BooookScore's hierarchical packing rule to recover which summaries each merge read.

BooookScore (`booookscore/summ.py`, lilakk/BooookScore) stores every level of summaries but not
which children went into which parent. Its rule is deterministic given the tokenizer, the run's
`max_context_len`, `chunk_size` and `max_summary_len`, and the texts themselves, so replaying it
gives the exact edges. In our words, for merge level L >= 1 over the level L-1 summaries:

- the per-level output budgets come from an estimate of the number of levels: chunks that fit
  per prompt = (max_context_len - merge prompt tokens - 20) // c, with c = chunk_size for the
  first level and 450 after; the top level gets max_summary_len and each level below
  word_ratio (0.65) of the one above;
- a level whose whole input fits in one prompt gets max_summary_len instead;
- prompt budget = max_context_len - level budget - merge prompt tokens - 20;
- each merge after the first also carries the previous summary of its level as context, cut to
  20% of the prompt budget (at a token boundary, then back to its last full stop);
- children are added greedily, "Summary j:" blocks joined by blank lines, while context + blocks
  + 20 tokens stay within the prompt budget; the first child is always taken.

A run resumed in the middle of a merge level used a slightly different budget for that level and
is not replayed exactly; the replay then fails loudly (wrong group count) rather than guess.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from veritrail_graphrag.adapters.summaries.tokenizer import Tokenizer

# cl100k_base tokens of BooookScore's merge prompt with empty slots (prompts/get_summaries_hier/
# merge.txt at commit 79d3faa, formatted with '' and 0), measured once with tiktoken.
MERGE_PROMPT_TOKENS = 165
_SLACK = 20
_LATER_LEVEL_CHUNK_TOKENS = 450
_CONTEXT_SHARE = 0.2


class PackingParams(BaseModel):
    """The run settings the packing depends on (BooookScore's command-line defaults)."""

    model_config = ConfigDict(frozen=True)

    max_context_len: int = Field(gt=0)
    chunk_size: int = Field(gt=0)
    max_summary_len: int = Field(default=900, gt=0)
    word_ratio: float = Field(default=0.65, gt=0, le=1)
    merge_prompt_tokens: int = Field(default=MERGE_PROMPT_TOKENS, ge=0)


class PackingError(ValueError):
    """The settings cannot have produced the file (BooookScore itself would loop or fail)."""


def level_budgets(chunk_count: int, params: PackingParams) -> list[int]:
    """Output-token budget per level, lowest first, as BooookScore estimates it up front."""
    fits = (params.max_context_len - params.merge_prompt_tokens - _SLACK) // params.chunk_size
    later_fits = (params.max_context_len - params.merge_prompt_tokens - _SLACK) // _LATER_LEVEL_CHUNK_TOKENS
    levels = 0
    remaining = chunk_count
    while remaining > 1:
        per_prompt = fits if levels == 0 else later_fits
        if per_prompt < 2:
            raise PackingError(
                f"max_context_len={params.max_context_len} fits {per_prompt} input(s) per merge "
                "prompt; BooookScore would never finish merging"
            )
        remaining = math.ceil(remaining / per_prompt)
        levels += 1
    budgets = [params.max_summary_len]
    for _ in range(levels - 1):
        budgets.append(int(budgets[-1] * params.word_ratio))
    return budgets[::-1]


def pack_level(
    level: int,
    children: Sequence[str],
    parents: Sequence[str],
    budgets: Sequence[int],
    params: PackingParams,
    tokenizer: Tokenizer,
) -> list[range]:
    """The consecutive runs of `children` that produced each of `parents` (merge level >= 1)."""

    def count(text: str) -> int:
        return len(tokenizer.encode(text))

    budget = budgets[level] if level < len(budgets) else params.max_summary_len
    overhead = params.merge_prompt_tokens + _SLACK
    if count("\n\n".join(children)) + params.max_summary_len + overhead <= params.max_context_len:
        budget = params.max_summary_len
    prompt_budget = params.max_context_len - budget - overhead
    if prompt_budget <= 0:
        raise PackingError(f"level {level}: no room left for input after a {budget}-token summary")
    groups: list[range] = []
    i = 0
    while i < len(children):
        if len(groups) > len(parents):
            break
        context = _cut_context(parents[len(groups) - 1], prompt_budget, tokenizer) if groups else ""
        start = i
        block = f"Summary 1:\n\n{children[i]}"
        taken = 1
        while i + 1 < len(children):
            longer = f"{block}\n\nSummary {taken + 1}:\n\n{children[i + 1]}"
            if count(context + longer) + _SLACK > prompt_budget:
                break
            block = longer
            taken += 1
            i += 1
        groups.append(range(start, i + 1))
        i += 1
    if len(groups) != len(parents):
        raise PackingError(
            f"level {level}: the replay packs the {len(children)} level-{level - 1} summaries into "
            f"{len(groups)} merges but the file has {len(parents)}"
        )
    return groups


def _cut_context(previous: str, prompt_budget: int, tokenizer: Tokenizer) -> str:
    limit = math.floor(_CONTEXT_SHARE * prompt_budget)
    tokens = tokenizer.encode(previous)
    if len(tokens) <= limit:
        return previous
    cut = tokenizer.decode(tokens[:limit])
    return cut.rsplit(".", 1)[0] + "." if "." in cut else cut
