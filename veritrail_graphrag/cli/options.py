"""The command line's shared options, made from the option models of the API.

`AuditOptions` and `VerifierOptions` (in `audit/options.py`) declare each option once: type,
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
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from annotated_types import Ge, Le
from pydantic import BaseModel, Field, model_validator
from pydantic.fields import FieldInfo

from veritrail_graphrag.audit.options import AuditOptions, SourceOptions, VerifierOptions
from veritrail_graphrag.errors import UsageError

_R = TypeVar("_R")

VerifierFlags = VerifierOptions


class AuditFlags(AuditOptions):
    """The audit options, plus what only a command does with a finished (or planned) audit."""

    dry_run: bool = Field(False, description="Estimate calls, tokens and cost from the DAG; call nothing.")
    fail_on_unsupported: bool = Field(
        False, description="Exit with code 1 when any claim is not Fully Supported (for CI gates)."
    )
    junit_xml: Path | None = Field(
        None,
        description="Also write the verdicts as JUnit XML, one test case per claim, for CI test reports.",
        json_schema_extra={"metavar": "PATH"},
    )
    max_unsupported_rate: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Exit with code 1 when the share of claims Not Fully Supported is above R (0-1).",
        json_schema_extra={"metavar": "R"},
    )
    max_stage_rate: list[str] | None = Field(
        None,
        description="Exit with code 1 when the share of claims with an error at STAGE is above R (repeatable).",
        json_schema_extra={"metavar": "STAGE=R"},
    )

    @model_validator(mode="after")
    def _readable_gates(self) -> AuditFlags:
        """A mistyped threshold is refused when the flags are read, not after an audit that already
        cost its calls; a gate with --dry-run is refused, as a CI step would wait for a file or an
        exit code that a dry run never gives."""
        self.stage_rates()
        gates = {
            "--junit-xml": self.junit_xml,
            "--max-unsupported-rate": self.max_unsupported_rate,
            "--max-stage-rate": self.max_stage_rate or None,
        }
        given = [flag for flag, value in gates.items() if value is not None]
        if self.dry_run and given:
            raise UsageError.of_flags(given, "to an audit, not to --dry-run")
        return self

    def stage_rates(self) -> dict[int, float]:
        """`--max-stage-rate` as {stage: R}; a `UsageError` quotes the value that is not STAGE=R."""
        rates: dict[int, float] = {}
        for given in self.max_stage_rate or []:
            stage, rate = _stage_rate(given)
            if stage in rates:
                raise UsageError(f"--max-stage-rate names stage {stage} twice")
            rates[stage] = rate
        return rates

    def options(self) -> AuditOptions:
        return AuditOptions.model_validate(self.model_dump(include=set(AuditOptions.model_fields)))


def _stage_rate(given: str) -> tuple[int, float]:
    """`4=0.1` as (4, 0.1). A stage is its number, as reports and `compare` name it: a DAG's stages
    have no names (a node's kind may sit at several stages)."""
    refused = UsageError(f"--max-stage-rate {given!r}: write STAGE=R, a stage number and a rate from 0 to 1")
    stage, _, rate = given.partition("=")
    try:
        number, limit = int(stage), float(rate)
    except ValueError:
        raise refused from None
    if number < 0 or not 0 <= limit <= 1:
        raise refused
    return number, limit


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
