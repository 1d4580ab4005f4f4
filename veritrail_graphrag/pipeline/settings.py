"""What the `veritrail_audit` workflow does, read from `veritrail.toml` beside settings.yaml and
from `--veritrail-*` flags.

GraphRAG drops the keys of settings.yaml it does not know, so a `veritrail:` block there would be
lost without a word; our settings live in their own file, under `[audit]` (the model's are under
`[llm]`, as for every command), with the names of the audit options (`verifier = "llm"`, `q = 2`)
plus which reports to audit. A flag overrides the file: `--veritrail-verifier lexical` is
`verifier = "lexical"`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator

from veritrail_graphrag.adapters.graphrag.layout import DEFAULT_REPORTS
from veritrail_graphrag.audit.options import AuditOptions, GateOptions
from veritrail_graphrag.errors import UsageError
from veritrail_graphrag.files import read_text

SETTINGS_FILE = "veritrail.toml"
FLAG_PREFIX = "--veritrail-"


class PipelineSettings(AuditOptions, GateOptions):
    """The audit options and the CI gates, plus which community reports the workflow audits."""

    reports: int | Literal["all"] = Field(
        DEFAULT_REPORTS, description='The N highest-ranked community reports, or "all".'
    )
    communities: list[int] | None = Field(None, description="Only these communities' reports.")

    @field_validator("reports")
    @classmethod
    def _positive(cls, value: int | str) -> int | str:
        if isinstance(value, int) and value < 1:
            raise ValueError('must be at least 1, or "all"')
        return value

    def selection(self) -> tuple[int | None, list[int] | None]:
        """(reports, communities) as `audit_index` takes them: None reports = all of them."""
        if self.communities:
            return None, list(dict.fromkeys(self.communities))
        return (None if self.reports == "all" else self.reports), None

    def audit_options(self) -> AuditOptions:
        return AuditOptions.model_validate(self.model_dump(include=set(AuditOptions.model_fields)))


def _file_settings(root: Path) -> dict[str, Any]:
    path = root / SETTINGS_FILE
    if not path.is_file():
        return {}
    try:
        section = tomllib.loads(read_text(path, UsageError)).get("audit", {})
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"not valid TOML ({exc})", file=path) from None
    if not isinstance(section, dict):
        raise UsageError("[audit] must be a table", file=path)
    return section


def split_flags(args: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
    """GraphRAG's arguments, untouched, and ours (`--veritrail-NAME VALUE`, `--veritrail-NAME=VALUE`,
    or a bare `--veritrail-NAME` for a switch) as settings. Values stay strings: the settings model
    converts and checks them, as it does the file's."""
    switches = {name for name, field in PipelineSettings.model_fields.items() if field.annotation is bool}
    theirs: list[str] = []
    ours: dict[str, Any] = {}
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if not arg.startswith(FLAG_PREFIX):
            theirs.append(arg)
            continue
        flag, has_value, value = arg.partition("=")
        name = flag.removeprefix(FLAG_PREFIX).replace("-", "_")
        if not has_value and name in switches:
            value = "true"
        elif not has_value:
            if not rest or rest[0].startswith("--"):
                raise UsageError(f"{flag} needs a value")
            value = rest.pop(0)
        if name == "communities":
            ours.setdefault(name, []).extend(part.strip() for part in value.split(","))
        elif name == "max_stage_rate":
            ours.setdefault(name, []).append(value)
        else:
            ours[name] = value
    return theirs, ours


def load_settings(root: Path, overrides: Mapping[str, Any] | None = None) -> PipelineSettings:
    """The project's settings (its veritrail.toml, if any) with `overrides` on top; an unknown or
    invalid setting is a `UsageError` naming it and the file."""
    flags = dict(overrides or {})
    settings = {**_file_settings(root), **flags}
    if isinstance(settings.get("reports"), str) and settings["reports"].isdigit():
        settings["reports"] = int(settings["reports"])

    def name(field: str) -> str:
        return (
            FLAG_PREFIX + field.replace("_", "-") if field in flags else f"{field} ([audit] in {root / SETTINGS_FILE})"
        )

    try:
        return PipelineSettings(**settings)
    except ValidationError as exc:
        raise UsageError(f"invalid setting(s): {PipelineSettings.problems(exc, name)}") from None
    except UsageError as exc:  # our own checks across settings (an unknown verifier, model options without one)
        raise UsageError(f"{exc} ([audit] in {root / SETTINGS_FILE}, or --veritrail-* flags)") from None
