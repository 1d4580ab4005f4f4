"""The `veritrail_audit` workflow: an index audit as the last step of `graphrag index` and
`graphrag update`, so nobody has to remember to run `veritrail audit-index` after a build.

GraphRAG 3.3 finds workflows in `PipelineFactory` (no plugin discovery): `register_audit_workflow`
registers ours and appends it to each of GraphRAG's pipelines (`standard`, `fast` and their
`-update` forms), in the process that then runs GraphRAG. It only reads the finished tables, from
the output folder (`graphrag update` has merged them there by its last step), and writes under the
project's `veritrail/`, never under `output/`, where `graphrag update` would take our parquet
tables for index tables.

In an update run only the reports the update added (a report's `id` is a hash of its text, so an
unchanged report keeps it) are audited, into `<selection>-update-<timestamp>/`, and compared with
the audit before it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veritrail_graphrag.adapters.graphrag.layout import index_audit_folder, locate, veritrail_dir
from veritrail_graphrag.audit.api import run_target
from veritrail_graphrag.audit.targets import AuditTarget, graphrag_index_target
from veritrail_graphrag.errors import UsageError
from veritrail_graphrag.pipeline.settings import PipelineSettings, load_settings
from veritrail_graphrag.report.model import AuditReport

if TYPE_CHECKING:
    from graphrag.config.models.graph_rag_config import GraphRagConfig
    from graphrag.index.typing.context import PipelineRunContext
    from graphrag.index.typing.workflow import WorkflowFunctionOutput

    from veritrail_graphrag.compare.compute import Comparison

WORKFLOW = "veritrail_audit"
logger = logging.getLogger(__name__)


@dataclass
class PipelineAudit:
    """What one run of the workflow did, for whoever runs GraphRAG to print and gate on."""

    target: AuditTarget
    report: AuditReport | None
    """None when an update added no report among the selected ones: nothing to audit."""
    seconds: float = 0.0
    compare_folder: Path | None = None
    comparison: Comparison | None = None
    """After an update: this audit beside the one before it, as written into `compare_folder`."""


Listener = Callable[[PipelineAudit], None]


def _tables_folder(config: GraphRagConfig) -> Path:
    storage, tables = config.output_storage, config.table_provider
    if str(storage.type) != "file" or str(tables.type) != "parquet":
        raise UsageError(
            f"the {WORKFLOW} workflow reads the index from parquet files; this project keeps it in "
            f"{storage.type} storage as {tables.type} tables (output_storage.type: file and "
            "table_provider.type: parquet are needed)"
        )
    return Path(storage.base_dir or "output").resolve()


async def _previous_report_ids(context: PipelineRunContext) -> set[str] | None:
    """The ids of the reports before an update (None in an index run)."""
    if context.previous_table_provider is None:
        return None
    previous = await context.previous_table_provider.read_dataframe("community_reports")
    return set(previous["id"].astype(str)) if "id" in previous.columns else set()


def _progress(context: PipelineRunContext) -> Callable[[int, int], None]:
    """Claims done, reported through GraphRAG's own progress callbacks (its console's bar)."""
    from graphrag.logger.progress import progress_ticker

    ticks: list[Any] = []
    done_before = [0]

    def advanced(done: int, total: int) -> None:
        if not ticks:
            ticks.append(progress_ticker(context.callbacks.progress, total, description="veritrail audit: "))
        ticks[0](done - done_before[0])
        done_before[0] = done

    return advanced


def _previous_audit(base: Path, folder: str, before: str) -> Path | None:
    """The latest audit of the same selection before this one: the index run's, or an update's."""
    found = [p for p in [base / folder, *sorted(base.glob(f"{folder}-update-*"))] if (p / "report.json").is_file()]
    found = [p for p in found if p.name < before]
    return found[-1] if found else None


def _only_new(target: AuditTarget, previous_ids: set[str], folder: Path) -> AuditTarget:
    """The selected reports the update added, audited into `folder`; saying how many were not."""
    new = [t for t in target.terminals if str(target.dag.node(t).metadata.get("id")) not in previous_ids]
    note = (
        f"update: {len(new)} new community report(s) audited; {len(target.terminals) - len(new)} unchanged "
        "since the previous index (same id) not audited again"
    )
    return replace(target, terminals=new, out_dir=folder, notes=[note])


async def run_pipeline_audit(
    settings: PipelineSettings | None, config: GraphRagConfig, context: PipelineRunContext
) -> PipelineAudit:
    """The workflow's work, apart from GraphRAG's registration: audit, then compare on update."""
    tables = _tables_folder(config)
    root = locate(tables).project_root or tables
    settings = settings or load_settings(root)
    reports, communities = settings.selection()
    name = index_audit_folder(reports, communities)
    base = veritrail_dir(tables)
    target = graphrag_index_target(tables, reports=reports, communities=communities)
    previous_ids = await _previous_report_ids(context)
    if previous_ids is not None:
        stamp = str(context.state.get("update_timestamp", "")) or "unknown"
        target = _only_new(target, previous_ids, base / f"{name}-update-{stamp}")
        if not target.terminals:
            return PipelineAudit(target, None)
    started = time.monotonic()
    report = await run_target(target, settings.audit_options(), on_progress=_progress(context))
    result = PipelineAudit(target, report, time.monotonic() - started)
    before = _previous_audit(base, name, target.out_dir.name) if previous_ids is not None else None
    if before is not None:
        from veritrail_graphrag.compare.audits import load_audit  # scipy and matplotlib: only when comparing
        from veritrail_graphrag.compare.outputs import write_comparison

        result.compare_folder = target.out_dir / "compare"
        audits = [load_audit(before, before.name), load_audit(target.out_dir, target.out_dir.name)]
        result.comparison, _ = write_comparison(audits, result.compare_folder)
    return result


def audit_workflow(
    settings: PipelineSettings | None = None,
    on_done: Listener | None = None,
    on_error: Callable[[Exception], None] | None = None,
) -> Callable[[GraphRagConfig, PipelineRunContext], Any]:
    """The workflow function GraphRAG calls; `settings` None reads the project's veritrail.toml.
    GraphRAG logs a workflow's exception and ends the run with `Pipeline error`; `on_error` hears
    it first, so a caller can say what went wrong in one line."""

    async def veritrail_audit(config: GraphRagConfig, context: PipelineRunContext) -> WorkflowFunctionOutput:
        from graphrag.index.typing.workflow import WorkflowFunctionOutput

        try:
            audit = await run_pipeline_audit(settings, config, context)
        except Exception as exc:
            if on_error is not None:
                on_error(exc)
            raise
        for note in audit.target.notes:
            logger.info("%s", note)
        if on_done is not None:
            on_done(audit)
        summary = audit.report.summary.model_dump(mode="json") if audit.report is not None else None
        return WorkflowFunctionOutput(result={"folder": str(audit.target.out_dir), "summary": summary})

    return veritrail_audit


def register_audit_workflow(
    settings: PipelineSettings | None = None,
    on_done: Listener | None = None,
    on_error: Callable[[Exception], None] | None = None,
) -> None:
    """Register `veritrail_audit` with GraphRAG and run it last in each of its pipelines; then
    `graphrag.api.build_index` (or GraphRAG's CLI in this process) audits what it builds. A
    project that lists `workflows:` in settings.yaml adds `veritrail_audit` there itself."""
    from graphrag.index.workflows.factory import PipelineFactory

    PipelineFactory.register(WORKFLOW, audit_workflow(settings, on_done, on_error))
    for method, workflows in list(PipelineFactory.pipelines.items()):
        if WORKFLOW not in workflows:
            PipelineFactory.register_pipeline(method, [*workflows, WORKFLOW])
