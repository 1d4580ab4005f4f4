"""VeriTrail's backward traversal for one claim (the paper's section 3 and Algorithm 1).

The engine knows the DAG and the `Verifier` interface, nothing about prompts or GraphRAG. It reads
a node (splits it into sentences and shows them to the verifier) only when the traversal reaches
it, and never twice for one claim: roots that already yielded evidence are carried forward
instead of being re-read.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from veritrail_graphrag import event_loop, interruption
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.batching import pack_nodes, ranges, shorten
from veritrail_graphrag.engine.collector import fewer_collections
from veritrail_graphrag.engine.decomposition import DecompositionQueue
from veritrail_graphrag.engine.evidence import Evidence
from veritrail_graphrag.engine.languages import LanguageGate, claim_language
from veritrail_graphrag.engine.localization import error_stages, first_holding
from veritrail_graphrag.engine.trail import BatchRecord, ClaimResult, Iteration, StopReason
from veritrail_graphrag.engine.verdict_input import VerdictInput
from veritrail_graphrag.engine.workers import verify_in_processes
from veritrail_graphrag.errors import CLAIM_FAILURES, ClaimsError, EndpointError, VerifierError
from veritrail_graphrag.models import (
    Agreement,
    Claim,
    EvidenceSelection,
    Excerpt,
    Sentence,
    TrailConfig,
    Verdict,
    VerdictResult,
)
from veritrail_graphrag.verifiers.base import (
    AbstainsWithoutEvidence,
    KeepsClaimState,
    KeepsUntracedInconclusive,
    LocatesInventions,
    Prefilters,
    PromptLimited,
    Verifier,
)

NOT_TRACED_NOTE = (
    "Not traced to the source: no node is left to check and no source text yielded evidence, so the claim "
    "stays Inconclusive (its verifier keeps such claims apart; the paper's rule would make it Not Fully Supported)."
)

_M = TypeVar("_M", bound=BaseModel)
_T = TypeVar("_T")


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


async def _all(calls: Iterable[Awaitable[_T]]) -> list[_T]:
    """Run concurrently; the first failure cancels the rest and is raised as itself.

    Unlike `asyncio.gather`, no sibling call keeps running (and spending) after a failure.
    """
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(_awaited(call)) for call in calls]
    except BaseExceptionGroup as failures:
        raise failures.exceptions[0] from None
    interruption.check()  # the claim resumes here; after a stop it must not go on to its next step
    return [task.result() for task in tasks]


async def _awaited(call: Awaitable[_T]) -> _T:
    return await call


def _no_evidence(nodes: int, agreement: Agreement | None) -> str:
    """Why an iteration has no evidence; with sampled selections (confidence mode), that the
    samples agreed on none, which the paper leaves without a verdict (its appendix E.3)."""
    if agreement is None:
        return f"No sentence of the {nodes} node(s) checked was selected as evidence."
    fewer = f"{len(agreement.short)} sentence(s) were selected by fewer" if agreement.short else "none by any"
    return (
        f"No sentence of the {nodes} node(s) checked was selected by at least {agreement.needed} of the "
        f"{agreement.samples} samples ({fewer}): the samples agreed on no evidence. The paper gives such a "
        "claim no verdict; here it is Not Fully Supported with score 0 (eval --exclude-no-agreement leaves it "
        "out of AUROC, as the paper did)."
    )


class VeriTrail:
    """Verify claims against a DAG with a verifier. One engine can serve many DAGs and claims."""

    def __init__(self, verifier: Verifier, config: TrailConfig | None = None) -> None:
        self.verifier = verifier
        config = config or TrailConfig()
        if config.max_prompt_chars is None and isinstance(verifier, PromptLimited):
            config = config.model_copy(update={"max_prompt_chars": verifier.max_prompt_chars})
        if config.untraced_inconclusive is None:
            keeps = isinstance(verifier, KeepsUntracedInconclusive) and verifier.keeps_untraced_inconclusive
            config = config.model_copy(update={"untraced_inconclusive": keeps})
        self.config = config

    def verify(self, dag: DAG, claim: Claim, terminal: str | None = None) -> ClaimResult:
        """Synchronous convenience around `averify` (not usable inside a running event loop)."""
        return event_loop.run(self.averify(dag, claim, terminal))

    async def averify(self, dag: DAG, claim: Claim, terminal: str | None = None) -> ClaimResult:
        start = dag.resolve_terminal(terminal)
        return await _Trail(self, dag, claim, start, asyncio.Semaphore(self.config.concurrency)).run()

    async def averify_many(
        self,
        dag: DAG,
        claims: Sequence[Claim],
        terminal: str | Mapping[str, str] | None = None,
        on_result: Callable[[ClaimResult], None] | None = None,
        on_error: Callable[[Claim, VerifierError], None] | None = None,
        workers: int = 1,
    ) -> list[ClaimResult]:
        """Verify claims concurrently; verifier calls of all claims share one concurrency limit.

        `concurrency` workers take the claims in order, one at a time each, so claims finish (and
        reach `on_result`, the checkpoint) from the start, and a stop has only the claims in hand
        to end, not thousands waiting; worker processes (`workers`) take claims the same way.
        `terminal` is one node for all claims, or a claim id -> node mapping (e.g. auditing many
        community reports at once). Results come back in the order of `claims`. Without `on_error`
        the first failing claim cancels the others; with it, a claim whose verifier failed is
        reported there, left out of the results, and the other claims go on. `workers` above 1
        verifies the claims in that many processes (`workers.py`: for a verifier that calls no
        model), with the same results. The garbage collector runs less often meanwhile
        (`collector.py`).
        """
        with fewer_collections():
            return await self._verify_many(dag, claims, terminal, on_result, on_error, workers)

    async def _verify_many(
        self,
        dag: DAG,
        claims: Sequence[Claim],
        terminal: str | Mapping[str, str] | None,
        on_result: Callable[[ClaimResult], None] | None,
        on_error: Callable[[Claim, VerifierError], None] | None,
        workers: int,
    ) -> list[ClaimResult]:
        duplicates = [claim_id for claim_id, n in Counter(c.id for c in claims).items() if n > 1]
        if duplicates:
            raise ClaimsError(f"duplicate claim ids: {', '.join(map(repr, duplicates))}", ids=duplicates)
        if isinstance(terminal, Mapping):
            missing = [c.id for c in claims if c.id not in terminal]
            if missing:
                raise ClaimsError(f"no terminal given for claims {', '.join(map(repr, missing[:10]))}", ids=missing)
            starts = {c.id: dag.resolve_terminal(terminal[c.id]) for c in claims}
        else:
            start = dag.resolve_terminal(terminal)
            starts = {c.id: start for c in claims}
        if workers > 1 and len(claims) > 1:
            return await verify_in_processes(self, dag, claims, starts, workers, on_result, on_error)
        semaphore = asyncio.Semaphore(self.config.concurrency)
        waiting = iter(claims)
        results: dict[str, ClaimResult] = {}

        async def worker() -> None:
            for claim in waiting:  # shared: each claim goes to the first worker free
                interruption.check()  # no claim is started after a stop was asked for
                try:
                    result = await _Trail(self, dag, claim, starts[claim.id], semaphore).run()
                except VerifierError as exc:
                    if on_error is None:
                        raise
                    on_error(claim, exc)
                    continue
                results[claim.id] = result
                if on_result is not None:
                    on_result(result)

        await _all(worker() for _ in range(min(self.config.concurrency, len(claims))))
        return [results[c.id] for c in claims if c.id in results]


class _Trail:
    """State of one claim's traversal (the paper's section 3.1)."""

    def __init__(self, engine: VeriTrail, dag: DAG, claim: Claim, terminal: str, semaphore: asyncio.Semaphore) -> None:
        self.verifier = engine.verifier
        self.config = engine.config
        self.dag = dag
        self.claim = claim
        self.terminal = terminal
        self.semaphore = semaphore
        self.verdict_input = VerdictInput(dag, engine.config)
        self.languages = LanguageGate(self.verifier, dag, claim_language(dag, claim, terminal))

    async def _call(
        self, what: str, node_ids: Sequence[str], call: Callable[[], Awaitable[Any]], model: type[_M] | None
    ) -> Any:
        """One verifier call under the shared concurrency limit; failures name the claim and nodes."""
        where = f"claim {self.claim.id!r}: verifier failed during {what}" + (
            f" on nodes {', '.join(map(repr, node_ids[:10]))}" if node_ids else ""
        )
        async with self.semaphore:
            interruption.check()  # one claim can make thousands of calls: stop between any two
            try:
                answer = await call()
                interruption.check()
            except EndpointError:
                raise
            except CLAIM_FAILURES as exc:
                raise VerifierError(f"{where}: {type(exc).__name__}: {exc}", self.claim.id, list(node_ids)) from exc
            except Exception as exc:
                exc.add_note(f"(a bug in the verifier, not a claim to retry) {where}")
                raise
        if model is None or isinstance(answer, model):
            return answer
        try:
            return model.model_validate(answer)
        except ValidationError as exc:
            raise TypeError(
                f"claim {self.claim.id!r}: verifier returned {type(answer).__name__} during {what}, "
                f"expected {model.__name__}: {exc.errors()[0]['msg']}"
            ) from None

    async def run(self) -> ClaimResult:
        """The claim's trail (`_walk`), inside the verifier's scope for the claim when it keeps one."""
        if not isinstance(self.verifier, KeepsClaimState):
            return await self._walk()
        with self.verifier.reading(self.claim):
            return await self._walk()

    async def _walk(self) -> ClaimResult:
        """Algorithm 1: one Evidence Selection and one verdict per iteration, walking backwards."""
        if not self.claim.sub_claims:
            self.claim = self.claim.model_copy(update={"sub_claims": await self._decompose(self.claim.text)})

        iterations: list[Iteration] = []
        checked: set[str] = set()
        roots_with_evidence: dict[str, list[Sentence]] = {}
        consecutive_nfs = 0
        to_check = _unique(self.dag.src(self.terminal))
        beside_checked: frozenset[str] = frozenset()

        while True:
            # Steps 1-2: Evidence Selection (roots with evidence are carried, not re-read), verdict.
            iteration = await self._iterate(len(iterations) + 1, to_check, roots_with_evidence, beside_checked)
            iterations.append(iteration)
            # Step 3: roots that yielded evidence are carried from now on, never read again.
            for node_id in iteration.nodes_with_evidence:
                if self.dag.is_root(node_id) and node_id not in roots_with_evidence:
                    roots_with_evidence[node_id] = [s for s in iteration.evidence if s.node_id == node_id]
            checked.update(to_check)

            # Step 4: the next candidates.
            if iteration.verdict is Verdict.NOT_FULLY_SUPPORTED:
                consecutive_nfs += 1
                expand_from = to_check
            else:
                consecutive_nfs = 0
                expand_from = iteration.nodes_with_evidence
            candidates = [n for src in expand_from for n in self.dag.src(src) if n not in checked]
            to_check = _unique([*candidates, *roots_with_evidence])
            beside_checked = self._beside_checked(expand_from, checked)

            # Step 5: stop.
            if to_check and set(to_check) == set(roots_with_evidence):
                return self._finish(iterations, iteration.verdict, StopReason.ROOTS_REACHED)
            if not to_check:
                final, judged = await self._untraced_verdict(iterations)
                return self._finish(iterations, final, StopReason.NO_CANDIDATES, judged)
            if consecutive_nfs == self.config.q:
                return self._finish(iterations, Verdict.NOT_FULLY_SUPPORTED, StopReason.NOT_SUPPORTED_LIMIT)

    async def _untraced_verdict(self, iterations: list[Iteration]) -> tuple[Verdict, VerdictResult | None]:
        """The final verdict when no node is left to check: the roots were never reached, or none
        yielded evidence. Not Fully Supported (the paper's rule), unless the verifier keeps such
        claims apart: then its Inconclusive stands, and support found only in intermediate outputs
        whose inputs were all read before, none with evidence, is judged as the verifier judges a
        claim no node yields evidence for, against those inputs (the judgement is returned). A
        sub-community report that repeats an interpretation of its parent would otherwise turn it
        into a flag that the same claim, repeated by no report, would not raise. When the support
        led to sources in a language the verifier does not read, that is the reason, and the
        language gate gives it (`LanguageGate.finished`)."""
        latest = iterations[-1]
        if not self.config.untraced_inconclusive:
            return Verdict.NOT_FULLY_SUPPORTED, None
        if latest.verdict is Verdict.INCONCLUSIVE:
            return Verdict.INCONCLUSIVE, None
        verifier = self.verifier
        if latest.verdict is not Verdict.FULLY_SUPPORTED or not isinstance(verifier, AbstainsWithoutEvidence):
            return Verdict.NOT_FULLY_SUPPORTED, None
        if self.languages.unread_sources(iterations):
            return Verdict.NOT_FULLY_SUPPORTED, None
        # Every input was checked (nothing is left) and none went unread for its language (above).
        inputs = _unique(n for node in latest.nodes_with_evidence for n in self.dag.src(node))
        shown, _ = self._prefiltered(self._read(inputs))
        judged = await self._judged_without_evidence(verifier, inputs, shown, frozenset())
        kept = judged.verdict is Verdict.INCONCLUSIVE
        return (Verdict.INCONCLUSIVE if kept else Verdict.NOT_FULLY_SUPPORTED), judged

    async def _judged_without_evidence(
        self,
        verifier: AbstainsWithoutEvidence,
        nodes: list[str],
        shown: list[list[Sentence]],
        beside_checked: frozenset[str],
    ) -> VerdictResult:
        """The verifier's judgement of the claim when none of `nodes`' sentences was selected, each
        node shown as Evidence Selection was shown it."""
        checked = [
            Excerpt(
                node_id=n,
                text=" ".join(s.text for s in node),
                is_root=self.dag.is_root(n),
                beside_checked=n in beside_checked,
            )
            for n, node in zip(nodes, shown, strict=True)
        ]
        return await self._call(
            "verdict generation", nodes, lambda: verifier.judge_without_evidence(self.claim, checked), VerdictResult
        )

    def _beside_checked(self, expand_from: list[str], checked: set[str]) -> frozenset[str]:
        """The next candidates that are only the rest of inputs checked before: every node they
        come from had other inputs checked already. A sub-community report reached after its parent
        has inputs that are its parent's too, read with the parent's, and only its own few left
        (the edges it cites to other communities)."""
        partly, wholly = set(), set()
        for node in expand_from:
            inputs = self.dag.src(node)
            (partly if any(n in checked for n in inputs) else wholly).update(n for n in inputs if n not in checked)
        return frozenset(partly - wholly)

    async def _decompose(self, text: str) -> list[str]:
        queue = DecompositionQueue(text, self.config.max_decompositions, self.config.decomposition_depth)
        while (part := queue.next()) is not None:
            answer = await self._call("sub-claim decomposition", [], partial(self.verifier.decompose, part), None)
            if not isinstance(answer, list) or not all(isinstance(p, str) for p in answer):
                raise TypeError(
                    f"claim {self.claim.id!r}: decompose returned {type(answer).__name__}, expected list[str]"
                )
            queue.answer(part, answer)
        return queue.sub_claims()

    async def _iterate(
        self,
        index: int,
        to_check: list[str],
        roots_with_evidence: dict[str, list[Sentence]],
        beside_checked: frozenset[str],
    ) -> Iteration:
        """One iteration over the candidates the verifier can read in the claim's language; the
        others are recorded, never shown (`LanguageGate`)."""
        readable, unread = self.languages.partition(to_check, set(roots_with_evidence))
        if not readable:
            return self.languages.unread_iteration(index, unread)
        read = await self._read_iteration(index, readable, roots_with_evidence, beside_checked)
        return self.languages.settle(read, unread)

    async def _read_iteration(
        self,
        index: int,
        to_check: list[str],
        roots_with_evidence: dict[str, list[Sentence]],
        beside_checked: frozenset[str],
    ) -> Iteration:
        """`beside_checked`: the nodes that are only the rest of inputs checked before
        (`_beside_checked`); the verifier is told through their excerpts (`Excerpt.beside_checked`)."""
        carried = [n for n in to_check if n in roots_with_evidence]
        new = [n for n in to_check if n not in roots_with_evidence]
        shown, skipped = self._prefiltered(self._read(new))
        evidence, records = await self._select(shown, reselection=False)
        for root in carried:
            for sentence in roots_with_evidence[root]:
                evidence.add(sentence, "")
        if not evidence:
            reasoning = _no_evidence(len(new), evidence.agreement)
            own = VerdictResult(verdict=Verdict.NOT_FULLY_SUPPORTED, reasoning="", score=0.0)
            if isinstance(self.verifier, AbstainsWithoutEvidence):
                own = await self._judged_without_evidence(self.verifier, new, shown, beside_checked)
            return Iteration(
                index=index,
                checked=new,
                carried_roots=carried,
                nodes_with_evidence=[],
                evidence=[],
                context=evidence.context,
                batches=records,
                skipped=skipped,
                verdict=own.verdict,
                reasoning=f"{reasoning} {own.reasoning[:1].upper()}{own.reasoning[1:]}".strip(),
                score=own.score,
                gaps=own.gaps,
                no_agreement=evidence.agreement is not None,
            )

        # Over budget: re-select the summaries' evidence, then show the largest subset that fits.
        # Nodes left out keep their evidence: the trail goes on from them.
        evidence, reselections = await self._reselect(evidence, records)
        excerpts, omitted = self.verdict_input.largest_fitting(
            [
                e.model_copy(update={"beside_checked": True}) if beside_checked.issuperset(e.nodes) else e
                for e in self.verdict_input.excerpts(evidence)
            ]
        )
        result = await self._call(
            "verdict generation",
            [n for e in excerpts for n in e.nodes],
            lambda: self.verifier.judge(self.claim, excerpts),
            VerdictResult,
        )
        return Iteration(
            index=index,
            checked=new,
            carried_roots=carried,
            nodes_with_evidence=evidence.nodes,
            evidence=evidence.flat(),
            context=evidence.context,
            batches=records,
            skipped=skipped,
            excerpts=excerpts,
            reselections=reselections,
            omitted_from_verdict=omitted,
            verdict=result.verdict,
            reasoning=result.reasoning,
            score=result.score,
            gaps=result.gaps,
        )

    def _read(self, nodes: list[str]) -> list[list[Sentence]]:
        """The nodes' sentences. The first read of a node splits it: an iteration that reaches
        hundreds of nodes takes seconds, so a requested stop is noticed between two."""
        read = []
        for node_id in nodes:
            interruption.check()
            read.append(self.dag.sentences(node_id))
        return read

    def _prefiltered(self, nodes: list[list[Sentence]]) -> tuple[list[list[Sentence]], list[str]]:
        """(what Evidence Selection is shown of each node, the ranges of sentences left out), when
        the verifier prefilters; reselection never does: it narrows what was already selected."""
        if not isinstance(self.verifier, Prefilters):
            return nodes, []
        shown: list[list[Sentence]] = []
        skipped: list[Sentence] = []
        for sentences in nodes:
            flags = self.verifier.may_be_evidence(self.claim, sentences)
            shown.append([s for s, keep in zip(sentences, flags, strict=True) if keep])
            skipped += [s for s, keep in zip(sentences, flags, strict=True) if not keep]
        return shown, ranges(skipped)

    async def _reselect(self, evidence: Evidence, records: list[BatchRecord]) -> tuple[Evidence, int]:
        """While the summaries exceed their budget, run Evidence Selection again on the non-root
        evidence only (roots have their own budget and are never read twice); stop when a pass
        does not narrow it."""
        reselections = 0
        while (
            self.verdict_input.summaries_too_long(self.verdict_input.excerpts(evidence))
            and reselections < self.config.max_reselections
        ):
            pool = evidence.non_roots(self.dag.is_root)
            narrowed, more = await self._select(pool, reselection=True)
            reselections += 1
            records.extend(more)
            if not narrowed or len(narrowed.flat()) >= sum(map(len, pool)):
                break
            evidence = evidence.reselected(narrowed, self.dag.is_root)
        return evidence, reselections

    async def _select(self, nodes: list[list[Sentence]], reselection: bool) -> tuple[Evidence, list[BatchRecord]]:
        """Evidence Selection over the nodes' sentences, one prompt per batch, run concurrently;
        ids the verifier invents are discarded."""
        nodes, cut = shorten(nodes, self.config.max_prompt_chars)
        batches = pack_nodes(nodes, self.config.max_sentences_per_prompt, self.config.max_prompt_chars)
        answers = await _all(
            self._call(
                "evidence reselection" if reselection else "evidence selection",
                _unique(s.node_id for s in batch),
                partial(self.verifier.select_evidence, self.claim, batch),
                EvidenceSelection,
            )
            for batch in batches
        )
        evidence = Evidence()
        records: list[BatchRecord] = []
        for batch, answer in zip(batches, answers, strict=True):
            assigned = {s.id: s for s in batch}
            if answer.agreement is not None:
                earlier = evidence.agreement.short if evidence.agreement else []
                short = _unique([*earlier, *(i for i in answer.agreement.short if i in assigned)])
                evidence.agreement = answer.agreement.model_copy(update={"short": short})
            selected = _unique(i for i in answer.selected if i in assigned)
            context = _unique(i for i in answer.context if i in assigned and i not in selected)
            discarded = _unique(i for i in [*answer.selected, *answer.context] if i not in assigned)
            summary = answer.summary.strip() if selected else ""
            for sentence_id in sorted(selected, key=lambda i: assigned[i].index):
                evidence.add(assigned[sentence_id], summary)
            evidence.context.extend(assigned[i] for i in context)
            records.append(
                BatchRecord(
                    node_ids=_unique(s.node_id for s in batch),
                    shown=ranges(batch),
                    selected=selected,
                    context=context,
                    discarded=discarded,
                    summary=summary,
                    reselection=reselection,
                    cut=[s.id for s in batch if s.id in cut],
                )
            )
        return evidence, records

    def _finish(
        self,
        iterations: list[Iteration],
        verdict: Verdict,
        reason: StopReason,
        judged: VerdictResult | None = None,
    ) -> ClaimResult:
        """The claim's result; `judged` is the verifier's judgement without evidence of a claim
        supported only in intermediate outputs (`_untraced_verdict`), which gives the final verdict
        its reasoning, score and gaps."""
        latest = iterations[-1]
        reasoning, score, gaps = latest.reasoning, latest.score, latest.gaps
        stages, note = error_stages(
            verdict,
            iterations,
            self.dag.stage(self.terminal),
            self.dag.stage,
            self.dag.is_root,
        )
        if judged is not None:
            reasoning = self._judged_untraced(iterations, judged)
            score, gaps = judged.score, judged.gaps
        elif verdict is not latest.verdict:
            reasoning = self._untraced(iterations, stages)
            score = 0.0 if latest.score is not None else None
            gaps = []
        elif reason is StopReason.NO_CANDIDATES and verdict is Verdict.INCONCLUSIVE:
            reasoning = f"{reasoning.rstrip(' .')}. {NOT_TRACED_NOTE}" if reasoning.strip() else NOT_TRACED_NOTE
        if verdict is Verdict.NOT_FULLY_SUPPORTED and isinstance(self.verifier, LocatesInventions):
            holds = self.verifier.holds
            located = first_holding(
                gaps,
                iterations,
                self.dag.stage,
                self.dag.is_root,
                lambda n: holds(gaps, n, self.dag.node(n).text),
            )
            stages, note = located or (stages, note)
        result = ClaimResult(
            claim=self.claim,
            terminal=self.terminal,
            language=self.languages.language,
            verdict=verdict,
            reasoning=reasoning,
            score=score,
            gaps=gaps,
            error_stages=stages,
            error_note=note,
            stop_reason=reason,
            iterations=iterations,
        )
        return self.languages.finished(result)

    def _judged_untraced(self, iterations: list[Iteration], judged: VerdictResult) -> str:
        """Why a claim supported only in intermediate outputs ends with the verifier's judgement
        without evidence, and that judgement's reasoning."""
        verdicts = ", ".join(it.verdict.value for it in iterations)
        found_in = ", ".join(str(s) for s in sorted({self.dag.stage(n) for n in iterations[-1].nodes_with_evidence}))
        said = (
            f"The interim verdicts ({verdicts}) found support only in intermediate outputs (stage {found_in}); the "
            "texts those were made from were read and yielded no evidence, so the claim is judged as one no node "
            f"yields evidence for, against those texts: {judged.reasoning.rstrip(' .')}."
        )
        return f"{said} {NOT_TRACED_NOTE}" if judged.verdict is Verdict.INCONCLUSIVE else said

    @staticmethod
    def _untraced(iterations: list[Iteration], stages: list[int] | None) -> str:
        """Why the final verdict is not the latest one: no node is left to check and no source text
        yielded evidence. Said in full, so that "Fully Supported, Fully Supported" then Not Fully
        Supported does not read as a contradiction."""
        verdicts = ", ".join(it.verdict.value for it in iterations)
        latest = iterations[-1]
        if latest.verdict is Verdict.INCONCLUSIVE:
            blamed = (
                f"; its error is placed at the stage(s) where support was last found ({', '.join(map(str, stages))})"
                if stages
                else ""
            )
            return (
                f"The interim verdicts ({verdicts}) end Inconclusive with no node left to check: no source text "
                f"yielded evidence, so the claim is not traced to the source and is Not Fully Supported (the "
                f"paper's rule){blamed}. The latest verdict's reasoning: {latest.reasoning}"
            )
        found_in = ", ".join(str(s) for s in stages or []) or "intermediate"
        return (
            f"The interim verdicts ({verdicts}) found support only in intermediate outputs (stage {found_in}); the "
            "texts those were made from held none, so the source was never reached: the claim is not traced to the "
            "source, and its error is placed at the stage(s) nearest the source where support was found."
        )
