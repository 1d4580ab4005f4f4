"""The LLM verifier: the `Verifier` protocol (and claim extraction) through any OpenAI-compatible model.

It knows prompts and models and nothing about traversal. With `samples=k, min_agreement=t`
(the paper's appendix E.3) Evidence Selection and Verdict Generation are each asked k times at the
sampling temperature: a sentence counts when at least t samples select it, a verdict passes when
at least t samples agree (no verdict or a tie: Inconclusive), and the score is the share of
Fully Supported samples.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from veritrail_graphrag.errors import EndpointError, LLMConfigError, LLMError
from veritrail_graphrag.llm.cache import ResponseCache, SQLiteCache
from veritrail_graphrag.llm.client import LLMClient
from veritrail_graphrag.llm.config import LLMConfig, resolve_llm_config
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.llm.request import Prompt
from veritrail_graphrag.llm.usage import UsageLedger, current_usage_key, estimate_tokens
from veritrail_graphrag.models import (
    Agreement,
    Claim,
    ClaimExtraction,
    EvidenceSelection,
    Excerpt,
    Sentence,
    SentenceFailure,
    Verdict,
    VerdictResult,
)
from veritrail_graphrag.sentences import split_sentences
from veritrail_graphrag.verifiers import prefilter as prefiltering
from veritrail_graphrag.verifiers.llm.labels import SentenceLabels
from veritrail_graphrag.verifiers.llm.parsing import parse_claim_extraction, parse_decomposition
from veritrail_graphrag.verifiers.llm.profiles import PROFILES
from veritrail_graphrag.verifiers.llm.prompts import claim_extraction_prompt, decomposition_prompt
from veritrail_graphrag.verifiers.llm.schemas import (
    EvidenceAnswer,
    PaperEvidenceAnswer,
    PaperVerdictAnswer,
    VerdictAnswer,
)
from veritrail_graphrag.verifiers.registry import ModelCalls, PreparedVerifier, VerifierSpec

EXTRACTION_USAGE_KEY = "(claim extraction)"
NO_SUMMARY = "(No summary was written; the selected sentences, quoted:)"
# A claim and its sub-claims, as shown in Evidence Selection and verdict prompts.
CLAIM_ROOM_TOKENS = 400
# Below this a prompt could not show one ordinary sentence; such a limit is a mistake in the settings.
MIN_PROMPT_CHARS = 600
_A = TypeVar("_A")
# What decides the answers (the resume key and the report); never the key, timeouts or concurrency.
ANSWER_SETTINGS = ("provider", "base_url", "model", "api_version", "azure_deployment", "temperature",
                   "sample_temperature", "seed", "max_output_tokens", "structured_output", "local_model")  # fmt: skip


class LLMVerifier:
    """Verifier backed by a chat model. Build it with `from_config` to get the configured cache."""

    def __init__(
        self,
        config: LLMConfig,
        *,
        samples: int = 1,
        min_agreement: int = 1,
        cache: ResponseCache | None = None,
        ledger: UsageLedger | None = None,
        client: LLMClient | None = None,
        context_before: int = 3,
        context_after: int = 1,
        prefilter: bool = False,
    ) -> None:
        if samples < 1 or not 1 <= min_agreement <= samples:
            raise LLMConfigError(
                f"need samples >= 1 and 1 <= min_agreement <= samples (got samples={samples}, "
                f"min_agreement={min_agreement})"
            )
        self.config = config
        self.samples = samples
        self.min_agreement = min_agreement
        self.client = client or LLMClient(config, cache=cache, ledger=ledger)
        self.context_before = context_before
        self.context_after = context_after
        self.prefilter = prefilter
        self.profile = PROFILES[config.prompt_profile]
        self._origins: dict[str, str] = {}

    @classmethod
    def from_config(
        cls, config: LLMConfig, *, samples: int = 1, min_agreement: int = 1, prefilter: bool = False
    ) -> LLMVerifier:
        """With the SQLite cache at `config.cache_path` unless the cache is switched off."""
        cache = SQLiteCache(config.cache_path) if config.cache and config.cache_path else None
        return cls(config, samples=samples, min_agreement=min_agreement, cache=cache, prefilter=prefilter)

    @property
    def usage(self) -> UsageLedger:
        return self.client.ledger

    @property
    def max_prompt_chars(self) -> int:
        """Node text per prompt: the input limit less our instructions and the claim, at 3
        characters a token. Tokens are counted at 4 characters when a prompt is checked before
        sending, so the difference (a quarter) is left for sentence labels and block framing."""
        prompts = self.profile.system_prompts
        instructions = max(len(prompts[kind]) for kind in (CallKind.EVIDENCE_SELECTION, CallKind.VERDICT))
        room = self.config.input_limit - estimate_tokens(instructions) - CLAIM_ROOM_TOKENS
        return max(MIN_PROMPT_CHARS, room * 3)

    @property
    def _sample_temperature(self) -> float:
        return self.config.sample_temperature if self.samples > 1 else self.config.temperature

    def may_be_evidence(self, claim: Claim, sentences: list[Sentence]) -> list[bool]:
        """With `prefilter`, what cannot be evidence for the claim (a short node whole, sentences of a
        long one) is left out of Evidence Selection (see `verifiers.prefilter`); without it, all is shown."""
        return prefiltering.may_be_evidence(claim, sentences) if self.prefilter else [True] * len(sentences)

    def _claim_seen(self, claim: Claim) -> None:
        """Decomposition calls only carry text: tie that text (and its parts) to the claim id."""
        self.usage.link(claim.text, claim.id)

    async def decompose(self, claim_text: str) -> list[str]:
        origin = self._origins.get(claim_text, claim_text)
        parts = await self.client.complete(
            decomposition_prompt(claim_text),
            parse_decomposition,
            subject=origin,
        )
        for part in parts:
            self._origins.setdefault(part, origin)
        return parts

    async def _samples(self, prompt: Prompt, parse: Callable[[str], _A], claim: Claim) -> list[_A]:
        """The same prompt asked `samples` times (sample index in the cache key), concurrently."""
        return list(
            await asyncio.gather(
                *(
                    self.client.complete(
                        prompt,
                        parse,
                        sample=i,
                        temperature=self._sample_temperature,
                        usage_key=claim.id,
                        claim_id=claim.id,
                    )
                    for i in range(self.samples)
                )
            )
        )

    async def select_evidence(self, claim: Claim, sentences: list[Sentence]) -> EvidenceSelection:
        self._claim_seen(claim)
        if not sentences:
            return EvidenceSelection()
        labels = SentenceLabels(sentences)
        prompt = self.profile.evidence_prompt(claim, labels)
        answers: list[EvidenceAnswer | PaperEvidenceAnswer] = await self._samples(
            prompt, self.profile.parse_evidence, claim
        )
        picks = [(labels.resolve(a.selected)[0], labels.resolve(a.context)[0], a.summary) for a in answers]
        if self.samples == 1:
            selected, context, summary = picks[0]
            # Labels the model made up are passed on, marked, so the engine records them as discarded.
            invented = [f"invented label {label}" for label in labels.resolve(answers[0].selected)[1]]
            summary = (summary.strip() or quoted_selection(selected, sentences)) if selected else ""
            return EvidenceSelection(selected=selected + invented, context=context, summary=summary)
        agreed = self._agreed_evidence(picks, [s.id for s in sentences])
        if agreed.selected and not agreed.summary.strip():
            return agreed.model_copy(update={"summary": quoted_selection(agreed.selected, sentences)})
        return agreed

    def _agreed_evidence(
        self, picks: Sequence[tuple[list[str], list[str], str]], order: list[str]
    ) -> EvidenceSelection:
        """Keep ids chosen by at least `min_agreement` samples; the summary of the closest sample.
        The answer says how it was agreed, and which ids fell short (`Agreement`): a claim whose
        samples agree on none is one the paper leaves without a verdict."""
        chosen = Counter(i for selected, _, _ in picks for i in set(selected))
        needed = Counter(i for _, context, _ in picks for i in set(context))
        selected = [i for i in order if chosen[i] >= self.min_agreement]
        context = [i for i in order if needed[i] >= self.min_agreement and i not in selected]
        short = [i for i in order if 0 < chosen[i] < self.min_agreement]
        agreement = Agreement(samples=self.samples, needed=self.min_agreement, short=short)
        if not selected:
            return EvidenceSelection(agreement=agreement)
        agreed = set(selected)

        def closeness(pick: tuple[list[str], list[str], str]) -> float:
            own = set(pick[0])
            return len(own & agreed) / len(own | agreed)

        best = max(picks, key=closeness)
        return EvidenceSelection(selected=selected, context=context, summary=best[2], agreement=agreement)

    async def judge(self, claim: Claim, excerpts: list[Excerpt]) -> VerdictResult:
        self._claim_seen(claim)
        if not excerpts:
            return VerdictResult(verdict=Verdict.NOT_FULLY_SUPPORTED, reasoning="No evidence was selected.", score=0.0)
        prompt = self.profile.verdict_prompt(claim, excerpts)
        answers: list[VerdictAnswer | PaperVerdictAnswer] = await self._samples(
            prompt, self.profile.parse_verdict, claim
        )
        return self._agreed_verdict(answers)

    def _agreed_verdict(self, answers: Sequence[VerdictAnswer | PaperVerdictAnswer]) -> VerdictResult:
        verdicts = [Verdict(a.verdict) for a in answers]
        counts = Counter(verdicts)
        score = counts[Verdict.FULLY_SUPPORTED] / len(verdicts)
        passing = [(n, v) for v, n in counts.most_common() if n >= self.min_agreement]
        if not passing or (len(passing) > 1 and passing[0][0] == passing[1][0]):
            tally = ", ".join(f"{n} {v.value}" for v, n in counts.most_common())
            return VerdictResult(
                verdict=Verdict.INCONCLUSIVE,
                reasoning=f"The {len(verdicts)} samples did not agree ({tally}; {self.min_agreement} needed).",
                score=score,
            )
        verdict = passing[0][1]
        reasoning = next(a.reasoning for a in answers if Verdict(a.verdict) is verdict)
        return VerdictResult(verdict=verdict, reasoning=reasoning, score=score)

    async def extract_claims(self, answer: str, question: str | None = None) -> ClaimExtraction:
        """Claims of a final answer, one extraction call per sentence (run concurrently), ids c1, c2...

        Each call sees the question and the neighbouring sentences as context but extracts from its
        own sentence only, so claims stay traceable to the sentence they came from (`Claim.sentence`,
        which is how an audit finds the claim's citations). A sentence whose answer cannot be had
        or read after the retries is listed in `failed`; the other sentences' claims go on.
        """
        sentences = split_sentences(answer)
        usage_key = current_usage_key.get() or EXTRACTION_USAGE_KEY

        async def extract(i: int, sentence: str) -> list[str] | LLMError:
            prompt = claim_extraction_prompt(
                sentence,
                sentences[max(0, i - self.context_before) : i],
                sentences[i + 1 : i + 1 + self.context_after],
                question,
                answer,
            )
            try:
                return await self.client.complete(prompt, parse_claim_extraction, usage_key=usage_key)
            except (LLMConfigError, EndpointError):
                raise
            except LLMError as exc:
                return exc

        per_sentence = await asyncio.gather(*(extract(i, s) for i, s in enumerate(sentences)))
        first: dict[str, int] = {}
        failed: list[SentenceFailure] = []
        for index, claims in enumerate(per_sentence):
            if isinstance(claims, LLMError):
                failed.append(SentenceFailure(sentence=index, text=sentences[index], error=str(claims)))
                continue
            for text in claims:
                first.setdefault(text, index)
        found = [Claim(id=f"c{n}", text=text, sentence=i) for n, (text, i) in enumerate(first.items(), start=1)]
        return ClaimExtraction(claims=found, failed=failed)

    async def aclose(self) -> None:
        await self.client.aclose()

    def settings(self, *, after_run: bool = False) -> dict[str, Any]:
        """The model settings that change answers, and the sampling; after the run, also the
        answer format the endpoint accepted."""
        settings = self.config.model_dump(mode="json", include=set(ANSWER_SETTINGS))
        described = {
            **settings,
            "prompts": self.config.prompt_profile.value,
            "input_limit": self.config.input_limit,
            "samples": self.samples,
            "min_agreement": self.min_agreement,
            **({"prefilter": prefiltering.MIN_SIMILARITY} if self.prefilter else {}),
        }
        if after_run:
            described["answer_format"] = self.client.rung.value
        return {"llm": described}


def quoted_selection(selected: Sequence[str], sentences: Sequence[Sentence]) -> str:
    """What stands for the summary of a selection the model gave none for: its sentences, quoted
    and marked as such. The selection is a valid decision and is kept; what a summary adds (full
    names, what the sentences mean together) is missing, and the report and the verdict prompt say
    so instead of showing a summary the model never wrote."""
    chosen = set(selected)
    quotes = " ".join(f'"{" ".join(s.text.split())}"' for s in sentences if s.id in chosen)
    return f"{NO_SUMMARY} {quotes}"


def prepare(spec: VerifierSpec) -> PreparedVerifier:
    """The LLM settings, resolved once for the run: the project's endpoint (its settings.yaml, read
    by the caller into `spec.project`), veritrail.toml, VERITRAIL_* variables, then the options."""
    defaults = {"cache_path": spec.cache_dir / "llm_cache.sqlite"} if spec.cache_dir is not None else None
    config = resolve_llm_config(spec.root, spec.llm_overrides(), defaults=defaults, project=spec.project)
    return PreparedVerifier(
        build=lambda: LLMVerifier.from_config(
            config, samples=spec.samples, min_agreement=spec.min_agreement, prefilter=spec.prefilter
        ),
        concurrency=config.concurrency,
        model_calls=ModelCalls(
            model=config.model, prices=config.prices, samples=spec.samples, prompts=config.prompt_profile
        ),
        decomposition_depth=PROFILES[config.prompt_profile].decomposition_depth,
    )
