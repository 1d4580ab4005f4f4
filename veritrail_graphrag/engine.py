"""VeriTrail's backward traversal for one claim (METHOD.md sections 2-4, the paper's Algorithm 1).

The engine knows the DAG and the `Verifier` interface, nothing about prompts or GraphRAG. It reads
a node (splits it into sentences and shows them to the verifier) only when the traversal reaches
it, and never twice for one claim: roots that already yielded evidence are carried forward
instead of being re-read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from veritrail_graphrag.batching import pack_nodes
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.errors import ClaimsError, VerifierError
from veritrail_graphrag.localization import error_stages
from veritrail_graphrag.models import (
    Claim,
    EvidenceSelection,
    Excerpt,
    Sentence,
    TrailConfig,
    Verdict,
    VerdictResult,
)
from veritrail_graphrag.sentences import split_sentences
from veritrail_graphrag.trail import BatchRecord, ClaimResult, Iteration, StopReason
from veritrail_graphrag.verifiers.base import Verifier

_M = TypeVar("_M", bound=BaseModel)
_T = TypeVar("_T")


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _ranges(batch: Sequence[Sentence]) -> list[str]:
    """`node#3-9` per run of consecutive sentences: the prompt's content, compactly, for the report."""
    runs: list[list[Sentence]] = []
    for sentence in batch:
        last = runs[-1][-1] if runs else None
        if last is not None and last.node_id == sentence.node_id and last.index + 1 == sentence.index:
            runs[-1].append(sentence)
        else:
            runs.append([sentence])
    return [f"{run[0].node_id}#{run[0].index}-{run[-1].index}" for run in runs]


async def _all(calls: Iterable[Awaitable[_T]]) -> list[_T]:
    """Run concurrently; the first failure cancels the rest and is raised as itself.

    Unlike `asyncio.gather`, no sibling call keeps running (and spending) after a failure.
    """
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(_awaited(call)) for call in calls]
    except BaseExceptionGroup as failures:
        raise failures.exceptions[0] from None
    return [task.result() for task in tasks]


async def _awaited(call: Awaitable[_T]) -> _T:
    return await call


class VeriTrail:
    """Verify claims against a DAG with a verifier. One engine can serve many DAGs and claims."""

    def __init__(self, verifier: Verifier, config: TrailConfig | None = None) -> None:
        self.verifier = verifier
        self.config = config or TrailConfig()

    def verify(self, dag: DAG, claim: Claim, terminal: str | None = None) -> ClaimResult:
        """Synchronous convenience around `averify` (not usable inside a running event loop)."""
        return asyncio.run(self.averify(dag, claim, terminal))

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
    ) -> list[ClaimResult]:
        """Verify claims concurrently; verifier calls of all claims share one concurrency limit.

        `terminal` is one node for all claims, or a claim id -> node mapping (e.g. auditing many
        community reports at once). Results come back in the order of `claims`. Without `on_error`
        the first failing claim cancels the others; with it, a claim whose verifier failed is
        reported there, left out of the results, and the other claims go on.
        """
        seen: set[str] = set()
        duplicates = [c.id for c in claims if c.id in seen or seen.add(c.id)]
        if duplicates:
            raise ClaimsError(f"duplicate claim ids: {', '.join(map(repr, _unique(duplicates)))}")
        if isinstance(terminal, Mapping):
            missing = [c.id for c in claims if c.id not in terminal]
            if missing:
                raise ClaimsError(f"no terminal given for claims {', '.join(map(repr, missing[:10]))}")
            starts = {c.id: dag.resolve_terminal(terminal[c.id]) for c in claims}
        else:
            start = dag.resolve_terminal(terminal)
            starts = {c.id: start for c in claims}
        semaphore = asyncio.Semaphore(self.config.concurrency)

        async def one(claim: Claim) -> ClaimResult | None:
            try:
                result = await _Trail(self, dag, claim, starts[claim.id], semaphore).run()
            except VerifierError as exc:
                if on_error is None:
                    raise
                on_error(claim, exc)
                return None
            if on_result is not None:
                on_result(result)
            return result

        return [r for r in await _all(one(c) for c in claims) if r is not None]


class _Evidence:
    """Evidence gathered in one iteration, grouped by node in reading order."""

    def __init__(self) -> None:
        self.sentences: dict[str, list[Sentence]] = {}
        self.summaries: dict[str, list[str]] = {}
        self.context: list[Sentence] = []

    def add(self, sentence: Sentence, summary: str) -> None:
        self.sentences.setdefault(sentence.node_id, []).append(sentence)
        summaries = self.summaries.setdefault(sentence.node_id, [])
        if summary.strip() and summary not in summaries:
            summaries.append(summary)

    def flat(self) -> list[Sentence]:
        return [s for group in self.sentences.values() for s in group]

    def drop(self, node_ids: Iterable[str]) -> None:
        for node_id in node_ids:
            self.sentences.pop(node_id, None)
            self.summaries.pop(node_id, None)


class _Trail:
    """State of one claim's traversal (METHOD.md section 3)."""

    def __init__(self, engine: VeriTrail, dag: DAG, claim: Claim, terminal: str, semaphore: asyncio.Semaphore) -> None:
        self.verifier = engine.verifier
        self.config = engine.config
        self.dag = dag
        self.claim = claim
        self.terminal = terminal
        self.semaphore = semaphore

    async def _call(
        self, what: str, node_ids: Sequence[str], call: Callable[[], Awaitable[Any]], model: type[_M] | None
    ) -> Any:
        """One verifier call under the shared concurrency limit; failures name the claim and nodes."""
        async with self.semaphore:
            try:
                answer = await call()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                raise VerifierError(
                    f"claim {self.claim.id!r}: verifier failed during {what}"
                    + (f" on nodes {', '.join(map(repr, node_ids[:10]))}" if node_ids else "")
                    + f": {type(exc).__name__}: {exc}",
                    self.claim.id,
                    list(node_ids),
                ) from exc
        if model is None or isinstance(answer, model):
            return answer
        try:
            return model.model_validate(answer)
        except ValidationError as exc:
            raise VerifierError(
                f"claim {self.claim.id!r}: verifier returned {type(answer).__name__} during {what}, "
                f"expected {model.__name__}: {exc.errors()[0]['msg']}",
                self.claim.id,
                list(node_ids),
            ) from None

    async def run(self) -> ClaimResult:
        claim = self.claim
        if not claim.sub_claims:
            claim = claim.model_copy(update={"sub_claims": await self._decompose(claim.text)})
        self.claim = claim

        iterations: list[Iteration] = []
        checked: set[str] = set()
        roots_with_evidence: dict[str, list[Sentence]] = {}
        consecutive_nfs = 0
        to_check = _unique(self.dag.src(self.terminal))

        while True:
            iteration = await self._iterate(len(iterations) + 1, to_check, roots_with_evidence)
            iterations.append(iteration)
            for node_id in iteration.nodes_with_evidence:
                if self.dag.is_root(node_id) and node_id not in roots_with_evidence:
                    roots_with_evidence[node_id] = [s for s in iteration.evidence if s.node_id == node_id]
            checked.update(to_check)

            if iteration.verdict is Verdict.NOT_FULLY_SUPPORTED:
                consecutive_nfs += 1
                expand_from = to_check
            else:
                consecutive_nfs = 0
                expand_from = iteration.nodes_with_evidence
            candidates = [n for src in expand_from for n in self.dag.src(src) if n not in checked]
            to_check = _unique([*candidates, *roots_with_evidence])

            if to_check and set(to_check) == set(roots_with_evidence):
                return self._finish(iterations, iteration.verdict, StopReason.ROOTS_REACHED)
            if not to_check:
                return self._finish(iterations, Verdict.NOT_FULLY_SUPPORTED, StopReason.NO_CANDIDATES)
            if consecutive_nfs == self.config.q:
                return self._finish(iterations, Verdict.NOT_FULLY_SUPPORTED, StopReason.NOT_SUPPORTED_LIMIT)

    async def _decompose(self, text: str) -> list[str]:
        """Queue-based decomposition: multi-part answers are split again, single parts are final."""
        queue = [text]
        seen = {text.strip().lower()}
        final: list[str] = []
        calls = 0
        while queue and calls < self.config.max_decompositions:
            part = queue.pop(0)
            answer = await self._call(
                "sub-claim decomposition", [], lambda part=part: self.verifier.decompose(part), None
            )
            calls += 1
            if not isinstance(answer, list) or not all(isinstance(p, str) for p in answer):
                raise VerifierError(
                    f"claim {self.claim.id!r}: decompose returned {type(answer).__name__}, expected list[str]",
                    self.claim.id,
                )
            pieces = [p.strip() for p in answer if p.strip()]
            if len(pieces) <= 1:
                final.append(pieces[0] if pieces else part)
                continue
            for piece in pieces:
                key = piece.lower()
                if key not in seen:
                    seen.add(key)
                    queue.append(piece)
        final.extend(queue)
        return [p for p in _unique(final) if p.strip().lower() != text.strip().lower()]

    async def _select(self, batches: list[list[Sentence]], reselection: bool) -> tuple[_Evidence, list[BatchRecord]]:
        """Run one Evidence Selection prompt per batch concurrently; keep only assigned ids."""
        answers = await _all(
            self._call(
                "evidence reselection" if reselection else "evidence selection",
                _unique(s.node_id for s in batch),
                lambda batch=batch: self.verifier.select_evidence(self.claim, batch),
                EvidenceSelection,
            )
            for batch in batches
        )
        evidence = _Evidence()
        records: list[BatchRecord] = []
        for batch, answer in zip(batches, answers, strict=True):
            assigned = {s.id: s for s in batch}
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
                    shown=_ranges(batch),
                    selected=selected,
                    context=context,
                    discarded=discarded,
                    summary=summary,
                    reselection=reselection,
                )
            )
        return evidence, records

    async def _iterate(
        self, index: int, to_check: list[str], roots_with_evidence: dict[str, list[Sentence]]
    ) -> Iteration:
        carried = [n for n in to_check if n in roots_with_evidence]
        new = [n for n in to_check if n not in roots_with_evidence]
        batches = pack_nodes([self.dag.sentences(n) for n in new], self.config.max_sentences_per_prompt)
        evidence, records = await self._select(batches, reselection=False)
        for root in carried:
            for sentence in roots_with_evidence[root]:
                evidence.add(sentence, "")
        context = evidence.context

        if not evidence.sentences:
            return Iteration(
                index=index,
                checked=new,
                carried_roots=carried,
                nodes_with_evidence=[],
                evidence=[],
                context=context,
                batches=records,
                verdict=Verdict.NOT_FULLY_SUPPORTED,
                reasoning=f"No sentence of the {len(new)} node(s) checked was selected as evidence.",
                score=0.0,
            )

        reselections = 0
        excerpts = self._excerpts(evidence)
        while self._summaries_too_long(excerpts) and reselections < self.config.max_reselections:
            pool = evidence.flat()
            groups = [evidence.sentences[node_id] for node_id in evidence.sentences]
            narrowed, more = await self._select(
                pack_nodes(groups, self.config.max_sentences_per_prompt), reselection=True
            )
            reselections += 1
            records.extend(more)
            if not narrowed.sentences or len(narrowed.flat()) >= len(pool):
                break
            evidence = narrowed
            excerpts = self._excerpts(evidence)

        omitted: list[str] = []
        if self._summaries_too_long(excerpts) or self._roots_too_long(excerpts):
            excerpts, omitted = self._largest_fitting(excerpts)
            evidence.drop(omitted)

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
            nodes_with_evidence=list(evidence.sentences),
            evidence=evidence.flat(),
            context=context,
            batches=records,
            excerpts=excerpts,
            reselections=reselections,
            omitted_from_verdict=omitted,
            verdict=result.verdict,
            reasoning=result.reasoning,
            score=result.score,
        )

    def _excerpts(self, evidence: _Evidence) -> list[Excerpt]:
        """Roots give their full text; other nodes their Evidence Selection summary, given once per
        group of nodes that share it (or their selected sentences when there is no summary)."""
        order: list[str | tuple[str, ...]] = []
        groups: dict[tuple[str, ...], list[str]] = {}
        for node_id, sentences in evidence.sentences.items():
            if self.dag.is_root(node_id):
                order.append(node_id)
                continue
            key = tuple(evidence.summaries.get(node_id) or [" ".join(s.text for s in sentences)])
            if key not in groups:
                groups[key] = []
                order.append(key)
            groups[key].append(node_id)
        return [
            Excerpt(node_id=item, text=self.dag.node(item).text, is_root=True)
            if isinstance(item, str)
            else Excerpt(node_id=groups[item][0], text="\n".join(item), is_root=False, covers=groups[item])
            for item in order
        ]

    def _excerpt_size(self, excerpt: Excerpt) -> int:
        if excerpt.is_root:
            return len(self.dag.sentences(excerpt.node_id))
        return max(1, len(split_sentences(excerpt.text)))

    def _summaries_too_long(self, excerpts: Sequence[Excerpt]) -> bool:
        """Non-root evidence (summaries) has its own limit; re-selection can shrink it."""
        size = sum(self._excerpt_size(e) for e in excerpts if not e.is_root)
        return size > self.config.max_verdict_sentences

    def _roots_too_long(self, excerpts: Sequence[Excerpt]) -> bool:
        """Roots are given in full, bounded only by what a verdict prompt can hold."""
        size = sum(self._excerpt_size(e) for e in excerpts if e.is_root)
        return size > self.config.max_verdict_root_sentences

    def _largest_fitting(self, excerpts: list[Excerpt]) -> tuple[list[Excerpt], list[str]]:
        """The most excerpts that fit both verdict limits (smallest first); always at least one."""
        budget = {False: self.config.max_verdict_sentences, True: self.config.max_verdict_root_sentences}
        kept: set[str] = set()
        for excerpt in sorted(excerpts, key=self._excerpt_size):
            size = self._excerpt_size(excerpt)
            if kept and size > budget[excerpt.is_root]:
                continue
            kept.add(excerpt.node_id)
            budget[excerpt.is_root] -= size
        return (
            [e for e in excerpts if e.node_id in kept],
            [n for e in excerpts if e.node_id not in kept for n in e.nodes],
        )

    def _finish(self, iterations: list[Iteration], verdict: Verdict, reason: StopReason) -> ClaimResult:
        latest = iterations[-1]
        reasoning, score = latest.reasoning, latest.score
        if verdict is not latest.verdict:
            reasoning = (
                f"The last interim verdict was {latest.verdict.value}, but no root node yielded evidence "
                "(the source was never reached), so the claim is not traced to the source."
            )
            score = 0.0 if latest.score is not None else None
        stages, note = error_stages(
            verdict,
            iterations,
            self.dag.stage(self.terminal),
            self.dag.stage,
            self.dag.is_root,
        )
        return ClaimResult(
            claim=self.claim,
            terminal=self.terminal,
            verdict=verdict,
            reasoning=reasoning,
            score=score,
            error_stages=stages,
            error_note=note,
            stop_reason=reason,
            iterations=iterations,
        )
