"""Verifiers: the `Verifier` interface and the values it exchanges with the engine."""

from veritrail_graphrag.models import EvidenceSelection, Excerpt, Sentence, VerdictResult
from veritrail_graphrag.verifiers.base import Verifier

__all__ = ["EvidenceSelection", "Excerpt", "Sentence", "VerdictResult", "Verifier"]
