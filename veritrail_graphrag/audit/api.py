"""The Python API: audit a pipeline run, a GraphRAG index or a DAG from code, as the CLI does.

`audit`, `audit_index` and `verify` take the CLI's options as keyword arguments (`AuditOptions`:
`verifier="llm"`, `q=2`, `model=...`), write the same files in the same places and return the
`AuditReport`. They run their `a`-prefixed coroutine forms (`aaudit`, ...) to the end; call those
from code that already runs an event loop (a notebook, a GraphRAG workflow). `run_target` is the
one path every audit takes, the CLI's too.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from veritrail_graphrag import event_loop
from veritrail_graphrag.adapters.graphrag.layout import DEFAULT_REPORTS
from veritrail_graphrag.audit.claims import ExtractedClaims, extract_claims, given_claims, load_claims
from veritrail_graphrag.audit.options import AuditOptions, SourceOptions
from veritrail_graphrag.audit.output_lock import OutputLock
from veritrail_graphrag.audit.run import run_audit
from veritrail_graphrag.audit.targets import AuditTarget, audit_target, dag_target, elsewhere, graphrag_index_target
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.traversal import VeriTrail
from veritrail_graphrag.errors import UsageError
from veritrail_graphrag.models import Claim
from veritrail_graphrag.report.model import AuditReport
from veritrail_graphrag.verifiers.capabilities import close

_P = ParamSpec("_P")
_R = TypeVar("_R")

Claims = str | os.PathLike[str] | Sequence[str | Claim]
"""A claims file (JSON list of {id, text}, or JSON lines), or the claims themselves."""
Progress = Callable[[int, int], None]
"""Called with (claims done, claims in all): once when the claims are known, then per claim."""


def _claims(claims: Claims | None) -> list[Claim] | None:
    if claims is None:
        return None
    if isinstance(claims, str | os.PathLike):
        return load_claims(Path(claims))
    texts = [c for c in claims if isinstance(c, str)]
    if texts and len(texts) < len(claims):
        raise UsageError("give claims as texts or as Claim objects, not both")
    return given_claims(texts) if texts else list(claims)  # type: ignore[arg-type]


async def run_target(
    target: AuditTarget,
    options: AuditOptions,
    *,
    claims: list[Claim] | None = None,
    report_path: Path | None = None,
    markdown_path: Path | None = None,
    on_progress: Progress | None = None,
    max_sentences_per_prompt: int = 40,
) -> AuditReport:
    """Audit `target`: its claims (the verifier's extraction, else one per sentence, unless
    `claims` are given) verified and written to `report_path` (default: report.json in the
    target's folder, with report.md and the other files beside it).

    The report's lock is taken before claims are extracted, so a second audit into the same report
    stops before it pays for anything."""
    if report_path is None:
        report_path = target.out_dir / "report.json"
        markdown_path = target.out_dir / "report.md"
    prepared, config = options.setup(target.project_root, max_sentences_per_prompt, target.cache_dir)
    with OutputLock(report_path) as lock:
        verifier = prepared.build()
        try:
            terminal: str | dict[str, str]
            if claims is not None:
                if len(target.terminals) != 1:
                    raise UsageError("given claims need a single terminal")
                extracted, terminal = ExtractedClaims(claims, {}), target.terminals[0]
            else:
                extracted = await extract_claims(verifier, target.dag, target.terminals, target.question)
                claims, terminal = extracted.claims, extracted.terminal_of
            if not claims and not extracted.failures:
                raise UsageError(f"no claims: {', '.join(target.terminals)} has no sentence with verifiable content")
            done = 0
            if on_progress is not None:
                on_progress(done, len(claims))

            def finished(_: object) -> None:
                nonlocal done
                done += 1
                if on_progress is not None:
                    on_progress(done, len(claims))

            return await run_audit(
                VeriTrail(verifier, config),
                target.dag,
                claims,
                terminal,
                source=target.source,
                verifier_name=options.verifier,
                report_path=report_path,
                markdown_path=markdown_path,
                resume=options.resume,
                on_result=finished,
                citations=target.citations,
                extraction_failures=extracted.failures,
                skipped=extracted.skipped,
                lock=lock,
                full_trail=options.full_trail,
                md_limit=options.md_limit,
                workers=options.processes(prepared),
                relocate=target.relocated,
            )
        finally:
            await close(verifier)


async def aaudit(
    path: str | os.PathLike[str],
    *,
    claims: Claims | None = None,
    out: str | os.PathLike[str] | None = None,
    on_progress: Progress | None = None,
    **options: Any,
) -> AuditReport:
    """Audit a pipeline run's final output, as `veritrail audit PATH` does: a GraphRAG project
    (its latest saved query run, `query_run=`, or an `answer=` file), a summary log, a BooookScore
    file (`book=`) or a DAG file. Writes report.json and the other files next to the run's
    artifacts (or into the folder `out`) and returns the report. `options`: how to read PATH (`SourceOptions`: `query_run`,
    `answer`, `map_answers`, `question`, `method`, `book`, `chunks`, `max_context_len`,
    `chunk_size`) and the audit's (`AuditOptions`: `verifier`, `q`, `model`, ...)."""
    source = SourceOptions.of({k: v for k, v in options.items() if k in SourceOptions.model_fields})
    checked = AuditOptions.of({k: v for k, v in options.items() if k not in SourceOptions.model_fields})
    target = elsewhere(audit_target(Path(path), source), out)
    return await run_target(target, checked, claims=_claims(claims), on_progress=on_progress)


async def aaudit_index(
    root: str | os.PathLike[str],
    *,
    reports: int | None = DEFAULT_REPORTS,
    communities: Sequence[int] | None = None,
    out: str | os.PathLike[str] | None = None,
    on_progress: Progress | None = None,
    **options: Any,
) -> AuditReport:
    """Audit a GraphRAG index itself, as `veritrail audit-index` does: the `reports` highest-ranked
    community reports (None: all of them), or the given `communities`, each traced through the
    descriptions to the text units. Writes to the project's `veritrail/index-audit/` for the default
    selection, to a folder named after any other (`index-audit-all`, `index-audit-top-20`,
    `index-audit-communities-45-48`), or to `out`."""
    checked = AuditOptions.of(options)
    chosen = list(dict.fromkeys(communities)) if communities else None
    target = elsewhere(graphrag_index_target(Path(root), reports=reports, communities=chosen), out)
    return await run_target(target, checked, on_progress=on_progress)




async def averify(
    dag: DAG | str | os.PathLike[str],
    claims: Claims | None = None,
    *,
    terminal: str | None = None,
    out: str | os.PathLike[str] | None = None,
    max_sentences_per_prompt: int = 40,
    on_progress: Progress | None = None,
    **options: Any,
) -> AuditReport:
    """Verify claims against a DAG (an object, or a file in veritrail's JSON format), as
    `veritrail verify` does: the terminal's claims unless `claims` are given; report.json written
    to `out` (default for a file: `<DAG>.report.json` beside it)."""
    checked = AuditOptions.of(options)
    target, default_out = dag_target(dag, terminal)
    report_path = Path(out) if out is not None else default_out
    if report_path is None:
        raise UsageError("verify(DAG) needs out=PATH (where report.json goes) when the DAG is not read from a file")
    return await run_target(
        target,
        checked,
        claims=_claims(claims),
        report_path=report_path,
        on_progress=on_progress,
        max_sentences_per_prompt=max_sentences_per_prompt,
    )


def _blocking(coroutine: Callable[_P, Awaitable[_R]]) -> Callable[_P, _R]:
    """The function that runs `coroutine` to its end: same parameters, same documentation."""

    @functools.wraps(coroutine)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        return event_loop.run(coroutine(*args, **kwargs))

    run.__name__ = run.__qualname__ = coroutine.__name__.removeprefix("a")
    return run


audit = _blocking(aaudit)
"""`aaudit` run to its end, for code without an event loop: `veritrail_graphrag.audit("ragtest")`."""
audit_index = _blocking(aaudit_index)
"""`aaudit_index` run to its end, for code without an event loop."""
verify = _blocking(averify)
"""`averify` run to its end, for code without an event loop."""
