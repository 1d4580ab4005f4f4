"""`detect_hallucination`: the cited-answer check, claim by claim, with an information budget in bits.

Per claim: its citations are resolved against the spans, and claims that no answer of the model
could make supported are flagged without a call (`context`). Otherwise the context is the cited
spans (`context_mode="cited"`) or all of them (`"all"`), with their questions, instructions and
headings removed; the verifier model is asked once with that context (posterior) and once with
the cited spans' text withheld (prior; all context spans when the claim cites none). The two
beliefs give the budget and the status (`budget.claim_status`).

Claims run concurrently through one LLM client, the first one alone: an endpoint that cannot be
used stops the check after one claim's retries, not after every claim's. `timeout_s` bounds the
whole check, and a claim not finished by then is reported as `timed_out`, never guessed.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, ParamSpec

from pydantic import BaseModel, ConfigDict, Field

from veritrail_graphrag import event_loop
from veritrail_graphrag.audit.project_llm import project_llm_config
from veritrail_graphrag.cited.belief import Belief
from veritrail_graphrag.cited.budget import (
    PASSING,
    Bits,
    Status,
    Thresholds,
    Units,
    budget_gap,
    claim_status,
    log_odds_gain,
    observed_bits,
    required_bits,
)
from veritrail_graphrag.cited.claims import CitedClaim, ClaimSplit, Markers, regex_markers, span_ids, split_cited_claims
from veritrail_graphrag.cited.context import ClaimContext, SpanEvidence, claim_context
from veritrail_graphrag.cited.offline import spans_without_evidence
from veritrail_graphrag.cited.probe import EntailmentProbe, ProbabilitySource, ProbeSettings
from veritrail_graphrag.cited.prompts import entailment_prompt
from veritrail_graphrag.cited.report import (
    CheckSummary,
    CitedCheckReport,
    ClaimBudget,
    ClaimPrompts,
    build_report,
)
from veritrail_graphrag.cited.spans import Span, make_spans
from veritrail_graphrag.errors import EndpointError, LLMConfigError, LLMError
from veritrail_graphrag.llm.cache import SQLiteCache
from veritrail_graphrag.llm.client import LLMClient
from veritrail_graphrag.llm.config import LLMConfig
from veritrail_graphrag.llm.request import Prompt
from veritrail_graphrag.verifiers.lexical import LexicalVerifier

DEFAULT_MODEL = "gpt-4o-mini"
_P = ParamSpec("_P")
ContextMode = Literal["cited", "all"]
SpansInput = Iterable[Span | Mapping[str, Any]] | Mapping[str, str]
_UNFINISHED = (Status.CONTRADICTED, Status.TIMED_OUT, Status.ERROR)
"""Statuses a citation problem does not override: a stronger finding, or no finding at all."""


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
    min_log_odds_gain: float = Field(default=0.0, description="in `units`: what a supported claim's evidence must add")
    units: Units = "bits"
    claim_split: ClaimSplit = "sentences"
    citation_regex: str | None = Field(default=None, description="markers with a group named id; default: [S0]-style")
    include_prompts: bool = False
    probe: ProbeSettings = Field(default_factory=ProbeSettings)

    def rules(self) -> Thresholds:
        gain = Bits(min=self.min_log_odds_gain, max=self.min_log_odds_gain, units=self.units).to("bits")
        return Thresholds(target=self.target, contradiction=self.contradiction, min_log_odds_gain=gain.min)


def _seal(claims: Sequence[CitedClaim], evidence: SpanEvidence) -> str:
    """A digest of every foreign text the check's prompts can hold (see `DataBlocks`)."""
    texts = [claim.text for claim in claims] + [span.text for span in evidence.all_shown()]
    return hashlib.sha256("\x00".join(texts).encode()).hexdigest()


def _rendered(prompt: Prompt) -> str:
    return "\n\n".join(f"[{m.role}]\n{m.content}" for m in prompt.messages)


async def _together(*calls: Awaitable[Belief]) -> list[Belief]:
    """Every result, or the first failure with the other calls cancelled (no orphaned request)."""
    tasks = [asyncio.ensure_future(call) for call in calls]
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()


class CitedCheck:
    """One configured check. With a client, bits from the model; without, citations only (offline)."""

    def __init__(self, settings: CheckSettings, client: LLMClient | None = None) -> None:
        self.settings = settings
        self.client = client
        self.probe = EntailmentProbe(client, settings.probe, settings.target) if client else None
        self._lexical = LexicalVerifier() if client is None else None

    def _detail(self, claim: CitedClaim, context: ClaimContext, **fields: Any) -> ClaimBudget:
        s = self.settings
        missing = s.require_citations and not claim.cites
        status = fields.pop("status")
        if status not in _UNFINISHED:
            if missing:
                status = Status.MISSING_CITATIONS
            elif context.unknown:
                status = Status.UNKNOWN_CITATIONS
        flagged = status not in PASSING or (status is Status.PRIOR_LEAK and s.flag_prior_leak)
        return ClaimBudget(
            idx=claim.idx,
            claim=claim.text,
            cites=claim.cites,
            flagged=flagged,
            status=status,
            has_any_citations=bool(claim.cites),
            missing_citations=missing,
            unknown_cites=context.unknown,
            cites_without_text=context.without_text,
            **fields,
        )

    def _skipped(self, claim: CitedClaim, context: ClaimContext) -> ClaimBudget:
        assert context.skip is not None
        reasons = {
            Status.NO_CITATIONS: "cites nothing, and context mode 'cited' shows only cited spans",
            Status.MISSING_CITATIONS: "cites nothing while citations are required",
            Status.UNKNOWN_CITATIONS: "every id it cites names no span",
            Status.NO_EVIDENCE_TEXT: "every span it cites is questions, instructions or headings",
        }
        return self._detail(claim, context, status=context.skip, note=f"no model call: {reasons[context.skip]}")

    async def _scored(self, claim: CitedClaim, context: ClaimContext, seal: str) -> ClaimBudget:
        assert self.probe is not None
        s = self.settings
        shown = entailment_prompt(claim.text, context.shown, context.withheld, prior=False, seal=seal)
        hidden = entailment_prompt(claim.text, context.shown, context.withheld, prior=True, seal=seal)
        key = f"claim {claim.idx}"
        if hidden == shown:  # nothing to withhold: the prior is the posterior
            posterior = prior = await self.probe.belief(shown, key)
        else:
            posterior, prior = await _together(self.probe.belief(shown, key), self.probe.belief(hidden, key))
        t = s.target
        prompts = None
        if s.include_prompts:
            prompts = ClaimPrompts(posterior=_rendered(shown), prior=_rendered(hidden))
        return self._detail(
            claim,
            context,
            status=claim_status(posterior.yes, prior.yes, posterior.no, s.rules()),
            required=required_bits(t, prior.yes).to(s.units),
            observed=observed_bits(posterior.yes, prior.yes).to(s.units),
            budget_gap=budget_gap(t, posterior.yes, prior.yes).to(s.units),
            log_odds_gain=log_odds_gain(posterior.yes, prior.yes).to(s.units),
            prior_yes=prior.yes,
            post_yes=posterior.yes,
            post_no=posterior.no,
            prompts=prompts,
            note=f"answers: {posterior.label.value} with the evidence, {prior.label.value} without",
        )

    async def _offline(self, claim: CitedClaim, context: ClaimContext) -> ClaimBudget:
        assert self._lexical is not None
        cited = [span for span in context.shown if span.sid in context.withheld] if claim.cites else []
        empty = await spans_without_evidence(self._lexical, claim.text, cited)
        mis_cited = bool(cited) and len(empty) == len(cited)
        return self._detail(
            claim,
            context,
            status=Status.MIS_CITED if mis_cited else Status.UNSCORED,
            cites_without_evidence=empty + context.without_text + context.unknown,
            note="bits need a model (verifier 'llm'); citations checked with the lexical verifier",
        )

    def _job(self, claim: CitedClaim, context: ClaimContext, seal: str) -> Callable[[], Awaitable[ClaimBudget]]:
        if self.probe is not None:
            return lambda: self._scored(claim, context, seal)
        return lambda: self._offline(claim, context)

    async def run(
        self, answer: str | Sequence[str], spans: Sequence[Span], markers: Markers | None = None
    ) -> CitedCheckReport:
        """Check `answer` (or the caller's list of claims) against `spans`; `markers` say how
        citations are written (default: `[S0]`-style span ids; `citation_regex` overrides both)."""
        s = self.settings
        if s.citation_regex:
            markers = regex_markers(s.citation_regex)
        claims = split_cited_claims(answer, markers or Markers(read=span_ids([sp.sid for sp in spans])), s.claim_split)
        checked = claims[: s.max_claims]
        evidence = SpanEvidence(spans)
        seal = _seal(checked, evidence)
        contexts = {c.idx: claim_context(c, evidence, s.context_mode, s.require_citations) for c in checked}
        jobs = {c.idx: self._job(c, contexts[c.idx], seal) for c in checked if contexts[c.idx].skip is None}
        tasks = await self._run_jobs(jobs)
        details = [
            self._skipped(c, contexts[c.idx])
            if c.idx not in jobs
            else self._outcome(c, contexts[c.idx], tasks.get(c.idx))
            for c in checked
        ]
        split = s.claim_split if isinstance(answer, str) else "given"
        return build_report(details, self._summary(len(claims), len(checked), split, evidence.removed))

    async def _run_jobs(
        self, jobs: Mapping[int, Callable[[], Awaitable[ClaimBudget]]]
    ) -> dict[int, asyncio.Task[ClaimBudget]]:
        """Run the claims' questions, the first claim alone; raise at once when the endpoint cannot
        be used; cancel what is unfinished at the deadline (those claims are absent or cancelled)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.timeout_s
        order = list(jobs)
        tasks: dict[int, asyncio.Task[ClaimBudget]] = {}
        for batch in (order[:1], order[1:]):
            if not batch or loop.time() >= deadline:
                continue
            tasks.update({idx: asyncio.ensure_future(jobs[idx]()) for idx in batch})
            pending = {task for idx, task in tasks.items() if idx in batch}
            while pending and loop.time() < deadline:
                done, pending = await asyncio.wait(
                    pending, timeout=deadline - loop.time(), return_when=asyncio.FIRST_EXCEPTION
                )
                for error in (t.exception() for t in done if not t.cancelled()):
                    if isinstance(error, LLMConfigError | EndpointError):
                        await _cancel(pending)
                        raise error
            await _cancel(pending)
        return tasks

    def _outcome(self, claim: CitedClaim, context: ClaimContext, task: asyncio.Task[ClaimBudget] | None) -> ClaimBudget:
        if task is None or task.cancelled():
            note = f"not finished within timeout_s={self.settings.timeout_s:g}"
            return self._detail(claim, context, status=Status.TIMED_OUT, note=note)
        error = task.exception()
        if error is None:
            return task.result()
        if not isinstance(error, LLMError):
            raise error
        return self._detail(claim, context, status=Status.ERROR, note=str(error))

    def _summary(self, found: int, checked: int, split: str, removed: dict[str, list[str]]) -> CheckSummary:
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
            units=s.units,
            verifier_model=model,
            backend=backend,
            target=s.target,
            context_mode=s.context_mode,
            require_citations=s.require_citations,
            min_log_odds_gain=s.min_log_odds_gain,
            claim_split=split,
            claims_in_answer=found,
            claims_not_checked=found - checked,
            non_evidence_removed=removed,
            probability=probability,
            usage=self.client.ledger.total() if self.client is not None else None,
        )


async def _cancel(tasks: Iterable[asyncio.Future[Any]]) -> None:
    """Cancel `tasks` and wait until they have stopped (their requests closed)."""
    tasks = list(tasks)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


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
    claim_split: ClaimSplit | Sequence[str] = "sentences",
    citation_regex: str | None = None,
    min_log_odds_gain: float = 0.0,
    include_prompts: bool = False,
    units: Units = "bits",
) -> CitedCheckReport:
    """The async twin of `detect_hallucination` (same parameters, same report)."""
    given = not isinstance(claim_split, str)
    if given and answer.strip():
        raise ValueError("claim_split is the list of claims, so answer must be empty (the claims carry the citations)")
    settings = CheckSettings(
        target=default_target,
        max_claims=max_claims,
        require_citations=require_citations,
        context_mode=context_mode,
        timeout_s=timeout_s,
        flag_prior_leak=flag_prior_leak,
        min_log_odds_gain=min_log_odds_gain,
        units=units,
        claim_split="sentences" if given else claim_split,
        citation_regex=citation_regex,
        include_prompts=include_prompts,
        probe=ProbeSettings(probability=probability, samples=samples, top_logprobs=top_logprobs),
    )
    claims = list(claim_split) if given else answer
    checked_spans = make_spans(spans)
    if verifier == "lexical":
        return await CitedCheck(settings).run(claims, checked_spans)
    config = llm or llm_config(verifier_model)
    if llm is not None and verifier_model:
        config = config.model_copy(update={"model": verifier_model})
    client = make_client(config)
    try:
        return await CitedCheck(settings, client).run(claims, checked_spans)
    except LLMConfigError as exc:
        raise LLMConfigError(f'{exc}; to check the citations without a model, pass verifier="lexical"') from None
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


DETECT_DOC = """Check each claim of `answer` against the spans it cites; see the manual's "Cited answers".

`verifier_model` defaults to the configured model (VERITRAIL_MODEL, veritrail.toml), else
gpt-4o-mini; the key comes from OPENAI_API_KEY (or VERITRAIL_API_KEY), the endpoint from
VERITRAIL_BASE_URL, or everything from `llm`. `verifier="lexical"` needs no model and checks
citations only. `probability`: "auto" reads log-probabilities and falls back to `samples` answers
per question when the endpoint has none. `claim_split`: "sentences", "lines", or the list of
claims (each with its citations; `answer` then empty). `citation_regex`: how a citation is
written, with a group named id (default: `[S0]`, `[3]`, `[S1, S4]`). `min_log_odds_gain` (in
`units`, "bits" or "nats"): what a supported claim's evidence must add to the odds of YES.
`include_prompts` puts both prompts of each scored claim in the report. In async code, await
`adetect_hallucination`.
"""

detect_hallucination = _blocking(adetect_hallucination)
"""Check each claim of `answer` against the spans it cites, for code without an event loop:
`adetect_hallucination` run to its end, with the same parameters (see the manual's "Cited answers")."""
