"""Building the openai SDK client for a configuration: OpenAI, Azure OpenAI, or any compatible server.

The SDK's own retries are switched off (`max_retries=0`): `LLMClient` retries, so that every
attempt passes through our rate limiter and is bounded by our settings.
"""

from __future__ import annotations

import openai

from veritrail_graphrag.errors import LLMConfigError
from veritrail_graphrag.llm.config import LLMConfig

_AZURE_SCOPE = "https://cognitiveservices.azure.com/.default"
_PLACEHOLDER_KEY = "not-needed"


def _key_or_error(config: LLMConfig, needed: bool) -> str:
    key = config.resolved_api_key()
    if key:
        return key
    if not needed:
        return _PLACEHOLDER_KEY
    where = config.source_of("model")
    raise LLMConfigError(
        f"no API key for {config.provider} model {config.model!r} (configured in {where}): set "
        f"{config.key_variable}, or VERITRAIL_API_KEY, or api_key under [llm] in veritrail.toml"
    )


def make_sdk_client(config: LLMConfig) -> openai.AsyncOpenAI:
    """A fresh async SDK client; local OpenAI-compatible servers get a placeholder key if none is set."""
    if config.provider == "azure":
        if not config.base_url:
            raise LLMConfigError(
                f"Azure OpenAI model {config.model!r} needs base_url (the resource endpoint, e.g. "
                "https://NAME.openai.azure.com): set api_base in settings.yaml or VERITRAIL_BASE_URL"
            )
        if not config.api_version:
            raise LLMConfigError(
                f"Azure OpenAI model {config.model!r} needs api_version: set it in settings.yaml, "
                "VERITRAIL_API_VERSION or --api-version"
            )
        common = {
            "azure_endpoint": config.base_url,
            "azure_deployment": config.azure_deployment or config.model,
            "api_version": config.api_version,
            "max_retries": 0,
            "timeout": config.timeout,
        }
        if config.auth_method == "azure_managed_identity":
            try:
                from azure.identity.aio import DefaultAzureCredential, get_bearer_token_provider
            except ImportError:
                raise LLMConfigError(
                    "auth_method azure_managed_identity needs the azure-identity package: pip install azure-identity"
                ) from None
            provider = get_bearer_token_provider(DefaultAzureCredential(), _AZURE_SCOPE)
            return openai.AsyncAzureOpenAI(azure_ad_token_provider=provider, **common)
        return openai.AsyncAzureOpenAI(api_key=_key_or_error(config, needed=True), **common)
    return openai.AsyncOpenAI(
        api_key=_key_or_error(config, needed=config.is_official_openai),
        base_url=config.base_url,
        max_retries=0,
        timeout=config.timeout,
    )
