"""A chat endpoint's settings as another tool's project states them, handed to the LLM config.

The GraphRAG adapter reads `settings.yaml`; `llm.config` layers these values under veritrail's own
settings. This module is the plain value between them, so that neither knows the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict


class Unresolved(BaseModel):
    """A `${VAR}` whose variable is set nowhere; an error only if nothing overrides the setting."""

    model_config = ConfigDict(frozen=True)

    variable: str
    file: Path


class EndpointSettings(BaseModel):
    """`values` use `LLMConfig`'s field names and may hold `Unresolved` references; `source` names
    the file and entry they came from, for error messages; `unsupported_provider` is a provider
    with no OpenAI-compatible endpoint we know of (an error unless a base URL is set elsewhere)."""

    source: str
    values: dict[str, Any]
    unsupported_provider: str | None = None
