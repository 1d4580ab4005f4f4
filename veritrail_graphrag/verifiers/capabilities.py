"""What a verifier may offer besides the three steps the engine calls, one small protocol each.

A verifier offers a capability by having the method (nothing to inherit), and callers ask with
`isinstance`, which also tells the type checker what they may call. Kept apart from `base.py`,
which the engine imports: these name `llm` types, and the engine knows nothing of `llm`.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from veritrail_graphrag.llm.usage import UsageLedger, UsageReport
from veritrail_graphrag.models import ClaimExtraction


@runtime_checkable
class ClaimExtractor(Protocol):
    async def extract_claims(self, answer: str, question: str | None = None) -> ClaimExtraction:
        """The answer's claims, sentence by sentence; sentences it could not read are `failed`."""
        ...


@runtime_checkable
class MetersUsage(Protocol):
    @property
    def usage(self) -> UsageLedger:
        """Every model call so far, with its tokens and cost."""
        ...


@runtime_checkable
class DescribesSettings(Protocol):
    def settings(self, *, after_run: bool = False) -> dict[str, Any]:
        """What decides the answers, for the resume key and the report: never secrets, never
        throughput settings. `after_run` adds what the run found out (for the report only: the
        resume key must be known before the first call)."""
        ...


@runtime_checkable
class Closable(Protocol):
    async def aclose(self) -> None:
        """Release connections, caches and servers; called once the run is over."""
        ...


def verifier_settings(verifier: object, *, after_run: bool = False) -> dict[str, Any]:
    """The verifier's own settings, or its class when it describes none."""
    if isinstance(verifier, DescribesSettings):
        return verifier.settings(after_run=after_run)
    return {"class": f"{type(verifier).__module__}.{type(verifier).__qualname__}"}


def usage_report(verifier: object) -> UsageReport | None:
    return verifier.usage.report() if isinstance(verifier, MetersUsage) else None


async def close(verifier: object) -> None:
    if isinstance(verifier, Closable):
        await verifier.aclose()
