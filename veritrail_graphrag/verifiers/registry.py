"""Verifiers by name: a run's `VerifierSpec` is prepared once into the verifier it will use.

Each verifier registers with one line in `VERIFIERS`: where its `prepare(spec)` function lives
(imported only when the verifier is chosen, so heavy backends cost nothing otherwise) and whether
the model options (`--model`, `--samples`, ...) apply to it. Preparing reads the verifier's
settings once, and the run takes from the result what it needs before building: the concurrency
the settings ask for, and what a dry run would price.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from veritrail_graphrag.endpoint_settings import EndpointSettings
from veritrail_graphrag.errors import UsageError
from veritrail_graphrag.llm.config import PromptProfile
from veritrail_graphrag.llm.usage import ModelPrice
from veritrail_graphrag.verifiers.base import Verifier


@dataclass(frozen=True)
class Registration:
    """`prepare`: "module:function", a function taking a `VerifierSpec` and returning a
    `PreparedVerifier`. `model_options`: whether the model options apply to this verifier."""

    prepare: str
    model_options: bool = False


VERIFIERS: dict[str, Registration] = {
    "facts": Registration("veritrail_graphrag.verifiers.facts.verifier:prepare"),
    "lexical": Registration("veritrail_graphrag.verifiers.lexical.verifier:prepare"),
    "llm": Registration("veritrail_graphrag.verifiers.llm.verifier:prepare", model_options=True),
}


class VerifierSpec(BaseModel):
    """Which verifier a run uses, and its options as given; model options left None come from
    the settings files."""

    name: str = "facts"
    root: Path | None = Field(default=None, description="project folder whose settings name the model")
    project: EndpointSettings | None = Field(
        default=None, description="the endpoint the project's own settings name (GraphRAG's settings.yaml)"
    )
    model: str | None = None
    base_url: str | None = None
    provider: str | None = None
    api_version: str | None = None
    concurrency: int | None = None
    local_model: str | None = None
    prompts: PromptProfile | None = None
    samples: int = Field(default=1, ge=1)
    min_agreement: int = Field(default=1, ge=1)
    prefilter: bool = False
    cache_dir: Path | None = Field(
        default=None,
        description="where model answers are cached unless the settings say (an audit's --out folder, so that "
        "nothing is written into the folder audited); None: the project's .veritrail/",
    )

    def llm_overrides(self) -> dict[str, object]:
        fields = ("model", "base_url", "provider", "api_version", "concurrency", "local_model", "prompts")
        return {name: getattr(self, name) for name in fields}


class ModelCalls(BaseModel):
    """What a dry run needs to price a verifier's calls."""

    model: str
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    samples: int = 1
    prompts: PromptProfile = PromptProfile.COMPACT


@dataclass(frozen=True)
class PreparedVerifier:
    """A spec with its settings read. `concurrency`: calls in flight the settings ask for (None:
    the engine's default); `model_calls`: None when the verifier calls no model;
    `decomposition_depth`: the rounds of sub-claim decomposition its prompts call for when the
    run sets none (None: the paper's recursion)."""

    build: Callable[[], Verifier]
    concurrency: int | None = None
    model_calls: ModelCalls | None = None
    decomposition_depth: int | None = 1


def registration(name: str) -> Registration:
    try:
        return VERIFIERS[name]
    except KeyError:
        raise UsageError(f"unknown verifier {name!r}; choose one of: {', '.join(VERIFIERS)}") from None


def prepare_verifier(spec: VerifierSpec) -> PreparedVerifier:
    prepare: Callable[[VerifierSpec], PreparedVerifier] = pkgutil.resolve_name(registration(spec.name).prepare)
    return prepare(spec)
