"""Verifiers by name, for the CLI. Heavy backends are imported only when asked for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from veritrail_graphrag.verifiers.base import Verifier

VERIFIERS = ("lexical", "llm")


class VerifierOptions(BaseModel):
    """What the CLI knows about the verifier to build; LLM fields left None come from settings."""

    root: Path | None = Field(default=None, description="GraphRAG project whose settings.yaml names the model")
    model: str | None = None
    base_url: str | None = None
    provider: str | None = None
    api_version: str | None = None
    concurrency: int | None = None
    local_model: str | None = None
    samples: int = Field(default=1, ge=1)
    min_agreement: int = Field(default=1, ge=1)

    def llm_overrides(self) -> dict[str, object]:
        fields = ("model", "base_url", "provider", "api_version", "concurrency", "local_model")
        return {name: getattr(self, name) for name in fields}


def verifier_settings(verifier: Verifier) -> dict[str, Any]:
    """What decides a verifier's answers (for resume checkpoints and reports); never secrets,
    never throughput settings such as concurrency."""
    from veritrail_graphrag.verifiers.lexical import LexicalVerifier
    from veritrail_graphrag.verifiers.llm.verifier import LLMVerifier

    if isinstance(verifier, LexicalVerifier):
        return {"lexical": verifier.config.model_dump(mode="json")}
    if isinstance(verifier, LLMVerifier):
        fields = ("provider", "base_url", "model", "api_version", "azure_deployment", "temperature",
                  "sample_temperature", "seed", "max_output_tokens", "structured_output", "local_model")  # fmt: skip
        settings = verifier.config.model_dump(mode="json", include=set(fields))
        return {
            "llm": {
                **settings,
                "input_limit": verifier.config.input_limit,
                "samples": verifier.samples,
                "min_agreement": verifier.min_agreement,
            }
        }
    return {"class": f"{type(verifier).__module__}.{type(verifier).__qualname__}"}


def settings_after_run(verifier: Verifier) -> dict[str, Any]:
    """`verifier_settings` plus what the run found out, for the report: the answer format an LLM
    endpoint accepted (kept out of the resume key, which must be known before the first call)."""
    settings = verifier_settings(verifier)
    from veritrail_graphrag.verifiers.llm.verifier import LLMVerifier

    if isinstance(verifier, LLMVerifier):
        settings["llm"]["answer_format"] = verifier.client.rung.value
    return settings


def make_verifier(name: str, options: VerifierOptions | None = None) -> Verifier:
    options = options or VerifierOptions()
    if name == "lexical":
        from veritrail_graphrag.verifiers.lexical import LexicalVerifier

        return LexicalVerifier()
    if name == "llm":
        from veritrail_graphrag.project_llm import project_llm_config
        from veritrail_graphrag.verifiers.llm.verifier import LLMVerifier

        config = project_llm_config(options.root, options.llm_overrides())
        return LLMVerifier.from_config(config, samples=options.samples, min_agreement=options.min_agreement)
    raise ValueError(f"unknown verifier {name!r}; choose one of: {', '.join(VERIFIERS)}")
