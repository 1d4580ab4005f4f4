"""Typed errors. Each carries the ids a user needs to find the problem."""

from __future__ import annotations


class VeriTrailError(Exception):
    """Base class: the CLI turns these into a one-line message and exit code 2."""


class DagError(VeriTrailError):
    """The DAG is malformed (cycle, dangling edge, decreasing stage, bad JSON...)."""

    def __init__(self, message: str, ids: list[str] | None = None) -> None:
        super().__init__(message)
        self.ids = list(ids or [])


class TerminalError(VeriTrailError, ValueError):
    """The node chosen to verify has no inputs (it is source text): there is nothing to trace it to."""

    def __init__(self, message: str, node_id: str) -> None:
        super().__init__(message)
        self.node_id = node_id


class VerifierError(VeriTrailError):
    """A verifier raised or answered something unusable while verifying a claim."""

    def __init__(self, message: str, claim_id: str, node_ids: list[str] | None = None) -> None:
        super().__init__(message)
        self.claim_id = claim_id
        self.node_ids = list(node_ids or [])


class AdapterError(VeriTrailError):
    """A pipeline artifact cannot be read into a DAG; names the file and column or row."""


class ClaimsError(VeriTrailError):
    """A claims file is malformed; names the file and the entry."""


class SpansError(VeriTrailError):
    """Evidence spans for a cited-answer check are malformed; names the file and the entry."""


class LLMError(VeriTrailError):
    """A language-model call failed for good: names the call kind and the claim it served."""

    def __init__(
        self,
        message: str,
        *,
        call_kind: str | None = None,
        claim_id: str | None = None,
        status_code: int | None = None,
    ) -> None:
        super().__init__(message)
        self.call_kind = call_kind
        self.claim_id = claim_id
        self.status_code = status_code


class LLMConfigError(LLMError):
    """The model settings are incomplete or contradictory; names the setting and where it came from."""
