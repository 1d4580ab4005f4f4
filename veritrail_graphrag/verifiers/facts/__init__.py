"""The offline facts verifier (the default): checkable facts of a claim, weighed by a fitted model."""

from veritrail_graphrag.verifiers.facts.model import FactsModel, shipped_model
from veritrail_graphrag.verifiers.facts.verifier import FactsVerifier

__all__ = ["FactsModel", "FactsVerifier", "shipped_model"]
