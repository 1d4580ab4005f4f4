"""Running an audit: claims in, report out, with a checkpoint so an interrupted audit resumes.

Each finished claim is appended (one JSON line, flushed and fsynced) to a checkpoint beside the
report. A re-run with the same DAG, terminal, verifier and settings skips those claims, so a
crash, Ctrl-C or kill loses at most the claims that were in flight; with the LLM cache, even those
cost nothing to redo. The report itself is written atomically and the checkpoint removed after.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from veritrail_graphrag import __version__
from veritrail_graphrag.citation_accuracy import attach_citations
from veritrail_graphrag.citations import SentenceCitations
from veritrail_graphrag.claims import sentence_claims
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine import VeriTrail
from veritrail_graphrag.errors import VerifierError
from veritrail_graphrag.files import atomic_write_text
from veritrail_graphrag.models import Claim, ClaimExtraction
from veritrail_graphrag.report import AuditReport, ClaimFailure, render_markdown, summarize
from veritrail_graphrag.trail import ClaimResult
from veritrail_graphrag.verifiers.registry import settings_after_run, verifier_settings


class CheckpointHeader(BaseModel):
    """First line of a checkpoint: what the finished claims were computed for."""

    checkpoint: str = "veritrail-audit"
    key: str


def audit_key(
    dag: DAG, terminal: str | Mapping[str, str], verifier: str, settings: Mapping[str, Any], engine: VeriTrail
) -> str:
    """Fingerprint of everything that changes a claim's result except the claim itself: the DAG,
    the terminal(s), the verifier and its settings, the traversal settings (not concurrency)."""
    digest = hashlib.sha256()
    where = terminal if isinstance(terminal, str) else json.dumps(sorted(terminal.items()))
    traversal = engine.config.model_dump_json(exclude={"concurrency"})
    for part in (where, verifier, json.dumps(settings, sort_keys=True), traversal):
        digest.update(part.encode())
        digest.update(b"\0")
    for node in dag:
        digest.update(f"{node.id}\0{node.stage}\0{node.text}\0".encode())
    for source, target in dag.edges:
        digest.update(f"{source}\0{target}\0".encode())
    return digest.hexdigest()


class Checkpoint:
    """Append-only JSONL of finished claims; torn or foreign lines are ignored, never trusted."""

    def __init__(self, path: Path, key: str) -> None:
        self.path = path
        self.key = key

    def load(self) -> dict[str, ClaimResult]:
        if not self.path.exists():
            return {}
        lines = self.path.read_text(encoding="utf-8", errors="replace").splitlines()
        try:
            header = CheckpointHeader.model_validate_json(lines[0]) if lines else None
        except ValidationError:
            header = None
        if header is None or header.key != self.key:
            return {}
        done: dict[str, ClaimResult] = {}
        for line in lines[1:]:
            try:
                result = ClaimResult.model_validate_json(line)
            except ValidationError:
                continue
            done[result.claim.id] = result
        return done

    def start(self, keep: bool) -> None:
        """Begin a checkpoint (or continue a matching one when `keep`)."""
        if keep and self.path.exists():
            self._drop_torn_tail()
            return
        atomic_write_text(self.path, CheckpointHeader(key=self.key).model_dump_json() + "\n")

    def _drop_torn_tail(self) -> None:
        """A kill mid-write leaves a line without its newline; appending after it would glue the
        next result onto the fragment, so cut back to the last complete line."""
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with self.path.open("r+b") as handle:
                handle.truncate(data.rfind(b"\n") + 1)

    def append(self, result: ClaimResult) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(result.model_dump_json() + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


async def extract_claims(
    verifier: object, dag: DAG, terminals: list[str], question: str | None
) -> tuple[list[Claim], dict[str, str], list[ClaimFailure]]:
    """Claims of each terminal: the verifier's own extractor when it has one (the LLM's
    Claimify-style extraction), else one claim per sentence. Ids are prefixed by the terminal
    when there are several, so they stay unique. Sentences the extractor could not read come back
    as failures (named `sentence-N`), so the audit goes on and a re-run retries them."""
    extractor = getattr(verifier, "extract_claims", None)
    claims: list[Claim] = []
    where: dict[str, str] = {}
    failures: list[ClaimFailure] = []
    for terminal in terminals:
        prefix = f"{terminal}/" if len(terminals) > 1 else ""
        if extractor is None:
            found = sentence_claims(dag, terminal)
        else:
            extraction: ClaimExtraction = await extractor(dag.node(terminal).text, question)
            found = [c.model_copy(update={"id": prefix + c.id}) for c in extraction.claims]
            failures += [
                ClaimFailure(
                    claim=Claim(id=f"{prefix}sentence-{f.sentence + 1}", text=f.text, sentence=f.sentence),
                    terminal=terminal,
                    error=f"claim extraction failed for this sentence: {f.error}",
                )
                for f in extraction.failed
            ]
        for claim in found:
            claims.append(claim)
            where[claim.id] = terminal
    return claims, where, failures


def checkpoint_path(report_path: Path) -> Path:
    return report_path.with_name(f".{report_path.name}.partial.jsonl")


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
    usage: Callable[[], dict[str, Any]] | None = None,
    citations: Mapping[str, Sequence[SentenceCitations]] | None = None,
    extraction_failures: Sequence[ClaimFailure] = (),
) -> AuditReport:
    """Verify the claims not already in the checkpoint, then write the report atomically.

    A claim the verifier cannot judge is listed in `report.failed` with its error (never given a
    guessed verdict); the checkpoint is then kept, so re-running retries only those claims.
    `citations` (per terminal, per sentence: what the output cites) adds citation accuracy.
    """
    settings = verifier_settings(engine.verifier)
    checkpoint = Checkpoint(checkpoint_path(report_path), audit_key(dag, terminal, verifier_name, settings, engine))
    texts = {c.id: c.text for c in claims}
    done = checkpoint.load() if resume else {}
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
    verified = await engine.averify_many(dag, todo, terminal, on_result=finished, on_error=failed)
    fresh = {r.claim.id: r for r in verified}
    results = [done.get(c.id) or fresh[c.id] for c in claims if c.id in done or c.id in fresh]
    if citations:
        results = attach_citations(results, citations)
    failures.sort(key=lambda f: [c.id for c in claims].index(f.claim.id))
    failures = [*extraction_failures, *failures]

    report = AuditReport(
        tool_version=__version__,
        source=source,
        terminals=[terminal] if isinstance(terminal, str) else list(dict.fromkeys(terminal[c.id] for c in claims)),
        verifier=verifier_name,
        verifier_settings=settings_after_run(engine.verifier),
        config=engine.config,
        dag_metadata=json.loads(json.dumps(dag.metadata, default=str)),
        summary=summarize(results, len(dag), failed=len(failures)),
        results=results,
        failed=failures,
        resumed_claims=len(done),
        usage=usage() if usage is not None else None,
    )
    report.save(report_path)
    if markdown_path is not None:
        atomic_write_text(markdown_path, render_markdown(report))
    if not failures:
        checkpoint.remove()
    return report
