"""Reading P(YES) / P(NO) from top-k log-probabilities and from samples."""

from __future__ import annotations

import math

import pytest

from veritrail_graphrag.cited.belief import (
    Label,
    LabelError,
    answer_label,
    belief_from_logprobs,
    belief_from_samples,
    token_label,
)
from veritrail_graphrag.llm.completion import TokenLogprobs


def odds(generated: str, top: dict[str, float]) -> list[TokenLogprobs]:
    pairs = [(token, math.log(p)) for token, p in top.items()]
    return [TokenLogprobs(token=generated, logprob=math.log(top.get(generated, 1e-9)), top=pairs)]


def test_label_variants_are_summed() -> None:
    belief = belief_from_logprobs(odds("YES", {"YES": 0.6, "Yes": 0.2, " yes": 0.1, "NO": 0.05, "UN": 0.05}), "YES")
    assert belief.label is Label.YES
    assert belief.yes.min == belief.yes.max == pytest.approx(0.9)
    assert belief.no.min == belief.no.max == pytest.approx(0.05)


def test_an_absent_label_is_an_interval_up_to_the_kth_probability() -> None:
    belief = belief_from_logprobs(odds("NO", {"NO": 0.5, "UNSURE": 0.3, "Unclear": 0.1}), "NO")
    # YES is not among the top 3: at most p_3 = 0.1 (the top 3 leave 0.1 over, so no tighter bound)
    assert belief.yes.min == 0.0 and belief.yes.max == pytest.approx(0.1)
    tight = belief_from_logprobs(odds("NO", {"NO": 0.95, "UNSURE": 0.04}), "NO")
    # p_2 = 0.04, but the top 2 leave only 0.01 for every other token
    assert tight.yes.max == pytest.approx(0.01)


def test_the_first_token_that_is_not_whitespace_is_read() -> None:
    tokens = [TokenLogprobs(token="\n", logprob=0.0, top=[("\n", 0.0)]), *odds("YES", {"YES": 0.7, "NO": 0.3})]
    assert belief_from_logprobs(tokens, "\nYES").yes.max == pytest.approx(0.7)


def test_an_answer_that_is_not_a_label_is_refused() -> None:
    with pytest.raises(LabelError, match="expected YES, NO or UNSURE"):
        belief_from_logprobs(odds("The", {"The": 0.9, "YES": 0.1}), "The claim holds")
    with pytest.raises(LabelError, match="no log-probabilities"):
        belief_from_logprobs([], "YES")


@pytest.mark.parametrize(
    ("token", "label"),
    [("YES", Label.YES), (" yes", Label.YES), ("Y", Label.YES), ("No", Label.NO), ("UN", Label.UNSURE),
     ("unsure", Label.UNSURE), ("U", None), ("Not", None), ("{", None)],
)  # fmt: skip
def test_token_labels(token: str, label: Label | None) -> None:
    assert token_label(token) is label


def test_answer_labels() -> None:
    assert answer_label("  yes.") is Label.YES
    assert answer_label("UNSURE") is Label.UNSURE
    with pytest.raises(LabelError):
        answer_label("")


def test_samples_give_wilson_intervals() -> None:
    belief = belief_from_samples([Label.YES] * 5 + [Label.NO] * 5)
    assert belief.samples == 10
    assert (belief.yes.min, belief.yes.max) == (pytest.approx(0.236593, abs=1e-6), pytest.approx(0.763407, abs=1e-6))
    assert belief.no == belief.yes
    unanimous = belief_from_samples([Label.YES] * 10)
    assert unanimous.label is Label.YES and unanimous.no.max == pytest.approx(0.277533, abs=1e-6)
