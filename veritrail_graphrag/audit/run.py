"""Running an audit: claims in, report out, with a checkpoint (`checkpoint.py`) so an
interrupted audit resumes. With the LLM cache, even the claims that were in flight when it stopped
cost nothing to redo. The report is written atomically and the checkpoint removed after; beside a
report.md come report.html and the parquet tables, all of them new or all as they were. The
whole run holds the report's lock (`output_lock.py`): a second audit into the same report stops
at once instead of mixing its checkpoint and report with this one's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from pathlib import Path

from veritrail_graphrag import __version__, interruption
from veritrail_graphrag.audit.checkpoint import Checkpoint, audit_key
from veritrail_graphrag.audit.output_lock import OutputLock
from veritrail_graphrag.citations import SentenceCitations
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.engine.traversal import VeriTrail
from veritrail_graphrag.errors import VerifierError
from veritrail_graphrag.models import Claim
from veritrail_graphrag.report.citation_accuracy import attach_citations
from veritrail_graphrag.report.languages import summarize_languages
from veritrail_graphrag.report.markdown import MD_LIMIT
from veritrail_graphrag.report.model import AuditReport, ClaimFailure, SkippedSentence, summarize
from veritrail_graphrag.report.outputs import write_outputs
from veritrail_graphrag.report.records import NodeInfo, touched_nodes
from veritrail_graphrag.verifiers.base import Estimates, ReadsLanguages
from veritrail_graphrag.verifiers.capabilities import usage_report, verifier_settings


async def run_audit(
    engine: VeriTrail,
    dag: DAG,
    claims: list[Claim],
    terminal: str | Mapping[str, str],
    *,
    source: str,
    verifier_name: str,
    report_path: Path,
    markdown_path: Path | None = None,
    resume: bool = True,
    on_result: Callable[[ClaimResult], None] | None = None,
    citations: Mapping[str, Sequence[SentenceCitations]] | None = None,
    extraction_failures: Sequence[ClaimFailure] = (),
    skipped: Sequence[SkippedSentence] = (),
    lock: OutputLock | None = None,
    full_trail: bool = False,
    md_limit: int = MD_LIMIT,
    workers: int = 1,
    relocate: Callable[[ClaimResult], ClaimResult] | None = None,
) -> AuditReport:
    """Verify the claims not already in the checkpoint, then write the report atomically.

    A claim the verifier cannot judge is listed in `report.failed` with its error (never given a
    guessed verdict); the checkpoint is then kept, so re-running retries only those claims.
    `citations` (per terminal, per sentence: what the output cites) adds citation accuracy.
    `lock`: the report's lock when the caller took it earlier (the CLI does, before extracting
    claims); otherwise it is taken here (`OutputBusyError` when another process holds it).
    `full_trail` keeps the texts of the nodes read in the report; `md_limit` caps report.md's claims;
    `workers`: processes verifying the claims (`engine/workers.py`), with the report of one.
    `relocate` revises a result's error stage where the DAG's kind calls for it (a pasted answer).
    """
    if lock is not None and (lock.report_path != report_path or not lock.held):
        raise ValueError(f"the lock given is not held on {report_path}")
    with OutputLock(report_path) if lock is None else nullcontext():
        settings = verifier_settings(engine.verifier)
        key = audit_key(dag, terminal, verifier_name, settings, engine.config)
        checkpoint = Checkpoint(report_path, key)
        texts = {c.id: c.text for c in claims}
        done = checkpoint.load(dag) if resume else {}
        done = {cid: r for cid, r in done.items() if texts.get(cid) == r.claim.text}
        checkpoint.start(keep=bool(done))
        for result in done.values():
            if on_result is not None:
                on_result(result)

        def finished(result: ClaimResult) -> None:
            checkpoint.append(result)
            if on_result is not None:
                on_result(result)

        failures: list[ClaimFailure] = []

        def failed(claim: Claim, error: VerifierError) -> None:
            where = terminal if isinstance(terminal, str) else terminal[claim.id]
            failures.append(ClaimFailure(claim=claim, terminal=where, error=str(error)))

        todo = [c for c in claims if c.id not in done]
        try:
            verified = await engine.averify_many(
                dag, todo, terminal, on_result=finished, on_error=failed, workers=workers
            )
        finally:
            checkpoint.close()
        interruption.check()  # what follows builds and writes the report: seconds for an index audit
        fresh = {r.claim.id: r for r in verified}
        results = [done.get(c.id) or fresh[c.id] for c in claims if c.id in done or c.id in fresh]
        if relocate is not None:
            results = [relocate(r) for r in results]
        if citations:
            results = attach_citations(results, citations)
        failures.sort(key=lambda f: [c.id for c in claims].index(f.claim.id))
        failures = [*extraction_failures, *failures]

        terminals = [terminal] if isinstance(terminal, str) else list(dict.fromkeys(terminal[c.id] for c in claims))
        touched = {n for n in {*terminals, *(f.terminal for f in failures)} if n in dag}
        touched = touched.union(*(touched_nodes(r) for r in results))
        languages = {n: dag.language(n) for n in touched}
        reads = engine.verifier.languages if isinstance(engine.verifier, ReadsLanguages) else None
        report = AuditReport(
            tool_version=__version__,
            source=source,
            terminals=terminals,
            verifier=verifier_name,
            verifier_settings=verifier_settings(engine.verifier, after_run=True),
            verifier_note=engine.verifier.estimate_note if isinstance(engine.verifier, Estimates) else "",
            config=engine.config,
            dag_metadata=json.loads(json.dumps(dag.metadata, default=str)),
            summary=summarize(
                results, len(dag), failed=len(failures), languages=summarize_languages(results, languages, reads)
            ),
            results=results,
            failed=failures,
            skipped=list(skipped),
            resumed_claims=len(done),
            usage=usage_report(engine.verifier),
            dag_fingerprint=dag.fingerprint(),
            full_trail=full_trail,
            nodes={
                n: NodeInfo.of(dag.node(n), full_trail, languages[n])
                for n in sorted(touched, key=lambda n: (-dag.stage(n), n))
            },
        )
        write_outputs(report, report_path, markdown_path, md_limit)
        if not failures:
            checkpoint.remove()
        return report
