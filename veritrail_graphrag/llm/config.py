"""Which model to call and how: one `LLMConfig`, resolved from layered sources.

Precedence, highest first: explicit overrides (CLI flags) > `VERITRAIL_*` environment variables
> `[llm]` in `veritrail.toml` > the project's own settings (GraphRAG's `settings.yaml`, read by its
adapter and handed over as `EndpointSettings`) > defaults. So `veritrail audit ROOT` uses the
model the index was built with, and any single setting can be changed without copying the rest.
Every value remembers where it came from, so an error can say which file or variable to fix.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from veritrail_graphrag.endpoint_settings import EndpointSettings, Unresolved
from veritrail_graphrag.errors import LLMConfigError, excerpt, field_path, validation_problem
from veritrail_graphrag.llm.local_server import local_alias, resolve_model_path
from veritrail_graphrag.llm.retry import RetryPolicy
from veritrail_graphrag.llm.usage import ModelPrice

ENV_PREFIX = "VERITRAIL_"
TOML_NAME = "veritrail.toml"
_OFFICIAL_HOSTS = ("api.openai.com",)
_TRUE = frozenset({"true", "on", "yes", "1"})
_FALSE = frozenset({"false", "off", "no", "0"})
# Prompts stay under this many tokens unless a setting or a local model's window says otherwise:
# every current hosted chat model (OpenAI, Azure, Anthropic via a proxy, Llama 3.1+, Qwen 2.5+)
# reads at least 32K tokens; smaller windows (Ollama's default, an 8K GGUF) need the setting.
DEFAULT_MAX_INPUT_TOKENS = 32_000
# Room held back for the answer in a local server's window, which holds prompt and answer: the
# longest answer the bounded schemas of each prompt profile allow, Evidence Selection's over 40
# sentences (tests/verifiers/test_llm_prompts.py ties these to the schemas).
LONGEST_ANSWER_TOKENS = {"compact": 2_500, "paper": 4_000}
StructuredOutput = Literal["auto", "json_schema", "json_object_schema", "json_object", "text"]


class PromptProfile(StrEnum):
    """How the LLM verifier asks for Evidence Selection and verdicts.

    `paper` follows the steps of the paper's appendix C (per-sentence tests, an overview with its
    "nothing relevant" exit, the verdict's seven steps) and its recursive sub-claim decomposition:
    what the paper measured, for a capable model. `compact` asks for the same decisions in a few
    short fields: a small local model (SmolLM2-135M) writes them within its window and grammar."""

    PAPER = "paper"
    COMPACT = "compact"


class LLMConfig(BaseModel):
    """Everything needed to reach one chat model. Secrets are `SecretStr` and never printed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: Literal["openai", "azure"] = Field(
        default="openai", description="'openai' also covers any OpenAI-compatible server via base_url"
    )
    model: str = Field(min_length=1)
    base_url: str | None = Field(default=None, description="OpenAI-compatible base URL, or the Azure endpoint")
    api_key: SecretStr | None = None
    api_key_env: str | None = Field(
        default=None, description="environment variable holding the key (default OPENAI_API_KEY / AZURE_OPENAI_API_KEY)"
    )
    api_version: str | None = Field(default=None, description="Azure OpenAI API version")
    azure_deployment: str | None = Field(default=None, description="Azure deployment (default: the model name)")
    auth_method: Literal["api_key", "azure_managed_identity"] = "api_key"
    structured_output: StructuredOutput = Field(
        default="auto",
        description="answer format: 'auto' walks json_schema -> json_object_schema -> json_object -> text as the "
        "endpoint rejects each; a rung name starts there; true = auto, false = text",
    )
    local_model: str | None = Field(
        default=None, description="a GGUF file served by llama-cpp-python for this run, or 'smollm2' (extra 'local')"
    )
    local_context: int = Field(default=8192, ge=512, description="n_ctx of the local model server")
    prompts: PromptProfile | None = Field(
        default=None,
        description="prompt profile: paper (the paper's steps) or compact; default paper, compact for a local model",
    )
    max_input_tokens: int | None = Field(
        default=None,
        ge=256,
        description="tokens one prompt may hold; default: a local model's n_ctx less the longest answer, "
        f"else {DEFAULT_MAX_INPUT_TOKENS:,}",
    )
    temperature: float = Field(default=0.0, ge=0, le=2)
    sample_temperature: float = Field(default=0.2, ge=0, le=2, description="used when samples > 1")
    seed: int | None = None
    max_output_tokens: int | None = Field(default=None, ge=1)
    timeout: float = Field(default=120.0, gt=0, description="seconds per request")
    max_attempts: int = Field(default=6, ge=1, description="per request, for 429/5xx/timeouts/dropped connections")
    backoff_base: float = Field(default=1.0, ge=0)
    backoff_max: float = Field(default=60.0, ge=0)
    parse_attempts: int = Field(default=3, ge=1, description="asks per call when the answer cannot be read")
    concurrency: int = Field(default=16, ge=1, description="requests in flight at once")
    requests_per_minute: int | None = Field(default=None, ge=1)
    tokens_per_minute: int | None = Field(default=None, ge=1)
    cache: bool = True
    cache_path: Path | None = None
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    sources: dict[str, str] = Field(default_factory=dict, description="where each setting came from")

    @field_validator("structured_output", mode="before")
    @classmethod
    def _structured_output_words(cls, value: Any) -> Any:
        """Booleans and None from older settings: on means the ladder, off means plain text."""
        if value is None or value is True or (isinstance(value, str) and value.strip().lower() in _TRUE):
            return "auto"
        if value is False or (isinstance(value, str) and value.strip().lower() in _FALSE):
            return "text"
        return value

    @property
    def input_limit(self) -> int:
        """The prompt limit in tokens: what the setting says, else what the local server was started
        with (its window holds the answer too), else a default that today's hosted models hold."""
        if self.max_input_tokens is not None:
            return self.max_input_tokens
        if self.local_model is not None:
            return self.local_context - LONGEST_ANSWER_TOKENS[self.prompt_profile]
        return DEFAULT_MAX_INPUT_TOKENS

    @property
    def prompt_profile(self) -> PromptProfile:
        """The profile set, else compact for a local model (a small model's window and grammar hold
        its answers) and paper for any other endpoint (a capable model gets the paper's method)."""
        if self.prompts is not None:
            return self.prompts
        return PromptProfile.COMPACT if self.local_model is not None else PromptProfile.PAPER

    @property
    def uses_structured_output(self) -> bool:
        return self.structured_output != "text"

    @property
    def strict_schema_subset(self) -> bool:
        """OpenAI and Azure strict mode reject length keywords in a JSON schema."""
        return self.provider == "azure" or (self.is_official_openai and self.local_model is None)

    @property
    def is_official_openai(self) -> bool:
        return self.provider == "openai" and (
            self.base_url is None or any(host in self.base_url for host in _OFFICIAL_HOSTS)
        )

    @property
    def key_variable(self) -> str:
        if self.api_key_env:
            return self.api_key_env
        return "AZURE_OPENAI_API_KEY" if self.provider == "azure" else "OPENAI_API_KEY"

    def resolved_api_key(self) -> str | None:
        """The explicit key, else the named environment variable (Azure also tries OPENAI_API_KEY)."""
        if self.api_key is not None:
            return self.api_key.get_secret_value()
        names = [self.key_variable]
        if self.provider == "azure" and not self.api_key_env:
            names.append("OPENAI_API_KEY")
        return next((os.environ[n] for n in names if os.environ.get(n)), None)

    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(max_attempts=self.max_attempts, base_delay=self.backoff_base, max_delay=self.backoff_max)

    def endpoint(self) -> dict[str, Any]:
        """What identifies the answering model, for cache keys (never the key or timeouts).

        A local model is its file, not the port its server happened to get: a re-run hits the cache."""
        if self.local_model is not None:
            path = resolve_model_path(self.local_model)
            return {"provider": "local", "model_file": path.name, "bytes": path.stat().st_size}
        base = (self.base_url or "").rstrip("/")
        deployment = (self.azure_deployment or self.model) if self.provider == "azure" else None
        return {"provider": self.provider, "base_url": base, "deployment": deployment}

    def source_of(self, name: str) -> str:
        return self.sources.get(name, "default")


def _env_layer(environ: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name in LLMConfig.model_fields:
        if name in ("prices", "sources"):
            continue
        raw = environ.get(ENV_PREFIX + name.upper())
        if raw is not None and raw.strip() != "":
            values[name] = None if raw.strip().lower() == "auto" else raw.strip()
    return values


def _toml_layer(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise LLMConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise LLMConfigError(f"{path}: invalid TOML: {exc}") from None
    section = data.get("llm", {})
    if not isinstance(section, dict):
        raise LLMConfigError(f"{path}: [llm] must be a table")
    values = dict(section)
    if isinstance(values.get("cache_path"), str):
        values["cache_path"] = (path.parent / values["cache_path"]).resolve()
    return values


def _find_toml(root: Path | None) -> Path | None:
    for folder in ([root] if root else []) + [Path.cwd()]:
        candidate = folder / TOML_NAME
        if candidate.is_file():
            return candidate
    return None


def _serve_locally(merged: dict[str, Any], sources: dict[str, str], prices: dict[str, Any]) -> None:
    """A local model answers under its own name, one request at a time (llama.cpp's server queues
    the rest, so they wait longer than a hosted endpoint's timeout allows), at no cost."""
    alias = local_alias(str(merged["local_model"]))
    merged.update(model=alias, provider="openai", base_url=None, azure_deployment=None, api_version=None)
    sources["model"] = sources["local_model"]
    for name, value in (("concurrency", 1), ("timeout", 600.0)):
        if name not in merged:
            merged[name] = value
            sources[name] = "local model default"
    prices.setdefault(alias, ModelPrice(input_per_million=0, output_per_million=0))


def resolve_llm_config(
    root: Path | None,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    defaults: Mapping[str, Any] | None = None,
    project: EndpointSettings | None = None,
) -> LLMConfig:
    """Merge defaults < the project's settings < veritrail.toml < VERITRAIL_* env < overrides.

    `root` is the project folder (it may hold veritrail.toml, and the cache goes under it);
    `project` is what the project's own files say about the model (GraphRAG's settings.yaml, read
    by its adapter); `overrides` are CLI flags by field name, where None means "not given";
    `defaults` are the caller's own fallbacks (e.g. a default model), used only when no source
    sets them.
    """
    environ = os.environ if environ is None else environ
    layers: list[tuple[str, dict[str, Any]]] = [("default", dict(defaults))] if defaults else []
    unsupported_provider: str | None = None
    if project is not None:
        layers.append((project.source, project.values))
        unsupported_provider = project.unsupported_provider
    toml_path = _find_toml(Path(root) if root else None)
    if toml_path is not None:
        layers.append((str(toml_path), _toml_layer(toml_path)))
    layers.append(("environment (VERITRAIL_*)", _env_layer(environ)))
    layers.append(("command line", {k: v for k, v in (overrides or {}).items() if v is not None}))

    merged: dict[str, Any] = {}
    sources: dict[str, str] = {}
    prices: dict[str, Any] = {}
    for source, values in layers:
        for name, value in values.items():
            if name not in LLMConfig.model_fields or name == "sources":
                raise LLMConfigError(f"{source}: unknown LLM setting {excerpt(name)}")
            if name == "prices":
                if not isinstance(value, Mapping | None):
                    raise LLMConfigError(f"{source}: prices should be a table of models, not {excerpt(value)}")
                prices.update(value or {})
                sources[name] = source
                continue
            merged[name] = value
            sources[name] = source

    for name, value in merged.items():
        if isinstance(value, Unresolved):
            raise LLMConfigError(
                f"{value.file}: {name} refers to ${{{value.variable}}}, which is set neither in the "
                f"environment nor in {value.file.parent / '.env'}"
            )
    if unsupported_provider and not merged.get("base_url"):
        raise LLMConfigError(
            f"{sources.get('model', 'settings.yaml')}: model_provider {unsupported_provider!r} has no "
            "OpenAI-compatible endpoint we know of; set base_url (VERITRAIL_BASE_URL or --base-url) to "
            "one, e.g. a LiteLLM proxy"
        )
    if merged.get("local_model"):
        _serve_locally(merged, sources, prices)
    if merged.get("model") == "":
        raise LLMConfigError(f"LLM setting 'model' from {sources['model']} is empty: name the model to use")
    if not merged.get("model"):
        raise LLMConfigError(
            "no model configured: pass --model, set VERITRAIL_MODEL, add model under [llm] in "
            "veritrail.toml, or run on a GraphRAG project whose settings.yaml names its completion model"
        )
    if merged.get("cache_path") is None:
        merged["cache_path"] = _default_cache_folder(root) / "llm_cache.sqlite"
    try:
        return LLMConfig.model_validate({**merged, "prices": prices, "sources": sources})
    except ValidationError as exc:
        loc = exc.errors()[0]["loc"]
        name = str(loc[0]) if loc else "?"
        where = f"LLM setting {field_path(loc)!r} from {sources.get(name, 'default')}"
        problem = validation_problem(exc, where, show_input=name != "api_key")
        raise LLMConfigError(problem) from None


def _default_cache_folder(root: str | Path | None) -> Path:
    """ROOT/.veritrail, the project's own; the user's cache when there is no project or it cannot
    be written to (a read-only run audited with --out elsewhere)."""
    if root is not None:
        folder = Path(root) / ".veritrail"
        if os.access(folder if folder.exists() else Path(root), os.W_OK):
            return folder
    return Path.home() / ".cache" / "veritrail"
