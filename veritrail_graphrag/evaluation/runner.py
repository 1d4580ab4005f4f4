"""Run a verifier through the engine on a benchmark split and score it next to the reference points.

The engine runs exactly as `veritrail verify` runs it (same traversal, same claims), so the figures
describe the tool, not a shortcut around it. The token-overlap threshold is tuned on the dev split
only, whatever split is evaluated.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from veritrail_graphrag import __version__, event_loop
from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.engine.traversal import VeriTrail
from veritrail_graphrag.errors import EndpointError, VeriTrailError
from veritrail_graphrag.evaluation.baselines import overlap_score
from veritrail_graphrag.evaluation.counting import counting, model_calls, tokens_used
from veritrail_graphrag.evaluation.items import BenchmarkItem, LoadedBenchmark, Unit
from veritrail_graphrag.evaluation.metrics import best_threshold
from veritrail_graphrag.evaluation.results import Cost, EvalReport, UnitOutcome
from veritrail_graphrag.evaluation.scoring import score_system
from veritrail_graphrag.evaluation.splits import DEV_FRACTION, SPLIT_SEED, Split, balanced, has_unsupported, select
from veritrail_graphrag.models import TrailConfig, Verdict
from veritrail_graphrag.verifiers.base import Verifier
from veritrail_graphrag.verifiers.capabilities import close, verifier_settings

ITEM_CONCURRENCY = 8
"""Items verified at once; each item's claims share the engine's own concurrency limit."""

Progress = Callable[[int, int], None]


def _aggregate(results: Sequence[ClaimResult]) -> tuple[Verdict, float | None, list[int] | None]:
    """A unit of several claims is flagged when any claim is; its score is the weakest claim's."""
    verdicts = {r.verdict for r in results}
    if Verdict.NOT_FULLY_SUPPORTED in verdicts:
        verdict = Verdict.NOT_FULLY_SUPPORTED
    elif Verdict.INCONCLUSIVE in verdicts:
        verdict = Verdict.INCONCLUSIVE
    else:
        verdict = Verdict.FULLY_SUPPORTED
    scores = [r.score for r in results]
    score = None if any(s is None for s in scores) else min(s for s in scores if s is not None)
    flagged = [r for r in results if r.verdict is Verdict.NOT_FULLY_SUPPORTED]
    if any(r.error_stages is None for r in flagged):
        stages = None
    else:
        stages = sorted({s for r in flagged for s in r.error_stages or []})
    return verdict, score, stages


def _outcome(
    item: BenchmarkItem,
    unit: Unit,
    verdict: Verdict | None,
    score: float | None,
    *,
    error_stages: Sequence[int] | None = (),
    nodes_read: int = 0,
    error: str | None = None,
    no_agreement: bool = False,
    reasoning: str = "",
) -> UnitOutcome:
    return UnitOutcome(
        unit_id=unit.id,
        item_id=item.id,
        subset=item.subset,
        supported=unit.supported,
        uncheckable=unit.uncheckable,
        verdict=verdict,
        score=score,
        error_stages=None if error_stages is None else list(error_stages),
        planted_stage=unit.planted_stage,
        edit_kind=unit.edit_kind,
        claims=len(unit.claim_ids),
        nodes_read=nodes_read,
        error=error,
        no_agreement=no_agreement,
        reasoning=reasoning,
    )


async def _verify_item(engine: VeriTrail, item: BenchmarkItem) -> list[UnitOutcome]:
    """The item's claims go to the shared verifier under ids scoped to the item: items run at once
    and may hold the same claim over different DAGs (a planted fact changed at each stage), and a
    verifier may keep what it read per claim."""
    scoped = {f"{item.id}::{c.claim.id}": c.claim for c in item.claims}
    try:
        dag = item.build_dag()
        claims = [claim.model_copy(update={"id": key}) for key, claim in scoped.items()]
        results = await engine.averify_many(dag, claims, item.terminal)
    except EndpointError:
        raise
    except VeriTrailError as exc:
        return [_outcome(item, unit, None, None, error=f"{type(exc).__name__}: {exc}") for unit in item.units()]
    by_id = {scoped[r.claim.id].id: r for r in results}
    outcomes = []
    for unit in item.units():
        chosen = [by_id[c] for c in unit.claim_ids]
        verdict, score, stages = _aggregate(chosen)
        reasoning = chosen[0].reasoning if len(chosen) == 1 else ""
        nodes_read = sum(r.nodes_read for r in chosen)
        outcomes.append(
            _outcome(
                item,
                unit,
                verdict,
                score,
                error_stages=stages,
                nodes_read=nodes_read,
                no_agreement=any(r.no_agreement for r in chosen),
                reasoning=reasoning,
            )
        )
    return outcomes


async def _verify_all(
    engine: VeriTrail, items: Sequence[BenchmarkItem], progress: Progress | None
) -> list[list[UnitOutcome]]:
    semaphore = asyncio.Semaphore(ITEM_CONCURRENCY)
    done = 0

    async def one(item: BenchmarkItem) -> list[UnitOutcome]:
        nonlocal done
        async with semaphore:
            outcomes = await _verify_item(engine, item)
        done += 1
        if progress is not None:
            progress(done, len(items))
        return outcomes

    try:
        return list(await asyncio.gather(*(one(item) for item in items)))
    finally:
        await close(engine.verifier)


def overlap_outcomes(items: Sequence[BenchmarkItem], threshold: float) -> list[UnitOutcome]:
    """The token-overlap reference point: each claim against the text of every root of its DAG."""
    outcomes = []
    for item in items:
        roots = {n.id for n in item.dag.nodes} - {v for _, v in item.dag.edges}
        sources = [n.text for n in item.dag.nodes if n.id in roots]
        claim_scores = {c.claim.id: overlap_score(c.claim.text, sources) for c in item.claims}
        for unit in item.units():
            score = min(claim_scores[c] for c in unit.claim_ids)
            verdict = Verdict.FULLY_SUPPORTED if score >= threshold else Verdict.NOT_FULLY_SUPPORTED
            outcomes.append(_outcome(item, unit, verdict, score))
    return outcomes


def tune_overlap(dev_items: Sequence[BenchmarkItem]) -> float:
    """The overlap threshold with the best dev macro F1 (over the units with a two-class label)."""
    outcomes = [o for o in overlap_outcomes(dev_items, threshold=0.0) if not o.uncheckable]
    return best_threshold([not o.supported for o in outcomes], [o.score or 0.0 for o in outcomes])


def always_supported_outcomes(items: Sequence[BenchmarkItem]) -> list[UnitOutcome]:
    return [_outcome(item, unit, verdict=Verdict.FULLY_SUPPORTED, score=1.0) for item in items for unit in item.units()]


def evaluate(
    benchmark: LoadedBenchmark,
    verifier_name: str,
    verifier: Verifier,
    split: Split,
    *,
    limit: int | None = None,
    config: TrailConfig | None = None,
    data_dir: Path | None = None,
    command: str = "",
    progress: Progress | None = None,
    exclude_no_agreement: bool = False,
) -> EvalReport:
    """Verify the split's items (a balanced slice of `limit` of them: see `balanced`) and score the
    verifier and both reference points on the same units. `exclude_no_agreement` leaves out of
    every system's AUROC the units with a claim whose samples agreed on no evidence, as the paper
    did (its appendix E.3); the hard metrics keep them."""
    chosen = select(benchmark.items, split)
    items = chosen if limit is None else balanced(chosen, limit)
    dev_items = select(benchmark.items, Split.DEV)
    if not items:
        raise VeriTrailError(f"{benchmark.name}: the {split} split is empty")
    if not dev_items:
        raise VeriTrailError(f"{benchmark.name}: the dev split is empty, nothing to tune the overlap threshold on")
    threshold = tune_overlap(dev_items)

    counted = counting(verifier)
    engine = VeriTrail(counted, config or TrailConfig())
    tokens_before, calls_before = tokens_used(verifier), model_calls(verifier) or {}
    started = time.perf_counter()
    verified = [o for group in event_loop.run(_verify_all(engine, items, progress)) for o in group]
    seconds = time.perf_counter() - started
    tokens_after, calls_after = tokens_used(verifier), model_calls(verifier)

    failed_items = {o.item_id for o in verified if o.error}
    kept = [o for o in verified if not o.error]
    if not kept:
        raise VeriTrailError(f"{benchmark.name}: every item failed; first error: {verified[0].error}")
    kept_items = [i for i in items if i.id not in failed_items]
    claims = sum(len(i.claims) for i in items)
    dev_units = sum(not u.uncheckable for i in dev_items for u in i.units())
    left_out = frozenset((o.item_id, o.unit_id) for o in kept if o.no_agreement and exclude_no_agreement)

    reviewed = benchmark.triage
    systems = [
        score_system(
            verifier_name, f"the {verifier_name} verifier through the VeriTrail engine", kept, localizes=True,
            auroc_left_out=left_out, reviewed=reviewed,
        ),
        score_system(
            "always Fully Supported", "flags nothing (reference point)", always_supported_outcomes(kept_items),
            auroc_left_out=left_out, reviewed=reviewed,
        ),
        score_system(
            "token overlap",
            f"Fully Supported iff at least {threshold:.3f} of the claim's content words occur in the roots "
            f"(threshold tuned for macro F1 on the {dev_units} dev units)",
            overlap_outcomes(kept_items, threshold),
            threshold=threshold,
            auroc_left_out=left_out,
            reviewed=reviewed,
        ),
    ]  # fmt: skip
    tokens = None if tokens_before is None or tokens_after is None else tokens_after - tokens_before
    sent = None if calls_after is None else {k: n - calls_before.get(k, 0) for k, n in calls_after.items()}
    cost = Cost(
        claims=claims,
        calls=counted.total_calls,
        calls_by_kind=dict(sorted(counted.calls.items())),
        model_calls_by_kind=sent,
        calls_per_claim=counted.total_calls / claims,
        tokens=tokens,
        tokens_per_claim=None if tokens is None else tokens / claims,
        seconds=round(seconds, 3),
        seconds_per_claim=seconds / claims,
        nodes_read_per_claim=sum(o.nodes_read for o in verified) / claims,
    )
    notes = list(benchmark.notes)
    warnings = list(benchmark.warnings)
    if items and len({has_unsupported(item) for item in items}) == 1:
        only = "unsupported" if has_unsupported(items[0]) else "supported"
        warnings.append(
            f"every unit of this {'slice' if limit else 'split'} is {only}: balanced accuracy, macro F1 and "
            "AUROC need both classes and say nothing here"
        )
    if split is Split.DEV:
        notes.append("This is the dev split: the overlap threshold was tuned on these same units (optimistic).")
    no_agreement = sum(o.no_agreement for o in kept)
    if exclude_no_agreement:
        notes.append(
            f"AUROC leaves out, for every system, the {len(left_out)} unit(s) with a claim whose samples agreed on "
            "no evidence (--exclude-no-agreement), as the paper's appendix E.3 did; the hard metrics keep them."
        )
    elif no_agreement:
        notes.append(
            f"{no_agreement} unit(s) have a claim whose samples agreed on no evidence: the paper gave such claims no "
            "verdict and left them out of AUROC; here they are Not Fully Supported with score 0 "
            "(--exclude-no-agreement leaves them out of AUROC)."
        )
    return EvalReport(
        tool_version=__version__,
        command=command,
        benchmark=benchmark.name,
        split=split.value,
        verifier=verifier_name,
        verifier_settings=verifier_settings(verifier, after_run=True),
        data_dir=str(data_dir) if data_dir else "",
        split_seed=SPLIT_SEED,
        dev_fraction=DEV_FRACTION,
        limit=limit,
        triage=reviewed,
        notes=notes,
        warnings=warnings,
        items=len(items),
        units=len(verified),
        claims=claims,
        dev_units_for_tuning=dev_units,
        skipped=benchmark.skipped,
        errors=len(failed_items),
        auroc_left_out=len(left_out),
        systems=systems,
        cost=cost,
        outcomes=verified,
    )
