"""Typed errors. Each carries, as fields, the file, line or row and ids a user needs to find the problem.

The CLI maps them to exit codes (`veritrail_graphrag.cli.exit_codes`): anything else raised inside our
code is a bug, reported with its traceback, never as bad input or as a claim to retry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError


class VeriTrailError(Exception):
    """Base class: the CLI turns these into a one-line message and exit code 2.

    `file` and `line` prefix the message (`<file>, line <n>: <problem>`); `row` (an entry or table
    row, counted from 0) and `ids` (node, claim or record ids) are left to the problem's wording.
    """

    def __init__(
        self,
        problem: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        row: int | None = None,
        ids: Iterable[str] = (),
    ) -> None:
        where = "" if file is None else f"{file}" + ("" if line is None else f", line {line}")
        super().__init__(f"{where}: {problem}" if where else problem)
        self.problem = problem
        self.file = None if file is None else str(file)
        self.line = line
        self.row = row
        self.ids = list(ids)


EXCERPT = 60
"""Characters of a value from the input that an error quotes: enough to find it in the file. A
hand-edited file can hold a 100 kB text where an id belongs, and the error must stay one line."""
_BREAKS = re.compile(r"\s*[\n\r]\s*")


def excerpt(value: object, limit: int = EXCERPT) -> str:
    """`repr(value)` on one line, cut to `limit` characters (an ellipsis marks the cut)."""
    shown = _BREAKS.sub(" ", repr(value))
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def named(values: Iterable[object], shown: int = 3, limit: int = 40) -> str:
    """The first `shown` values as excerpts, and how many more there are: `'a', 'b' and 7 more`."""
    values = list(values)
    listed = ", ".join(excerpt(value, limit) for value in values[:shown])
    return listed + (f" and {len(values) - shown} more" if len(values) > shown else "")


def field_path(loc: Iterable[str | int]) -> str:
    """`nodes.3.stage`: where pydantic found a problem, keys from the input quoted when long or odd."""
    return ".".join(
        str(part) if isinstance(part, int) or (part.isidentifier() and len(part) <= 30) else excerpt(part, 30)
        for part in loc
    )


def validation_problem(exc: ValidationError, where: str | None = None, *, show_input: bool = True) -> str:
    """The first problem pydantic found as one short line, `field.path: what (got <excerpt>)`, and
    how many more there are; `where` names the place instead of the field path; `show_input=False`
    for secrets. Messages of validators may quote whole values, so they are cut too."""
    errors = exc.errors()
    first = errors[0]
    place = where or field_path(first["loc"]) or "value"
    message = first["msg"] if len(first["msg"]) <= 2 * EXCERPT else first["msg"][: 2 * EXCERPT - 1] + "…"
    given: Any = first.get("input")
    hidden = not show_input or isinstance(given, dict) or first["type"] == "missing"
    got = "" if hidden else f" (got {excerpt(given, 40)})"
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    return f"{place}: {message}{got}{more}"


class VeriTrailWarning(UserWarning):
    """Something a user should know that does not stop the run (a torn log line skipped); the CLI
    prints it as one `warning:` line."""


class AuditInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) during an audit, with how much of it is saved for the re-run."""

    def __init__(self, saved: int, total: int, message: str | None = None) -> None:
        if total:
            told = f"{saved} of {total} claims are saved in the checkpoint"
        else:
            told = "no claim was verified yet (model answers received so far are cached)"
        super().__init__(message or f"interrupted: {told}; run the same command to resume")
        self.saved = saved
        self.total = total

    @classmethod
    def after_report(cls, report: Path) -> AuditInterrupted:
        """Interrupted once the report was written: nothing is left to resume."""
        return cls(0, 0, f"interrupted after the report was written: {report} is complete")


class DagError(VeriTrailError):
    """The DAG is malformed (cycle, dangling edge, decreasing stage, bad JSON...)."""


class TerminalError(VeriTrailError, ValueError):
    """The node chosen to verify has no inputs (it is source text): there is nothing to trace it to."""

    def __init__(self, message: str, node_id: str) -> None:
        super().__init__(message, ids=[node_id])
        self.node_id = node_id


class VerifierError(VeriTrailError):
    """A verifier could not judge a claim for now (transport, model or answer-format failure):
    the claim is reported as not verified and a re-run retries it."""

    def __init__(self, message: str, claim_id: str, node_ids: list[str] | None = None) -> None:
        super().__init__(message, ids=[claim_id, *(node_ids or [])])
        self.claim_id = claim_id
        self.node_ids = list(node_ids or [])


class VerifierConfigError(VeriTrailError):
    """A verifier cannot be set up (its shipped data is missing or damaged): nothing is verified."""


CLAIM_FAILURES: tuple[type[BaseException], ...] = (VeriTrailError, OSError)
"""What a verifier raises when it cannot judge a claim *now*: our typed errors (an LLM answer
that stays unreadable, a server that keeps failing) and the OS's (connection, timeout); except
`EndpointError`, which ends the run. Anything else is a bug in the verifier, which must crash
rather than be retried forever."""


class AdapterError(VeriTrailError):
    """A pipeline artifact cannot be read into a DAG; names the file and column or row."""


class ClaimsError(VeriTrailError):
    """A claims file is malformed; names the file and the entry."""


class SpansError(VeriTrailError):
    """Evidence spans for a cited-answer check are malformed; names the file and the entry."""


class UsageError(VeriTrailError):
    """Command-line options that contradict each other or name nothing known."""

    @classmethod
    def of_flags(cls, given: list[str], rest: str, verbs: tuple[str, str] = ("applies", "apply")) -> UsageError:
        """`--model applies to ...`, `--model, --samples apply to ...`: the verb agrees with the flags."""
        return cls(f"{', '.join(given)} {verbs[0] if len(given) == 1 else verbs[1]} {rest}")


class ReportError(VeriTrailError):
    """A report file cannot be read back (not a report, unknown version, a text it lacks)."""


class OutputError(VeriTrailError):
    """A report, checkpoint or log cannot be written; names the file."""


class LLMError(VeriTrailError):
    """A language-model call failed for good: names the call kind and the claim it served."""

    def __init__(
        self,
        message: str,
        *,
        call_kind: str | None = None,
        claim_id: str | None = None,
        status_code: int | None = None,
    ) -> None:
        super().__init__(message, ids=[] if claim_id is None else [claim_id])
        self.call_kind = call_kind
        self.claim_id = claim_id
        self.status_code = status_code


class EndpointError(LLMError):
    """The model endpoint cannot be used at all: unreachable (connection refused, DNS, TLS), the key
    refused (401/403) or the model unknown (404), after the retries. Every call would fail the
    same way, so this is not a claim failure: the run stops (exit 4) with its checkpoint kept."""


class LLMConfigError(LLMError):
    """The model settings are incomplete or contradictory; names the setting and where it came from."""


class PromptTooLongError(LLMError):
    """A prompt would exceed the model's input limit: not sent (it could only fail or be cut by the
    server); names the sizes and the setting."""
