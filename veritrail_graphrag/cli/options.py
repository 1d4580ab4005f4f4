"""The command line's shared options, made from the option models of the API.

`AuditOptions`, `VerifierOptions` and `TraversalOptions` (in `audit/options.py`) declare each option once: type,
default, help (the field's description) and bounds. `@with_options(Model)` turns a model's fields
into typer options after the command's own and hands the command one validated `flags` value, so
`verify`, `audit`, `audit-index`, `query` and `eval` take the same options as `audit()` and cannot
drift apart. `AuditFlags` adds the options only a command has: the dry run, and the CI gates (the
JUnit file, the thresholds) that decide what a finished audit is written as and exits with.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer
from annotated_types import Ge, Le
from pydantic import BaseModel, Field, model_validator
from pydantic.fields import FieldInfo

from veritrail_graphrag.audit.options import AuditOptions, GateOptions, SourceOptions, TraversalOptions, VerifierOptions
from veritrail_graphrag.errors import UsageError

_R = TypeVar("_R")


class EvalFlags(TraversalOptions, VerifierOptions):
    """`veritrail eval`: the verifier, and how far the engine goes for each claim, as the audits take them."""


class AuditFlags(AuditOptions, GateOptions):
    """The audit options and the CI gates, plus the dry run that only a command makes."""

    dry_run: bool = Field(False, description="Estimate calls, tokens and cost from the DAG; call nothing.")

    @model_validator(mode="after")
    def _gates_need_an_audit(self) -> AuditFlags:
        """A gate with --dry-run is refused: a CI step would wait for a file or an exit code that a
        dry run never gives."""
        gates = {
            "--fail-on-unsupported": True if self.fail_on_unsupported else None,
            "--junit-xml": self.junit_xml,
            "--max-unsupported-rate": self.max_unsupported_rate,
            "--max-stage-rate": self.max_stage_rate or None,
        }
        given = [flag for flag, value in gates.items() if value is not None]
        if self.dry_run and given:
            raise UsageError.of_flags(given, "to an audit, not to --dry-run")
        return self

    def options(self) -> AuditOptions:
        return AuditOptions.model_validate(self.model_dump(include=set(AuditOptions.model_fields)))

    def given(self) -> list[str]:
        """The flags given a value other than their default, as typed (`--q`, `--no-resume`)."""
        changed = self.model_dump(exclude_defaults=True)
        return ["--" + ("no-" if value is False else "") + name.replace("_", "-") for name, value in changed.items()]


class AuditCommandFlags(AuditFlags, SourceOptions):
    """`veritrail audit`: how to read PATH, then the audit flags."""

    def source(self) -> SourceOptions:
        return SourceOptions.model_validate(self.model_dump(include=set(SourceOptions.model_fields)))


def _option(name: str, field: FieldInfo) -> typer.models.OptionInfo:
    """A field as a typer option; a switch that is off by default is one flag (`--dry-run`), not a
    pair (`--dry-run/--no-dry-run`)."""
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    minimum = next((m.ge for m in field.metadata if isinstance(m, Ge)), None)
    maximum = next((m.le for m in field.metadata if isinstance(m, Le)), None)
    metavar = extra.get("metavar")
    names = ["--" + name.replace("_", "-")] if field.annotation is bool and field.default is False else []
    return typer.Option(
        *names, help=field.description, min=minimum, max=maximum, metavar=metavar if isinstance(metavar, str) else None
    )


def with_options(flags: type[BaseModel]) -> Callable[[Callable[..., _R]], Callable[..., _R]]:
    """Add the fields of `flags` to a typer command as options (after its own), and call the
    command with them gathered in one `flags` argument."""
    shared = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=field.default,
            annotation=Annotated[field.annotation, _option(name, field)],  # type: ignore[name-defined]
        )
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
