"""P(YES) and P(NO) of one entailment answer: read from log-probabilities, or estimated from samples.

From log-probabilities: at the first answer token that is not whitespace, the probabilities of
every variant of a label among the top-k tokens are summed ("YES", "Yes", " yes", and the first
piece of a label a tokenizer splits, such as "UN" for "UNSURE"). A label absent from the top-k
has a probability between 0 and the smallest top-k probability (p_k), and never more than the
mass the top-k leaves over.

From samples (endpoints without log-probabilities): the share of answers with each label, as a
Wilson interval.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from veritrail_graphrag.cited.budget import Probability, wilson
from veritrail_graphrag.llm.completion import TokenLogprobs


class Label(StrEnum):
    YES = "YES"
    NO = "NO"
    UNSURE = "UNSURE"


class LabelError(ValueError):
    """The model's answer is not one of the labels."""


class Belief(BaseModel):
    """What one probe (prior or posterior) says: P(YES), P(NO), and the label the model gave."""

    model_config = ConfigDict(frozen=True)

    yes: Probability
    no: Probability
    label: Label
    samples: int = 0


_LETTERS = re.compile(r"[^a-z]")


def token_label(token: str) -> Label | None:
    """The label a token starts (whole or the first piece of it), ignoring case, spaces, quotes."""
    word = _LETTERS.sub("", token.lower())
    if not word:
        return None
    for label in Label:
        if label.value.lower().startswith(word) and (len(word) >= 2 or label is not Label.UNSURE):
            return label
    return None


def answer_label(text: str) -> Label:
    """The label an answer gives: its first word, which must be one of YES, NO, UNSURE."""
    match = re.search(r"[A-Za-z]+", text)
    word = match.group(0).upper() if match else ""
    if word not in Label.__members__:
        shown = text.strip()[:60] or "(empty)"
        raise LabelError(f"expected YES, NO or UNSURE, got {shown!r}")
    return Label(word)


def _label_mass(top: Sequence[tuple[str, float]], label: Label) -> tuple[float, bool]:
    probabilities = [(token, math.exp(logprob)) for token, logprob in top]
    seen = [p for token, p in probabilities if token_label(token) is label]
    return sum(seen), bool(seen)


def belief_from_logprobs(tokens: Sequence[TokenLogprobs], text: str) -> Belief:
    """P(YES) and P(NO) at the first non-whitespace answer token; LabelError if the answer is not
    a label (the caller asks again rather than scoring an answer the model did not give)."""
    label = answer_label(text)
    position = next((t for t in tokens if t.token.strip()), None)
    if position is None:
        raise LabelError("the answer carries no log-probabilities")
    top = position.top or [(position.token, position.logprob)]
    total = min(1.0, sum(math.exp(logprob) for _, logprob in top))
    smallest = min(math.exp(logprob) for _, logprob in top)
    leftover = max(0.0, 1.0 - total)
    odds: dict[Label, Probability] = {}
    for name in (Label.YES, Label.NO):
        mass, seen = _label_mass(top, name)
        mass = min(mass, 1.0)
        odds[name] = Probability.exactly(mass) if seen else Probability(min=0.0, max=min(smallest, leftover))
    return Belief(yes=odds[Label.YES], no=odds[Label.NO], label=label)


def belief_from_samples(labels: Sequence[Label], confidence: float = 0.95) -> Belief:
    """Wilson intervals for the shares of YES and NO among sampled answers."""
    counts = Counter(labels)
    n = len(labels)
    label = counts.most_common(1)[0][0] if counts else Label.UNSURE
    return Belief(
        yes=wilson(counts[Label.YES], n, confidence),
        no=wilson(counts[Label.NO], n, confidence),
        label=label,
        samples=n,
    )
