"""Options shared by the `veritrail` commands, declared once.

Each model's fields are command-line options (type, flag, help and default in one place);
`@with_options(Model)` adds them to a command and hands the command one validated `flags`
value, so `verify`, `audit`, `audit-index`, `query` and `eval` cannot drift apart.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from pydantic import BaseModel, model_validator

from veritrail_graphrag.errors import UsageError
from veritrail_graphrag.models import TrailConfig
from veritrail_graphrag.report_markdown import MD_LIMIT
from veritrail_graphrag.verifiers.registry import (
    VERIFIERS,
    PreparedVerifier,
    VerifierSpec,
    prepare_verifier,
    registration,
)

_R = TypeVar("_R")


class VerifierFlags(BaseModel):
    """Which verifier, and the model settings of the LLM verifier (None: from the settings files)."""

    verifier: Annotated[str, typer.Option(help=f"One of: {', '.join(VERIFIERS)} (lexical needs no model).")] = "lexical"
    model: Annotated[str | None, typer.Option(help="LLM: model or Azure deployment (default: settings).")] = None
    base_url: Annotated[str | None, typer.Option(help="LLM: OpenAI-compatible base URL or Azure endpoint.")] = None
    provider: Annotated[str | None, typer.Option(help="LLM: openai (any compatible server) or azure.")] = None
    api_version: Annotated[str | None, typer.Option(help="LLM: Azure OpenAI API version.")] = None
    local_model: Annotated[
        str | None,
        typer.Option(
            metavar="PATH.gguf|smollm2",
            help="LLM: serve this GGUF with llama-cpp-python for the run (extra 'local'); smollm2 = the bundled tiny "
            "model.",
        ),
    ] = None
    samples: Annotated[
        int,
        typer.Option(min=1, help="LLM: samples per Evidence Selection and verdict call."),
    ] = 1
    min_agreement: Annotated[int, typer.Option(min=1, help="LLM: samples that must agree (confidence scores).")] = 1

    @model_validator(mode="after")
    def _consistent(self) -> VerifierFlags:
        """An unknown verifier, or model options with a verifier that calls no model, are refused
        rather than ignored, and when the flags are read: before a large index is loaded for nothing."""
        takes_model_options = registration(self.verifier).model_options
        model_only = {
            "--model": self.model,
            "--base-url": self.base_url,
            "--provider": self.provider,
            "--api-version": self.api_version,
            "--local-model": self.local_model,
            "--samples": self.samples if self.samples != 1 else None,
            "--min-agreement": self.min_agreement if self.min_agreement != 1 else None,
        }
        given = [flag for flag, value in model_only.items() if value is not None]
        if not takes_model_options and given:
            takers = " or ".join(f"--verifier {name}" for name, r in VERIFIERS.items() if r.model_options)
            raise UsageError.of_flags(given, f"to {takers} only")
        return self

    def verifier_spec(self, root: Path | None, concurrency: int | None = None) -> VerifierSpec:
        """The run's verifier spec (the flags were checked when read)."""
        return VerifierSpec(
            name=self.verifier, root=root, model=self.model, base_url=self.base_url, provider=self.provider,
            api_version=self.api_version, local_model=self.local_model, concurrency=concurrency, samples=self.samples,
            min_agreement=self.min_agreement,
        )  # fmt: skip


class AuditFlags(VerifierFlags):
    """Everything an audit command needs besides its input: verifier, traversal, resume, dry run, CI gate."""

    q: Annotated[
        int,
        typer.Option("--q", min=1, help="Consecutive Not Fully Supported verdicts that end a claim."),
    ] = 1
    concurrency: Annotated[
        int | None,
        typer.Option(min=1, help="Verifier calls in flight at once (default: LLM settings, else 16)."),
    ] = None
    resume: Annotated[
        bool,
        typer.Option(help="Reuse claims finished by an interrupted run with the same inputs."),
    ] = True
    dry_run: Annotated[bool, typer.Option(help="Estimate calls, tokens and cost from the DAG; call nothing.")] = False
    fail_on_unsupported: Annotated[
        bool,
        typer.Option(help="Exit with code 1 when any claim is not Fully Supported (for CI gates)."),
    ] = False
    full_trail: Annotated[
        bool,
        typer.Option(help="Keep the full text of every node read in report.json (for debugging a verifier)."),
    ] = False
    md_limit: Annotated[
        int,
        typer.Option(min=0, help="Claims listed in report.md (the flagged first); all are in report.json."),
    ] = MD_LIMIT

    def setup(self, root: Path | None, max_sentences_per_prompt: int = 40) -> tuple[PreparedVerifier, TrailConfig]:
        """The verifier, prepared once (its settings read), and the traversal settings;
        concurrency defaults to what the verifier's settings ask for, else 16."""
        prepared = prepare_verifier(self.verifier_spec(root, self.concurrency))
        concurrency = self.concurrency or prepared.concurrency or 16
        config = TrailConfig(q=self.q, max_sentences_per_prompt=max_sentences_per_prompt, concurrency=concurrency)
        return prepared, config


def with_options(flags: type[BaseModel]) -> Callable[[Callable[..., _R]], Callable[..., _R]]:
    """Add the fields of `flags` to a typer command as options (after its own), and call the
    command with them gathered in one `flags` argument."""
    hints = typing.get_type_hints(flags, include_extras=True)
    shared = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=field.default, annotation=hints[name])
        for name, field in flags.model_fields.items()
    ]

    def decorate(command: Callable[..., _R]) -> Callable[..., _R]:
        signature = inspect.signature(command, eval_str=True)
        own = [p for p in signature.parameters.values() if p.name != "flags"]

        @functools.wraps(command)
        def run(**kwargs: Any) -> _R:
            values = {p.name: kwargs.pop(p.name) for p in shared}
            return command(**kwargs, flags=flags(**values))

        merged = signature.replace(parameters=[*own, *shared])
        run.__signature__ = merged  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in merged.parameters.values()}
        return run

    return decorate
