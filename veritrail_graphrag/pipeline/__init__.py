"""The audit inside GraphRAG's own pipeline: the `veritrail_audit` workflow for `graphrag index`
and `graphrag update`, and its settings (`veritrail.toml` beside settings.yaml)."""

from veritrail_graphrag.pipeline.settings import PipelineSettings, load_settings
from veritrail_graphrag.pipeline.workflow import WORKFLOW, PipelineAudit, register_audit_workflow

__all__ = ["WORKFLOW", "PipelineAudit", "PipelineSettings", "load_settings", "register_audit_workflow"]
