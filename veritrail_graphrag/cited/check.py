"""`detect_hallucination`: the cited-answer check, claim by claim, with an information budget in bits.

Per claim: its citations are resolved against the spans; the context is the cited spans
(`context_mode="cited"`) or all of them (`"all"`); the verifier model is asked once with that
context (posterior) and once with the cited spans' text withheld (prior; all context spans when
the claim cites none). The two beliefs give the budget and the status (`budget.claim_status`).
Claims run concurrently through one LLM client; `timeout_s` bounds the whole check, and a claim
not finished by then is reported as `timed_out`, never guessed.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, ParamSpec

from pydantic import BaseModel, ConfigDict, Field

from veritrail_graphrag import event_loop
from veritrail_graphrag.audit.project_llm import project_llm_config
from veritrail_graphrag.citations import GroupReader
from veritrail_graphrag.cited.budget import (
    PASSING,
    Status,
    Thresholds,
    budget_gap,
    claim_status,
    observed_bits,
    required_bits,
)
from veritrail_graphrag.cited.claims import CitedClaim, resolve_cite, span_ids, split_cited_claims
from veritrail_graphrag.cited.offline import spans_without_evidence
from veritrail_graphrag.cited.probe import EntailmentProbe, ProbabilitySource, ProbeSettings
from veritrail_graphrag.cited.prompts import entailment_prompt
from veritrail_graphrag.cited.report import CheckSummary, CitedCheckReport, ClaimBudget, build_report
from veritrail_graphrag.cited.spans import Span, make_spans
from veritrail_graphrag.errors import LLMConfigError, LLMError
from veritrail_graphrag.llm.cache import SQLiteCache
from veritrail_graphrag.llm.client import LLMClient
from veritrail_graphrag.llm.config import LLMConfig
from veritrail_graphrag.verifiers.lexical import LexicalVerifier

DEFAULT_MODEL = "gpt-4o-mini"
_P = ParamSpec("_P")
ContextMode = Literal["cited", "all"]
SpansInput = Iterable[Span | Mapping[str, Any]] | Mapping[str, str]


class CheckSettings(BaseModel):
    """Everything that decides a check's result, apart from the model."""

    model_config = ConfigDict(frozen=True)

    target: float = Field(default=0.95, gt=0.0, lt=1.0)
    max_claims: int = Field(default=25, ge=1)
    require_citations: bool = False
    context_mode: ContextMode = "cited"
    timeout_s: float = Field(default=60.0, gt=0)
    flag_prior_leak: bool = Field(default=False, description="count prior_leak claims as flagged")
    contradiction: float = Field(default=0.5, gt=0.0, le=1.0)
    probe: ProbeSettings = Field(default_factory=ProbeSettings)


class _Cites(BaseModel):
    """A claim's citations checked against the spans."""

    spans: list[Span]
    unknown: list[str]


def _cites(claim: CitedClaim, spans: Sequence[Span]) -> _Cites:
    known = {s.sid for s in spans}
    resolved = {cite: resolve_cite(cite, known) for cite in claim.cites}
    cited = {sid for sid in resolved.values() if sid is not None}
    return _Cites(
        spans=[s for s in spans if s.sid in cited],
        unknown=[cite for cite, sid in resolved.items() if sid is None],
    )


class CitedCheck:
    """One configured check. With a client, bits from the model; without, citations only (offline)."""

    def __init__(self, settings: CheckSettings, client: LLMClient | None = None) -> None:
        self.settings = settings
        self.client = client
        self.probe = EntailmentProbe(client, settings.probe, settings.target) if client else None
        self._lexical = LexicalVerifier() if client is None else None

    def _detail(self, claim: CitedClaim, cites: _Cites, **fields: Any) -> ClaimBudget:
        missing = self.settings.require_citations and not claim.cites
        status = fields.pop("status")
        if missing and status not in (Status.CONTRADICTED, Status.TIMED_OUT, Status.ERROR):
            status = Status.MISSING_CITATIONS
        flagged = status not in PASSING or (status is Status.PRIOR_LEAK and self.settings.flag_prior_leak)
        return ClaimBudget(
            idx=claim.idx,
            claim=claim.text,
            cites=claim.cites,
            flagged=flagged,
            status=status,
            has_any_citations=bool(claim.cites),
            missing_citations=missing,
            unknown_cites=cites.unknown,
            **fields,
        )

    async def _scored(self, claim: CitedClaim, spans: Sequence[Span]) -> ClaimBudget:
        assert self.probe is not None
        cites = _cites(claim, spans)
        context = cites.spans if self.settings.context_mode == "cited" else list(spans)
        withheld = frozenset(s.sid for s in (cites.spans or context))
        shown = entailment_prompt(claim.text, context)
        hidden = entailment_prompt(claim.text, context, withheld)
        key = f"claim {claim.idx}"
        if hidden == shown:  # nothing to withhold: the prior is the posterior
            posterior = prior = await self.probe.belief(shown, key)
        else:
            posterior, prior = await asyncio.gather(self.probe.belief(shown, key), self.probe.belief(hidden, key))
        t = self.settings.target
        rules = Thresholds(target=t, contradiction=self.settings.contradiction)
        return self._detail(
            claim,
            cites,
            status=claim_status(posterior.yes, prior.yes, posterior.no, rules),
            required=required_bits(t, prior.yes),
            observed=observed_bits(posterior.yes, prior.yes),
            budget_gap=budget_gap(t, posterior.yes, prior.yes),
            prior_yes=prior.yes,
            post_yes=posterior.yes,
            post_no=posterior.no,
            note=f"answers: {posterior.label.value} with the evidence, {prior.label.value} without",
        )

    async def _offline(self, claim: CitedClaim, spans: Sequence[Span]) -> ClaimBudget:
        assert self._lexical is not None
        cites = _cites(claim, spans)
        empty = await spans_without_evidence(self._lexical, claim.text, cites.spans)
        mis_cited = bool(claim.cites) and len(empty) == len(cites.spans)
        return self._detail(
            claim,
            cites,
            status=Status.MIS_CITED if mis_cited else Status.UNSCORED,
            cites_without_evidence=empty + cites.unknown,
            note="bits need a model (verifier 'llm'); citations checked with the lexical verifier",
        )

    async def run(self, answer: str, spans: Sequence[Span], read: GroupReader | None = None) -> CitedCheckReport:
        """Check `answer` against `spans`; `read` says what a bracket group cites (default: span ids)."""
        claims = split_cited_claims(answer, read or span_ids([s.sid for s in spans]))
        checked = claims[: self.settings.max_claims]
        one = self._scored if self.probe is not None else self._offline
        tasks = {claim.idx: asyncio.ensure_future(one(claim, spans)) for claim in checked}
        if tasks:
            _, pending = await asyncio.wait(tasks.values(), timeout=self.settings.timeout_s)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        errors = [task.exception() for task in tasks.values() if not task.cancelled()]  # all retrieved
        unusable = [e for e in errors if isinstance(e, LLMError) and _unusable(e)]
        if unusable:
            raise unusable[0]  # the model cannot be used at all: one clear error, not one per claim
        details = [self._outcome(claim, tasks[claim.idx], spans) for claim in checked]
        return build_report(details, self._summary(len(claims), len(checked)))

    def _outcome(self, claim: CitedClaim, task: asyncio.Future[ClaimBudget], spans: Sequence[Span]) -> ClaimBudget:
        if task.cancelled():
            note = f"not finished within timeout_s={self.settings.timeout_s:g}"
            return self._detail(claim, _cites(claim, spans), status=Status.TIMED_OUT, note=note)
        error = task.exception()
        if error is None:
            return task.result()
        if not isinstance(error, LLMError):
            raise error
        return self._detail(claim, _cites(claim, spans), status=Status.ERROR, note=str(error))

    def _summary(self, found: int, checked: int) -> CheckSummary:
        s = self.settings
        if self.client is None or self.probe is None:
            model, backend, probability = "(none)", "lexical", "none: the offline check computes no bits"
        else:
            model = self.client.config.model
            backend = self.client.config.provider + ("+sampling" if self.probe.sampling else "")
            probability = self.probe.describe()
        return CheckSummary(
            claims_scored=0,
            flagged_claims=0,
            flagged_idxs=[],
            verifier_model=model,
            backend=backend,
            target=s.target,
            context_mode=s.context_mode,
            require_citations=s.require_citations,
            claims_in_answer=found,
            claims_not_checked=found - checked,
            probability=probability,
            usage=self.client.ledger.total() if self.client is not None else None,
        )


def _unusable(error: LLMError) -> bool:
    """Settings or credentials are wrong, or the model does not exist: no claim can be checked."""
    return isinstance(error, LLMConfigError) or error.status_code in (401, 403, 404)


def llm_config(
    verifier_model: str | None, settings_root: Path | None = None, overrides: Mapping[str, Any] | None = None
) -> LLMConfig:
    """The model settings as everywhere in veritrail (flags > VERITRAIL_* > veritrail.toml >
    GraphRAG settings.yaml), with `verifier_model` as the flag and gpt-4o-mini as the default."""
    flags = {**(overrides or {}), "model": verifier_model}
    return project_llm_config(settings_root, flags, defaults={"model": DEFAULT_MODEL})


def make_client(config: LLMConfig) -> LLMClient:
    """A client with the configured answer cache (SQLite), shared by every claim of a check."""
    cache = SQLiteCache(config.cache_path) if config.cache and config.cache_path else None
    return LLMClient(config, cache=cache)


async def adetect_hallucination(
    answer: str,
    spans: SpansInput,
    verifier_model: str | None = None,
    default_target: float = 0.95,
    max_claims: int = 25,
    require_citations: bool = False,
    context_mode: ContextMode = "cited",
    timeout_s: float = 60.0,
    *,
    verifier: Literal["llm", "lexical"] = "llm",
    llm: LLMConfig | None = None,
    probability: ProbabilitySource = "auto",
    samples: int = 80,
    top_logprobs: int = 10,
    flag_prior_leak: bool = False,
) -> CitedCheckReport:
    """The async twin of `detect_hallucination` (same parameters, same report)."""
    settings = CheckSettings(
        target=default_target,
        max_claims=max_claims,
        require_citations=require_citations,
        context_mode=context_mode,
        timeout_s=timeout_s,
        flag_prior_leak=flag_prior_leak,
        probe=ProbeSettings(probability=probability, samples=samples, top_logprobs=top_logprobs),
    )
    checked_spans = make_spans(spans)
    if verifier == "lexical":
        return await CitedCheck(settings).run(answer, checked_spans)
    config = llm or llm_config(verifier_model)
    if llm is not None and verifier_model:
        config = config.model_copy(update={"model": verifier_model})
    client = make_client(config)
    try:
        return await CitedCheck(settings, client).run(answer, checked_spans)
    finally:
        await client.aclose()


def _blocking(check: Callable[_P, Coroutine[Any, Any, CitedCheckReport]]) -> Callable[_P, CitedCheckReport]:
    """The synchronous twin of an async check, with the same parameters."""

    @functools.wraps(check)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> CitedCheckReport:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return event_loop.run(check(*args, **kwargs))
        raise RuntimeError("detect_hallucination was called inside a running event loop; await adetect_hallucination")

    run.__name__ = run.__qualname__ = "detect_hallucination"
    run.__doc__ = DETECT_DOC
    return run


DETECT_DOC = """Check each claim of `answer` against the spans it cites; see the README's "Cited answers".

`verifier_model` defaults to the configured model (VERITRAIL_MODEL, veritrail.toml), else
gpt-4o-mini; the key comes from OPENAI_API_KEY (or VERITRAIL_API_KEY), the endpoint from
VERITRAIL_BASE_URL, or everything from `llm`. `verifier="lexical"` needs no model and checks
citations only. `probability`: "auto" reads log-probabilities and falls back to `samples` answers
per question when the endpoint has none. In async code, await `adetect_hallucination`.
"""

detect_hallucination = _blocking(adetect_hallucination)
