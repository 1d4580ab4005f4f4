"""Where settings come from: GraphRAG settings.yaml (3.x, 1.x/2.x, 0.x), .env, veritrail.toml, env, flags."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI

from veritrail_graphrag.audit.project_llm import project_llm_config
from veritrail_graphrag.errors import LLMConfigError
from veritrail_graphrag.llm.config import LLMConfig, resolve_llm_config
from veritrail_graphrag.llm.providers import make_sdk_client
from veritrail_graphrag.verifiers.llm.verifier import LLMVerifier

pytest_plugins = ["fake_openai"]

V3_OPENAI = """
completion_models:
  default_completion_model:
    model_provider: openai
    model: gpt-4.1
    auth_method: api_key
    api_key: ${GRAPHRAG_API_KEY}
    retry:
      type: exponential_backoff
      max_retries: 4
      base_delay: 2.0
      max_delay: 30
    rate_limit:
      type: sliding_window
      period_in_seconds: 30
      requests_per_period: 10
      tokens_per_period: 20000
embedding_models:
  default_embedding_model:
    model_provider: openai
    model: text-embedding-3-large
    api_key: ${GRAPHRAG_API_KEY}
concurrent_requests: 8
"""

V3_AZURE = """
completion_models:
  default_completion_model:
    model_provider: azure
    model: gpt-4o
    auth_method: api_key
    api_key: ${AZURE_KEY}
    api_base: ${AZURE_ENDPOINT}
    api_version: "2024-10-21"
    azure_deployment_name: gpt4o-prod
"""

V2_AZURE = """
models:
  default_chat_model:
    type: azure_openai_chat
    auth_type: api_key
    api_key: ${GRAPHRAG_API_KEY}
    model: gpt-4o-mini
    deployment_name: mini-deploy
    api_base: https://example.openai.azure.com
    api_version: 2024-05-01-preview
    concurrent_requests: 25
    requests_per_minute: auto
    tokens_per_minute: 150000
    max_retries: 10
    request_timeout: 180.0
  default_embedding_model:
    type: azure_openai_embedding
    model: text-embedding-3-small
"""


def project(tmp_path: Path, settings: str, dotenv: str | None = None, toml: str | None = None) -> Path:
    (tmp_path / "settings.yaml").write_text(textwrap.dedent(settings), encoding="utf-8")
    if dotenv is not None:
        (tmp_path / ".env").write_text(dotenv, encoding="utf-8")
    if toml is not None:
        (tmp_path / "veritrail.toml").write_text(textwrap.dedent(toml), encoding="utf-8")
    return tmp_path


@pytest.fixture(autouse=True)
def _clean_cwd(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No stray veritrail.toml from the working directory."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


def test_graphrag_3x_openai_with_dotenv(tmp_path: Path) -> None:
    root = project(tmp_path, V3_OPENAI, dotenv='GRAPHRAG_API_KEY="sk-from-dotenv"\n# comment\n')
    config = project_llm_config(root, {}, environ={})
    assert (config.provider, config.model, config.base_url) == ("openai", "gpt-4.1", None)
    assert config.api_key is not None and config.api_key.get_secret_value() == "sk-from-dotenv"
    assert (config.max_attempts, config.backoff_base, config.backoff_max) == (5, 2.0, 30.0)
    assert (config.requests_per_minute, config.tokens_per_minute, config.concurrency) == (20, 40000, 8)
    assert config.uses_structured_output
    assert config.cache_path == root / ".veritrail" / "llm_cache.sqlite"
    assert "completion_models.default_completion_model" in config.source_of("model")
    assert "sk-from-dotenv" not in repr(config)


def test_environment_wins_over_dotenv(tmp_path: Path) -> None:
    root = project(tmp_path, V3_OPENAI, dotenv="GRAPHRAG_API_KEY=sk-dotenv\n")
    config = project_llm_config(root, {}, environ={"GRAPHRAG_API_KEY": "sk-env"})
    assert config.resolved_api_key() == "sk-env"


def test_unset_key_variable_becomes_a_reference_named_in_the_error(tmp_path: Path) -> None:
    root = project(tmp_path, V3_OPENAI)
    config = project_llm_config(root, {}, environ={})
    assert config.api_key is None and config.api_key_env == "GRAPHRAG_API_KEY"
    with pytest.raises(LLMConfigError, match="GRAPHRAG_API_KEY"):
        make_sdk_client(config)


def test_graphrag_3x_azure(tmp_path: Path) -> None:
    root = project(tmp_path, V3_AZURE)
    env = {"AZURE_KEY": "az-key", "AZURE_ENDPOINT": "https://res.openai.azure.com"}
    config = project_llm_config(root, {}, environ=env)
    assert (config.provider, config.model, config.azure_deployment) == ("azure", "gpt-4o", "gpt4o-prod")
    assert (config.base_url, config.api_version) == ("https://res.openai.azure.com", "2024-10-21")
    assert config.uses_structured_output
    assert config.endpoint()["deployment"] == "gpt4o-prod"


def test_graphrag_3x_picks_the_global_search_model(tmp_path: Path) -> None:
    query_model = "  query_model:\n    model_provider: openai\n    model: gpt-4.1-mini\n    api_key: literal-key\n"
    text = V3_OPENAI.replace("embedding_models:", query_model + "embedding_models:")
    root = project(tmp_path, text + "global_search:\n  completion_model_id: query_model\n")
    config = project_llm_config(root, {}, environ={})
    assert config.model == "gpt-4.1-mini" and config.resolved_api_key() == "literal-key"


def test_graphrag_2x_azure_layout(tmp_path: Path) -> None:
    root = project(tmp_path, V2_AZURE)
    config = project_llm_config(root, {}, environ={"GRAPHRAG_API_KEY": "k2"})
    assert (config.provider, config.model, config.azure_deployment) == ("azure", "gpt-4o-mini", "mini-deploy")
    assert (config.api_version, config.concurrency, config.timeout) == ("2024-05-01-preview", 25, 180.0)
    assert (config.requests_per_minute, config.tokens_per_minute, config.max_attempts) == (None, 150000, 11)
    assert config.resolved_api_key() == "k2"


def test_graphrag_0x_llm_block_with_compatible_server(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        "llm:\n  type: openai_chat\n  model: llama3\n  api_base: http://localhost:8000/v1\n  api_key: none\n",
    )
    config = project_llm_config(root, {}, environ={})
    assert (config.provider, config.model, config.base_url) == ("openai", "llama3", "http://localhost:8000/v1")
    assert config.structured_output == "auto" and not config.strict_schema_subset  # the ladder, bounds kept


def test_litellm_providers_map_to_compatible_endpoints(tmp_path: Path) -> None:
    root = project(tmp_path, "completion_models:\n  m:\n    model_provider: ollama\n    model: qwen2.5\n")
    config = project_llm_config(root, {}, environ={})
    assert config.base_url == "http://localhost:11434/v1"
    make_sdk_client(config)


def test_unsupported_provider_needs_a_base_url(tmp_path: Path) -> None:
    root = project(tmp_path, "completion_models:\n  m:\n    model_provider: anthropic\n    model: claude\n")
    with pytest.raises(LLMConfigError, match=r"model_provider 'anthropic'.*base_url"):
        project_llm_config(root, {}, environ={})
    config = project_llm_config(root, {"base_url": "http://127.0.0.1:4000/v1"}, environ={})
    assert config.base_url == "http://127.0.0.1:4000/v1"


def test_unresolved_variable_is_an_error_unless_overridden(tmp_path: Path) -> None:
    root = project(tmp_path, V3_AZURE)
    with pytest.raises(LLMConfigError, match=r"base_url refers to \$\{AZURE_ENDPOINT\}"):
        project_llm_config(root, {}, environ={})
    config = project_llm_config(root, {"base_url": "https://x.openai.azure.com"}, environ={})
    assert config.api_key_env == "AZURE_KEY"


def test_precedence_flags_env_toml_settings(tmp_path: Path) -> None:
    toml = """
    [llm]
    model = "from-toml"
    concurrency = 3
    cache_path = "cache/answers.sqlite"

    [llm.prices."from-toml"]
    input_per_million = 1.0
    output_per_million = 2.0
    """
    root = project(tmp_path, V3_OPENAI, toml=toml)
    assert project_llm_config(root, {}, environ={}).model == "from-toml"
    config = project_llm_config(root, {}, environ={"VERITRAIL_MODEL": "from-env", "VERITRAIL_CONCURRENCY": "5"})
    assert (config.model, config.concurrency) == ("from-env", 5)
    assert config.source_of("model") == "environment (VERITRAIL_*)"
    config = project_llm_config(root, {"model": "from-flag", "concurrency": None}, environ={"VERITRAIL_MODEL": "e"})
    assert (config.model, config.source_of("model")) == ("from-flag", "command line")
    assert config.cache_path == (root / "cache" / "answers.sqlite").resolve()
    assert config.prices["from-toml"].output_per_million == 2.0
    assert config.max_attempts == 5


def test_bad_values_name_their_source(tmp_path: Path) -> None:
    root = project(tmp_path, V3_OPENAI)
    with pytest.raises(LLMConfigError, match=r"'concurrency' from environment \(VERITRAIL_\*\)"):
        project_llm_config(root, {}, environ={"VERITRAIL_CONCURRENCY": "many"})
    (root / "veritrail.toml").write_text("[llm]\nmodle = 'x'\n")
    with pytest.raises(LLMConfigError, match="unknown LLM setting 'modle'"):
        project_llm_config(root, {}, environ={})


def test_no_model_anywhere(tmp_path: Path) -> None:
    with pytest.raises(LLMConfigError, match="no model configured"):
        project_llm_config(tmp_path, {}, environ={})
    with pytest.raises(LLMConfigError, match="no model configured"):
        resolve_llm_config(None, {}, environ={})


def test_environment_only_configuration() -> None:
    env = {
        "VERITRAIL_MODEL": "m",
        "VERITRAIL_BASE_URL": "http://h/v1",
        "VERITRAIL_STRUCTURED_OUTPUT": "true",
        "VERITRAIL_REQUESTS_PER_MINUTE": "60",
        "VERITRAIL_CACHE": "false",
    }
    config = resolve_llm_config(None, {}, environ=env)
    assert config.uses_structured_output and config.requests_per_minute == 60 and not config.cache
    assert config.structured_output == "auto"
    for word, value in (("false", "text"), ("json_object_schema", "json_object_schema"), ("auto", "auto")):
        assert resolve_llm_config(None, {}, environ={**env, "VERITRAIL_STRUCTURED_OUTPUT": word}).structured_output == value
    with pytest.raises(LLMConfigError, match="structured_output"):
        resolve_llm_config(None, {}, environ={**env, "VERITRAIL_STRUCTURED_OUTPUT": "grammar"})


def test_official_openai_needs_a_key_local_servers_do_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY"):
        make_sdk_client(LLMConfig(model="gpt-4o"))
    make_sdk_client(LLMConfig(model="llama", base_url="http://127.0.0.1:8000/v1"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert LLMConfig(model="gpt-4o").resolved_api_key() == "sk-env"
    with pytest.raises(LLMConfigError, match="api_version"):
        make_sdk_client(LLMConfig(model="gpt-4o", provider="azure", base_url="https://x", api_key="k"))


async def test_azure_settings_reach_the_deployment_path(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    root = project(tmp_path, V3_AZURE, dotenv=f"AZURE_KEY=az-secret\nAZURE_ENDPOINT={fake_openai.azure_endpoint}\n")
    config = project_llm_config(root, {"cache": False}, environ={})
    verifier = LLMVerifier.from_config(config)
    assert verifier.client.cache is None
    assert await verifier.decompose("A is red and B is blue") == ["A is red", "B is blue"]
    [request] = fake_openai.requests
    assert request.deployment == "gpt4o-prod"
    assert request.query["api-version"] == ["2024-10-21"]
    assert request.headers["api-key"] == "az-secret"
    assert request.body["response_format"]["type"] == "json_schema"
    await verifier.aclose()


async def test_graphrag_project_settings_drive_an_audit_call(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    settings = V3_OPENAI.replace("model: gpt-4.1\n", f"model: gpt-4.1\n    api_base: {fake_openai.url}\n", 1)
    root = project(tmp_path, settings, dotenv="GRAPHRAG_API_KEY=sk-project\n")
    verifier = LLMVerifier.from_config(project_llm_config(root, {}, environ={}))
    assert await verifier.decompose("A is red") == ["A is red"]
    assert fake_openai.requests[0].headers["authorization"] == "Bearer sk-project"
    assert (root / ".veritrail" / "llm_cache.sqlite").is_file()
    await verifier.aclose()


def test_the_prompt_limit_comes_from_the_setting_a_local_window_or_the_default() -> None:
    from veritrail_graphrag.llm.config import DEFAULT_MAX_INPUT_TOKENS, LONGEST_ANSWER_TOKENS, LLMConfig

    assert LLMConfig(model="m").input_limit == DEFAULT_MAX_INPUT_TOKENS
    local = LLMConfig(model="m", local_model="x.gguf", local_context=8192)
    assert local.prompt_profile == "compact" and local.input_limit == 8192 - LONGEST_ANSWER_TOKENS["compact"]
    paper = local.model_copy(update={"prompts": "paper"})  # its answers are longer: more room held back
    assert paper.input_limit == 8192 - LONGEST_ANSWER_TOKENS["paper"]
    assert LLMConfig(model="m", local_model="x.gguf", max_input_tokens=3000).input_limit == 3000
