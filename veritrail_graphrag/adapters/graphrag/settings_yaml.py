"""Reading the chat model out of a GraphRAG project's `settings.yaml`, so audits need no flags.

The result is a neutral `EndpointSettings` (in `LLMConfig`'s field names) that the LLM config
layers under veritrail's own settings.

Three layouts exist in the wild:
- graphrag 3.x: `completion_models: {id: {model_provider, model, api_base, api_key, api_version,
  auth_method, azure_deployment_name, retry: {...}, rate_limit: {...}}}`, `concurrent_requests`
  at the top level, and `global_search.completion_model_id` naming the query model;
- graphrag 1.x/2.x: `models: {id: {type: openai_chat | azure_openai_chat | chat, model, api_base,
  api_key, api_version, deployment_name, auth_type, requests_per_minute, ...}}` with
  `global_search.chat_model_id`;
- graphrag 0.x: a single top-level `llm:` block with the 1.x keys.

`${VAR}` references are filled from the environment, then from the project's `.env` (as GraphRAG
does: a variable already in the environment wins). An API key whose variable is not set yet is
kept as a reference (`api_key_env`), so the error, if any, names the variable to set.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from veritrail_graphrag.adapters.graphrag.layout import SETTINGS_FILES, yaml_problem
from veritrail_graphrag.endpoint_settings import EndpointSettings, Unresolved
from veritrail_graphrag.errors import LLMConfigError, excerpt

_PURE_REFERENCE = re.compile(r"^\$\{?(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}?$")
# Providers LiteLLM reaches through an OpenAI-compatible API, with their usual base URL.
_COMPATIBLE = {
    "openai": None,
    "ollama": "http://localhost:11434/v1",
    "deepseek": "https://api.deepseek.com/v1",
    "hosted_vllm": None,
    "vllm": None,
    "lm_studio": "http://localhost:1234/v1",
    "openai_compatible": None,
}


def read_dotenv(path: Path) -> dict[str, str]:
    """KEY=VALUE lines, with optional `export`, quotes and comments."""
    values: dict[str, str] = {}
    if not path.is_file():
        return values
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        values[key.strip()] = value
    return values


def _substitute(value: Any, env: Mapping[str, str], path: Path) -> Any:
    if isinstance(value, dict):
        return {k: _substitute(v, env, path) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, env, path) for v in value]
    if not isinstance(value, str) or "$" not in value:
        return value
    try:
        return string.Template(value).substitute(env)
    except KeyError as exc:
        return Unresolved(variable=str(exc.args[0]), file=path)
    except ValueError:
        return value


def _mapping(value: Any, path: Path, what: str) -> Mapping[str, Any]:
    """A section of settings.yaml that must be a mapping (absent or empty: an empty one)."""
    if value is None or value == "":
        return {}
    if not isinstance(value, Mapping):
        raise LLMConfigError(f"{path}: {what} should be a mapping of settings, not {excerpt(value)}")
    return value


def _pick(section: Mapping[str, Any], preferred: list[Any], path: Path, what: str) -> str:
    for name in preferred:
        if isinstance(name, str) and name and name in section:
            return name
    if not section:
        raise LLMConfigError(f"{path}: {what} is empty")
    return next(iter(section))


def _positive(value: Any) -> int | None:
    number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return int(value) if number and value > 0 else None


def _short(key: Any) -> str:
    """A key of settings.yaml as messages and sources name it: whole unless it is long."""
    return str(key) if len(str(key)) <= 40 else excerpt(str(key), 40)


def _provider(name: str | None, api_base: Any) -> tuple[dict[str, Any], str | None]:
    """LLMConfig provider (and default base URL) for a LiteLLM provider name; or the unsupported name."""
    name = str(name or "openai").lower()
    if name in ("azure", "azure_openai"):
        return {"provider": "azure"}, None
    if name in _COMPATIBLE:
        default = _COMPATIBLE[name]
        values = {"provider": "openai"} | ({"base_url": default} if default and not api_base else {})
        return values, None
    return {"provider": "openai"}, (None if api_base else name)


def _common(entry: Mapping[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for ours, theirs in (("model", "model"), ("base_url", "api_base"), ("api_version", "api_version")):
        if entry.get(theirs) not in (None, ""):
            values[ours] = entry[theirs]
    return values


def _api_key(raw_entry: Mapping[str, Any], entry: Mapping[str, Any]) -> dict[str, Any]:
    raw = raw_entry.get("api_key")
    value = entry.get("api_key")
    if raw in (None, ""):
        return {}
    if isinstance(value, Unresolved) and isinstance(raw, str) and (ref := _PURE_REFERENCE.match(raw.strip())):
        return {"api_key_env": ref["name"]}
    return {"api_key": value}


def _v3(data: Mapping[str, Any], env: Mapping[str, str], path: Path) -> EndpointSettings:
    models = _mapping(data["completion_models"], path, "completion_models")
    query = _mapping(data.get("global_search"), path, "global_search")
    model_id = _pick(models, [query.get("completion_model_id"), "default_completion_model"], path, "completion_models")
    raw_entry = _mapping(models[model_id], path, f"completion_models.{_short(model_id)}")
    entry = _substitute(raw_entry, env, path)
    values, unsupported = _provider(entry.get("model_provider"), entry.get("api_base"))
    values |= _common(entry) | _api_key(raw_entry, entry)
    if entry.get("azure_deployment_name"):
        values["azure_deployment"] = entry["azure_deployment_name"]
    if entry.get("auth_method"):
        values["auth_method"] = entry["auth_method"]
    retry = _mapping(entry.get("retry"), path, "retry")
    if _positive(retry.get("max_retries")):
        values["max_attempts"] = int(retry["max_retries"]) + 1
    for ours, theirs in (("backoff_base", "base_delay"), ("backoff_max", "max_delay")):
        if isinstance(retry.get(theirs), int | float):
            values[ours] = float(retry[theirs])
    limits = _mapping(entry.get("rate_limit"), path, "rate_limit")
    period = _positive(limits.get("period_in_seconds")) or 60
    for ours, theirs in (("requests_per_minute", "requests_per_period"), ("tokens_per_minute", "tokens_per_period")):
        if count := _positive(limits.get(theirs)):
            values[ours] = max(1, round(count * 60 / period))
    concurrency = _positive(entry.get("concurrent_requests")) or _positive(data.get("concurrent_requests"))
    if concurrency:
        values["concurrency"] = concurrency
    return EndpointSettings(
        source=f"{path} (completion_models.{_short(model_id)})", values=values, unsupported_provider=unsupported
    )


def _v1(entry_raw: Mapping[str, Any], model_id: str, env: Mapping[str, str], path: Path) -> EndpointSettings:
    entry = _substitute(entry_raw, env, path)
    kind = str(entry.get("type", "openai_chat")).lower()
    if kind.startswith("azure"):
        values: dict[str, Any] = {"provider": "azure"}
        unsupported = None
    elif kind in ("openai_chat", "openai"):
        values, unsupported = {"provider": "openai"}, None
    else:
        values, unsupported = _provider(entry.get("model_provider"), entry.get("api_base"))
    values |= _common(entry) | _api_key(entry_raw, entry)
    if entry.get("deployment_name"):
        values["azure_deployment"] = entry["deployment_name"]
    auth = entry.get("auth_type") or entry.get("auth_method")
    if auth:
        values["auth_method"] = auth
    for ours, theirs in (
        ("requests_per_minute", "requests_per_minute"),
        ("tokens_per_minute", "tokens_per_minute"),
        ("concurrency", "concurrent_requests"),
        ("timeout", "request_timeout"),
    ):
        if number := _positive(entry.get(theirs)):
            values[ours] = number
    if _positive(entry.get("max_retries")):
        values["max_attempts"] = int(entry["max_retries"]) + 1
    return EndpointSettings(source=f"{path} ({model_id})", values=values, unsupported_provider=unsupported)


def read_graphrag_settings(root: Path, environ: Mapping[str, str]) -> EndpointSettings | None:
    """The query model's settings from ROOT/settings.yaml, or None when the project has none."""
    path = next((root / name for name in SETTINGS_FILES if (root / name).is_file()), None)
    if path is None:
        return None
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError) as exc:
        raise LLMConfigError(f"{path}: cannot read: {exc}") from None
    except yaml.YAMLError as exc:
        raise LLMConfigError(f"{path}: invalid YAML ({yaml_problem(exc)})") from None
    if not isinstance(raw, dict):
        raise LLMConfigError(f"{path}: expected a mapping at the top level")
    env = {**read_dotenv(root / ".env"), **environ}
    if raw.get("completion_models"):
        return _v3(raw, env, path)
    if raw.get("models"):
        models = _mapping(raw["models"], path, "models")
        query = _mapping(raw.get("global_search"), path, "global_search")
        entries = {k: _mapping(v, path, f"models.{_short(k)}") for k, v in models.items()}
        chat_ids = [k for k, v in entries.items() if "embedding" not in str(v.get("type", "chat"))]
        model_id = _pick(entries, [query.get("chat_model_id"), "default_chat_model", *chat_ids], path, "models")
        return _v1(entries[model_id], f"models.{_short(model_id)}", env, path)
    if isinstance(raw.get("llm"), dict):
        return _v1(raw["llm"], "llm", env, path)
    return None
