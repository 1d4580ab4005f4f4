"""The verdict model: a logistic model over the findings' counts, whose every weight can only
lower the belief that a claim is supported (a missing name never makes a claim more likely true),
and the thresholds that turn that belief into three verdicts.

The weights are fitted by `benchmarks/fit_facts.py` on the dev splits of `veritrail eval` and
shipped in `weights.json` beside this module, with a note of what they were fitted on. They are
read once per process, from the package, with no network.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib.resources import files

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from veritrail_graphrag.errors import VerifierConfigError
from veritrail_graphrag.verifiers.facts.features import FEATURES

WEIGHTS_FILE = "weights.json"


class FactsModel(BaseModel):
    """`bias` and one non-negative weight per feature: P(supported) = sigmoid(bias - w . x).

    A claim is Not Fully Supported when P < `not_supported_below` and a checkable fact is missing
    or contradicted, or when less than `min_covered` of it is in the evidence at all; Inconclusive
    when P < `inconclusive_below` otherwise (the claim is mostly wording the evidence does not
    share, or the evidence is too far from it to judge); Fully Supported otherwise. A missing name
    or number counts only when the evidence is close to the claim (at least `close_covered` of its
    terms), since far evidence lacks names the claim rightly has."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    bias: float
    weights: dict[str, float]
    not_supported_below: float = Field(ge=0.0, le=1.0)
    inconclusive_below: float = Field(ge=0.0, le=1.0)
    close_covered: float = Field(ge=0.0, le=1.0)
    min_covered: float = Field(ge=0.0, le=1.0)
    fitted_on: str = Field(description="data, split, date and command that produced these values")

    @model_validator(mode="after")
    def _monotone_and_complete(self) -> FactsModel:
        if set(self.weights) != set(FEATURES):
            raise ValueError(f"weights must name exactly these features: {', '.join(FEATURES)}")
        negative = [name for name, w in self.weights.items() if w < 0]
        if negative:
            raise ValueError(f"weights must not be negative (a finding never speaks for a claim): {negative}")
        return self

    def probability(self, values: dict[str, float]) -> float:
        z = self.bias - sum(self.weights[name] * values.get(name, 0.0) for name in FEATURES)
        return 1.0 / (1.0 + math.exp(-z))


@lru_cache(maxsize=1)
def shipped_model() -> FactsModel:
    """The fitted model in the package; a missing or damaged file is a clear error, not a traceback."""
    resource = files("veritrail_graphrag.verifiers.facts") / WEIGHTS_FILE
    try:
        return FactsModel.model_validate(json.loads(resource.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise VerifierConfigError(
            f"the facts verifier's weights are missing ({resource}); reinstall veritrail-graphrag, or "
            "re-fit them with `python benchmarks/fit_facts.py`"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValidationError) as exc:
        reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        raise VerifierConfigError(
            f"the facts verifier's weights ({resource}) cannot be read: {reason}; reinstall "
            "veritrail-graphrag, or re-fit them with `python benchmarks/fit_facts.py`"
        ) from None
