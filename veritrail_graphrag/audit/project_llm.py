"""The LLM settings of a run on a project folder: the GraphRAG adapter reads the model the project
was built with out of its `settings.yaml`, and `llm.config` layers veritrail's own settings over
it. Kept here, above both, because the adapter knows nothing of `llm` and `llm` nothing of it;
verifiers get the project's layer in their spec and know neither the adapter nor this module."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from veritrail_graphrag.adapters.graphrag.settings_yaml import read_graphrag_settings
from veritrail_graphrag.endpoint_settings import EndpointSettings
from veritrail_graphrag.llm.config import LLMConfig, resolve_llm_config


def project_endpoint(root: Path | None, environ: Mapping[str, str] | None = None) -> EndpointSettings | None:
    """The chat endpoint ROOT/settings.yaml names, if there is one."""
    if root is None:
        return None
    return read_graphrag_settings(Path(root), os.environ if environ is None else environ)


def project_llm_config(
    root: Path | None,
    overrides: Mapping[str, Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> LLMConfig:
    """`resolve_llm_config` with ROOT/settings.yaml (if any) as the project's layer."""
    environ = os.environ if environ is None else environ
    project = project_endpoint(root, environ)
    return resolve_llm_config(root, overrides, environ=environ, defaults=defaults, project=project)
