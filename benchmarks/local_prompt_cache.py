"""What the local model server's prompt cache (`--cache`, see llm/local_server.py) buys and costs.

    python benchmarks/local_prompt_cache.py [--model smollm2] [--prompts 10] [--repeat 9 6]

Two servers for the same GGUF, one after the other: the one `--local-model` starts (prompt cache
on, `serve_local_model`) and the same `python -m llama_cpp.server` without `--cache`. Each is
asked ten different prompts (a text unit of the bundled sample each, about 1,300 tokens), then
two of them again, in this order: the ninth, whose state a 128 MB cache still holds (what the
cache is for: a prompt asked again a few prompts later), and the sixth, whose state the four
prompts after it pushed out (a prompt asked again too late is computed anew). An answer is one
short sentence, so the time is the prompt's. Prints each server's seconds per new prompt
(median), each repeat's seconds, the prompt's size in the model's tokens (the server's usage)
and the server's peak memory (VmHWM). Needs the `local` extra. The times are only comparable
within one run: state the machine's load beside them.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
from openai import OpenAI

from veritrail_graphrag.llm.local_server import _answers, _free_port, resolve_model_path, serve_local_model

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "graphrag-christmas-carol"
INSTRUCTION = "Say in one sentence who appears in the passage."


def _peak_mb(pid: int) -> float:
    """The process's peak resident memory (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM for process {pid}")


@contextlib.contextmanager
def _plain_server(path: Path, n_ctx: int) -> Iterator[tuple[str, int]]:
    """The same server without a prompt cache: (base URL, pid)."""
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--host", "127.0.0.1",
               "--port", str(port), "--model_alias", "plain", "--n_ctx", str(n_ctx)]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not _answers(base_url):
            if process.poll() is not None:
                raise SystemExit(f"the server without a cache exited with code {process.returncode}")
            time.sleep(0.2)
        yield base_url, process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)


def _ask(client: OpenAI, model: str, passage: str) -> tuple[float, int]:
    """(seconds, prompt tokens) of one request."""
    started = time.perf_counter()
    answer = client.chat.completions.create(
        model=model,
        messages=[{"role": "system", "content": INSTRUCTION}, {"role": "user", "content": passage}],
        max_tokens=16,
        temperature=0.0,
    )
    assert answer.usage is not None
    return time.perf_counter() - started, answer.usage.prompt_tokens


def _measure(base_url: str, model: str, pid: int, passages: list[str], repeats: list[int]) -> str:
    client = OpenAI(base_url=base_url, api_key="not-a-key", timeout=900)
    times, sizes = zip(*(_ask(client, model, passage) for passage in passages), strict=True)
    agains = [
        f"prompt {repeat} again {_ask(client, model, passages[repeat - 1])[0]:.1f} s "
        f"(first time {times[repeat - 1]:.1f} s)"
        for repeat in repeats
    ]
    return (
        f"new prompts {statistics.median(times):.1f} s (median; {min(sizes):,}-{max(sizes):,} tokens), "
        f"{', '.join(agains)}, peak memory {_peak_mb(pid):,.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="smollm2", help="a GGUF path, or smollm2 (the bundled model)")
    parser.add_argument("--prompts", type=int, default=10, help="different prompts before the repeats")
    parser.add_argument(
        "--repeat",
        type=int,
        nargs="+",
        help="which of them are asked again, in this order (default: the second-last, still cached, "
        "then the fifth-last, evicted)",
    )
    parser.add_argument("--n-ctx", type=int, default=8192)
    args = parser.parse_args()
    repeats = args.repeat or [args.prompts - 1, args.prompts - 4]
    if not all(1 <= repeat <= args.prompts for repeat in repeats):
        parser.error(f"--repeat takes numbers from 1 to --prompts ({args.prompts})")
    units = pd.read_parquet(SAMPLE / "output" / "text_units.parquet")
    passages = units.sort_values("human_readable_id")["text"].head(args.prompts).tolist()
    print(f"load average before: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    with serve_local_model(args.model, n_ctx=args.n_ctx) as server:
        assert server.pid is not None
        print(f"prompt cache on:  {_measure(server.base_url, server.alias, server.pid, passages, repeats)}")
    with _plain_server(resolve_model_path(args.model), args.n_ctx) as (base_url, pid):
        print(f"prompt cache off: {_measure(base_url, 'plain', pid, passages, repeats)}")
    print(f"load average after: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")


if __name__ == "__main__":
    main()
