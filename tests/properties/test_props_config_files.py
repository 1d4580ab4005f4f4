"""Files users write by hand, mutated: claims and spans files, veritrail.toml and settings.yaml.
Each is read or refused with one short typed line naming it."""

from __future__ import annotations

import math
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from fuzz import damaged_bytes, damaged_json, dump, mutated_json, outcome, reader_settings, write
from hypothesis import given
from hypothesis import strategies as st
from seeds import claim_lists, claims_documents, spans_documents

from veritrail_graphrag.adapters.graphrag.settings_yaml import read_graphrag_settings
from veritrail_graphrag.audit.claims import load_claims
from veritrail_graphrag.cited.inputs import load_claim_list
from veritrail_graphrag.cited.spans import load_spans
from veritrail_graphrag.errors import VeriTrailError
from veritrail_graphrag.llm.config import resolve_llm_config
from veritrail_graphrag.pipeline.settings import load_settings


@reader_settings(fast_examples=50)
@given(damaged_json(claims_documents(), lines=True))
def test_a_claims_file_is_read_or_refused_in_one_line(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        outcome(lambda: load_claims(write(Path(folder) / "claims.json", raw)), Path(folder))


@reader_settings(fast_examples=50)
@given(damaged_json(spans_documents(), lines=True))
def test_a_spans_file_is_read_or_refused_in_one_line(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        outcome(lambda: load_spans(write(Path(folder) / "spans.json", raw)), Path(folder))


@reader_settings(fast_examples=50)
@given(damaged_json(claim_lists()))
def test_a_list_of_claims_to_check_is_read_or_refused_in_one_line(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        outcome(lambda: load_claim_list(write(Path(folder) / "claims.json", raw)), Path(folder))


# --- veritrail.toml and GraphRAG's settings.yaml ---------------------------------------------------

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _toml_string(text: str) -> str:
    escaped = "".join(
        c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"
        for c in text
    )
    return f'"{escaped}"'


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value if v is not None) + "]"
    pairs = (f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items() if v is not None)
    return "{" + ", ".join(pairs) + "}"


def _toml_key(key: str) -> str:
    return key if _BARE.fullmatch(key) else _toml_string(key)


def toml_text(document: Any) -> str:
    """TOML for a document of tables (None left out: TOML has no null); anything else as its repr,
    which is not TOML."""
    if not isinstance(document, dict):
        return repr(document)
    lines = [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in document.items() if not isinstance(v, dict | None)]
    for name, table in document.items():
        if isinstance(table, dict):
            lines.append(f"[{_toml_key(name)}]")
            lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in table.items() if v is not None]
    return "\n".join(lines) + "\n"


VERITRAIL_TOML = {
    "llm": {
        "model": "a-model",
        "base_url": "http://127.0.0.1:9/v1",
        "timeout": 30.0,
        "concurrency": 4,
        "max_attempts": 2,
        "structured_output": "auto",
        "prices": {"a-model": {"input_per_million": 0.5, "output_per_million": 1.5}},
    },
    "audit": {
        "verifier": "lexical",
        "q": 2,
        "reports": 5,
        "communities": [1, 2],
        "fail_on_unsupported": True,
        "max_stage_rate": ["4=0.2"],
    },
}
SETTINGS_YAML = [
    {  # 3.x
        "completion_models": {
            "default_completion_model": {"model_provider": "openai", "model": "a-model", "api_base": "http://h/v1"}
        },
        "concurrent_requests": 4,
        "output_storage": {"type": "file", "base_dir": "output"},
    },
    {  # 1.x and 2.x
        "models": {"default_chat_model": {"type": "openai_chat", "model": "a-model", "api_key": "${KEY}"}},
        "global_search": {"chat_model_id": "default_chat_model"},
        "output": {"base_dir": "output"},
    },
    {"llm": {"type": "azure_openai_chat", "model": "a-model", "deployment_name": "d", "max_retries": 3}},  # 0.x
]


@st.composite
def project_files(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """veritrail.toml and settings.yaml of one project, either or both mutated or damaged."""
    toml_doc, yaml_doc = VERITRAIL_TOML, draw(st.sampled_from(SETTINGS_YAML))
    if draw(st.booleans()):
        toml_doc = draw(mutated_json(toml_doc))
    if draw(st.booleans()):
        yaml_doc = draw(mutated_json(yaml_doc))
    toml_raw = toml_text(toml_doc).encode("utf-8", "surrogatepass")
    yaml_raw = yaml.safe_dump(yaml_doc, allow_unicode=True).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 5)) == 0:
        toml_raw = draw(damaged_bytes(toml_raw))
    if draw(st.integers(0, 5)) == 0:
        yaml_raw = draw(damaged_bytes(yaml_raw))
    return toml_raw, yaml_raw


def _llm_settings(root: Path) -> object:
    project = read_graphrag_settings(root, {})
    return resolve_llm_config(root, environ={}, project=project, defaults={"model": "fallback-model"})


@reader_settings(fast_examples=60)
@given(project_files())
def test_project_settings_are_read_or_refused_in_one_line(files: tuple[bytes, bytes]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write(root / "veritrail.toml", files[0])
        write(root / "settings.yaml", files[1])
        outcome(lambda: _llm_settings(root), root)
        outcome(lambda: load_settings(root), root)


HUGE = "x" * 100_000
MODEL = {"model": "a-model"}
REGRESSIONS: dict[str, tuple[str, bytes]] = {  # failures the properties found, kept as plain examples
    "models as a text": ("settings.yaml", b"models: some text\n"),
    "a chat model id that is a mapping": (
        "settings.yaml",
        yaml.safe_dump({"models": {"m": MODEL}, "global_search": {"chat_model_id": {"a": 1}}}).encode(),
    ),
    "a NUL in settings.yaml": ("settings.yaml", b"models:\x00\n"),
    "a retry count of infinity": (
        "settings.yaml",
        b"models:\n  m:\n    model: a-model\n    max_retries: .inf\n    request_timeout: [1]\n    type: 7\n",
    ),
    "prices as a text": ("veritrail.toml", toml_text({"llm": {"prices": "cheap"}}).encode()),
    "a price that is a list": ("veritrail.toml", toml_text({"llm": {"prices": {"m": {"input_per_million": [1]}}}}).encode()),
    "a 100 kB timeout": ("veritrail.toml", toml_text({"llm": {"timeout": HUGE}}).encode()),
    "a 100 kB setting name": ("veritrail.toml", toml_text({"llm": {HUGE: 1}}).encode()),
    "an empty model": ("veritrail.toml", toml_text({"llm": {"model": ""}}).encode()),
    "a 100 kB audit option": ("veritrail.toml", toml_text({"audit": {"q": HUGE}}).encode()),
    "a 100 kB stage rate in audit": ("veritrail.toml", toml_text({"audit": {"max_stage_rate": [HUGE]}}).encode()),
    "a 100 kB claim id": ("claims.json", dump([{"id": HUGE, "text": 3}])),
    "repeated 100 kB claim ids": ("claims.json", dump([{"id": HUGE, "text": "A."}, {"id": HUGE, "text": "A."}])),
    "a 100 kB span id": ("spans.json", dump([{"sid": {HUGE: 1}, "text": "A."}])),
}


@pytest.mark.parametrize("name", REGRESSIONS)
def test_found_failures_stay_fixed(tmp_path: Path, name: str) -> None:
    """Each was a crash or a line of 100 kB; now a result or one short line (`outcome` checks)."""
    file_name, raw = REGRESSIONS[name]
    path = write(tmp_path / file_name, raw)
    if file_name.endswith(".json"):
        outcome(lambda: (load_claims if file_name == "claims.json" else load_spans)(path), tmp_path)
    elif "audit" in name:
        outcome(lambda: load_settings(tmp_path), tmp_path)
    else:
        outcome(lambda: _llm_settings(tmp_path), tmp_path)


def test_a_long_claims_file_in_json_lines_is_read_in_one_pass(tmp_path: Path) -> None:
    """Found by the long profile: each line was found by splitting the whole file again, so a
    20 MB file of JSON lines took minutes (`outcome` stops a reader at 60 s)."""
    lines = [dump({"id": f"c{i}", "text": "x" * 10_000}) for i in range(2_000)]
    path = write(tmp_path / "claims.jsonl", b"\n".join([*lines, b"{not json"]))
    assert isinstance(outcome(lambda: load_claims(path), tmp_path), VeriTrailError)
