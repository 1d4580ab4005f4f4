"""The options of an audit, declared once: the Python API validates them, the CLI makes its flags
of them (name, type, default, help and bounds), so `veritrail audit` and `audit()` cannot drift.

A field's `description` is its help text; `json_schema_extra` may give the CLI a `metavar`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from veritrail_graphrag.adapters.graphrag import METHODS
from veritrail_graphrag.audit.project_llm import project_endpoint
from veritrail_graphrag.engine.workers import fork_available
from veritrail_graphrag.errors import UsageError, excerpt, validation_problem
from veritrail_graphrag.llm.config import PromptProfile
from veritrail_graphrag.models import TrailConfig
from veritrail_graphrag.report.markdown import MD_LIMIT
from veritrail_graphrag.verifiers.registry import (
    VERIFIERS,
    PreparedVerifier,
    VerifierSpec,
    prepare_verifier,
    registration,
)

DEFAULT_CONCURRENCY = 16


class Options(BaseModel):
    """Options given by name: an unknown one is refused, never ignored."""

    model_config = ConfigDict(extra="forbid")

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> Self:
        """Options given as keyword arguments; an unknown or invalid one is a `UsageError` naming it."""
        try:
            return cls(**options)
        except ValidationError as exc:
            raise UsageError(f"invalid audit option(s): {validation_problem(exc)}") from None

    @classmethod
    def problems(cls, exc: ValidationError, name: Callable[[str], str] = str) -> str:
        """One problem per option: its name, the value given and what it takes; a value that fits
        none of a field's types ("N, or all") is said once with the field's description, not once
        per type in pydantic's terms (`reports.literal['all']`). `name` says how the user wrote the
        option (a flag, a key of a settings file)."""
        by_field: dict[str, list[Any]] = {}
        for error in exc.errors():
            by_field.setdefault(str(error["loc"][0]) if error["loc"] else "?", []).append(error)
        problems = []
        for field, errors in by_field.items():
            given = f" {excerpt(errors[0]['input'], 40)}" if errors[0]["type"] != "extra_forbidden" else ""
            described = cls.model_fields[field].description if field in cls.model_fields else None
            said = errors[0]["msg"] if len(errors) == 1 or not described else f"takes: {described}"
            if errors[0]["type"] == "extra_forbidden":
                said = "no such option"
            problems.append(f"{name(field)}{given}: {said}")
        return "; ".join(problems)


class SourceOptions(Options):
    """How to read what `veritrail audit PATH` names: which saved GraphRAG run (or answer file), or
    how a BooookScore file was made. Options for the other kind of input are refused."""

    query_run: str | None = Field(None, description="GraphRAG: the saved query run to audit (default: latest).")
    answer: Path | None = Field(None, description="GraphRAG: a final answer saved from `graphrag query`.")
    map_answers: Path | None = Field(None, description="GraphRAG: folder of map-answer files for --answer.")
    question: str | None = Field(None, description="The question the answer responds to.")
    method: str | None = Field(
        None, description=f"GraphRAG: the search that wrote --answer: {'|'.join(METHODS)} (global)."
    )
    book: str | None = Field(None, description="BooookScore: the book to audit.")
    chunks: Path | None = Field(
        None, description="BooookScore: the chunk file (.json, or a trusted .pkl) so chunks are roots."
    )
    max_context_len: int | None = Field(None, description="BooookScore: the run's max_context_len.")
    chunk_size: int | None = Field(None, description="BooookScore: the run's chunk_size.")


class VerifierOptions(Options):
    """Which verifier, and the model settings of the LLM verifier (None: from the settings files)."""

    verifier: str = Field("facts", description=f"One of: {', '.join(VERIFIERS)} (facts and lexical need no model).")
    model: str | None = Field(None, description="LLM: model or Azure deployment (default: settings).")
    base_url: str | None = Field(None, description="LLM: OpenAI-compatible base URL or Azure endpoint.")
    provider: str | None = Field(None, description="LLM: openai (any compatible server) or azure.")
    api_version: str | None = Field(None, description="LLM: Azure OpenAI API version.")
    local_model: str | None = Field(
        None,
        description="LLM: serve this GGUF with llama-cpp-python for the run (extra 'local'); smollm2 = the bundled "
        "tiny model.",
        json_schema_extra={"metavar": "PATH.gguf|smollm2"},
    )
    prompts: PromptProfile | None = Field(
        None,
        description="LLM: paper (the paper's prompt steps and recursive decomposition; default for a configured "
        "endpoint) or compact (short answers a small model can write; default with --local-model).",
    )
    samples: int = Field(1, ge=1, description="LLM: samples per Evidence Selection and verdict call.")
    min_agreement: int = Field(1, ge=1, description="LLM: samples that must agree (confidence scores).")
    prefilter: bool = Field(
        False,
        description="LLM: leave out of Evidence Selection what shares no word, name or number with the claim and is "
        "far from it in meaning (short nodes whole, sentences of long ones): fewer prompt tokens.",
    )

    @model_validator(mode="after")
    def _consistent(self) -> VerifierOptions:
        """An unknown verifier, or model options with a verifier that calls no model, are refused
        rather than ignored, and when the options are read: before a large index is loaded for nothing."""
        takes_model_options = registration(self.verifier).model_options
        model_only = {
            "--model": self.model,
            "--base-url": self.base_url,
            "--provider": self.provider,
            "--api-version": self.api_version,
            "--local-model": self.local_model,
            "--prompts": self.prompts,
            "--samples": self.samples if self.samples != 1 else None,
            "--min-agreement": self.min_agreement if self.min_agreement != 1 else None,
            "--prefilter": True if self.prefilter else None,
        }
        given = [flag for flag, value in model_only.items() if value is not None]
        if not takes_model_options and given:
            takers = " or ".join(f"--verifier {name}" for name, r in VERIFIERS.items() if r.model_options)
            raise UsageError.of_flags(given, f"to {takers} only")
        return self

    def verifier_spec(
        self, root: Path | None, concurrency: int | None = None, cache_dir: Path | None = None
    ) -> VerifierSpec:
        """The run's verifier spec. A verifier that calls a model gets the endpoint the project at
        `root` names (its GraphRAG settings.yaml), read here so that verifiers know no adapter;
        `cache_dir` keeps its cache out of the project (an audit written elsewhere with --out)."""
        project = project_endpoint(root) if registration(self.verifier).model_options else None
        return VerifierSpec(
            name=self.verifier, root=root, project=project, model=self.model, base_url=self.base_url,
            provider=self.provider, api_version=self.api_version, local_model=self.local_model, prompts=self.prompts,
            concurrency=concurrency, samples=self.samples, min_agreement=self.min_agreement, prefilter=self.prefilter,
            cache_dir=cache_dir,
        )  # fmt: skip


class TraversalOptions(Options):
    """How far the engine goes for each claim: the audits and `veritrail eval` take these."""

    decomposition_depth: int | None = Field(
        None,
        ge=1,
        description="Rounds of sub-claim decomposition: 1 splits each claim once, its parts are final; 20 "
        "splits parts again until they stop changing (the paper's recursion, at most 20 calls a claim). "
        "Default: 20 with the paper prompt profile, else 1.",
    )

    def trail_config(self, prepared: PreparedVerifier, **settings: Any) -> TrailConfig:
        """The traversal settings: the decomposition depth given, else the one the verifier's
        prompts call for (the paper's recursion for its profile)."""
        depth = self.decomposition_depth if self.decomposition_depth is not None else prepared.decomposition_depth
        return TrailConfig(decomposition_depth=depth, **settings)


class AuditOptions(TraversalOptions, VerifierOptions):
    """Everything an audit needs besides its input: the verifier, the traversal, resuming, the report."""

    q: int = Field(1, ge=1, description="Consecutive Not Fully Supported verdicts that end a claim.")
    concurrency: int | None = Field(
        None,
        ge=1,
        description=f"Verifier calls in flight at once (default: LLM settings, else {DEFAULT_CONCURRENCY}; "
        "an offline verifier: 1).",
    )
    workers: int | None = Field(
        None,
        ge=1,
        description="Processes verifying claims side by side, for the offline verifiers (default: one per core); "
        "the LLM verifier makes its calls concurrently in one process (--concurrency).",
    )
    resume: bool = Field(True, description="Reuse claims finished by an interrupted run with the same inputs.")
    full_trail: bool = Field(
        False, description="Keep the full text of every node read in report.json (for debugging a verifier)."
    )
    md_limit: int = Field(
        MD_LIMIT, ge=0, description="Claims listed in report.md (the flagged first); all are in report.json."
    )

    @model_validator(mode="after")
    def _workers_offline(self) -> AuditOptions:
        """Refused when the options are read, as the model options are for an offline verifier."""
        if self.workers not in (None, 1) and registration(self.verifier).model_options:
            raise UsageError.of_flags(
                ["--workers"], "to the offline verifiers only: the LLM verifier's calls run at once (--concurrency)"
            )
        return self

    def setup(
        self, root: Path | None, max_sentences_per_prompt: int = 40, cache_dir: Path | None = None
    ) -> tuple[PreparedVerifier, TrailConfig]:
        """The verifier, prepared once (its settings read), and the traversal settings.

        Concurrency defaults to what the verifier's settings ask for, else 16 calls in flight for a
        verifier that calls a model. One that calls none has nothing to wait for: its claims run
        one at a time, so each is in the checkpoint as soon as it is done (run side by side, they
        would all finish near the end, and a Ctrl-C would lose them all)."""
        prepared = prepare_verifier(self.verifier_spec(root, self.concurrency, cache_dir))
        default = DEFAULT_CONCURRENCY if prepared.model_calls is not None else 1
        concurrency = self.concurrency or prepared.concurrency or default
        config = self.trail_config(
            prepared, q=self.q, max_sentences_per_prompt=max_sentences_per_prompt, concurrency=concurrency
        )
        return prepared, config

    def processes(self, prepared: PreparedVerifier) -> int:
        """How many processes verify the claims: one for a verifier that calls a model (its claims
        wait on the endpoint, concurrently, in one process), else `workers`, by default one per
        core this process may use; one where processes cannot be forked."""
        if prepared.model_calls is not None or not fork_available():
            return 1
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        return self.workers or cores


class GateOptions(Options):
    """What a finished audit is gated on in CI: the exit code it ends with, and a JUnit file."""

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
    def _readable_stage_rates(self) -> GateOptions:
        """A mistyped threshold is refused when the options are read, not after an audit that
        already cost its calls."""
        self.stage_rates()
        return self

    def stage_rates(self) -> dict[int, float]:
        """`max_stage_rate` as {stage: R}; a `UsageError` quotes the value that is not STAGE=R."""
        rates: dict[int, float] = {}
        for given in self.max_stage_rate or []:
            stage, rate = _stage_rate(given)
            if stage in rates:
                raise UsageError(f"--max-stage-rate names stage {stage} twice")
            rates[stage] = rate
        return rates


def _stage_rate(given: str) -> tuple[int, float]:
    """`4=0.1` as (4, 0.1). A stage is its number, as reports and `compare` name it: a DAG's stages
    have no names (a node's kind may sit at several stages)."""
    refused = UsageError(f"--max-stage-rate {excerpt(given)}: write STAGE=R, a stage number and a rate from 0 to 1")
    stage, _, rate = given.partition("=")
    try:
        number, limit = int(stage), float(rate)
    except ValueError:
        raise refused from None
    if number < 0 or not 0 <= limit <= 1:
        raise refused
    return number, limit
