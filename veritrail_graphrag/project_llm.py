"""The LLM config of a run on a project folder: the GraphRAG adapter reads the model the project
was built with out of its `settings.yaml`, and `llm.config` layers veritrail's own settings over
it. Kept here, above both, because the adapter knows nothing of `llm` and `llm` nothing of it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from veritrail_graphrag.adapters.graphrag.settings_yaml import read_graphrag_settings
from veritrail_graphrag.llm.config import LLMConfig, resolve_llm_config


def project_llm_config(
    root: Path | None,
    overrides: Mapping[str, Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> LLMConfig:
    """`resolve_llm_config` with ROOT/settings.yaml (if any) as the project's layer."""
    environ = os.environ if environ is None else environ
    project = read_graphrag_settings(Path(root), environ) if root is not None else None
    return resolve_llm_config(root, overrides, environ=environ, defaults=defaults, project=project)
