"""A corrupt or hostile index: one text unit of the sample grown to 2 MB, audited by the LLM verifier.

What it shows, for the audit of `sample_runs/graphrag-christmas-carol` against the tests' fake
OpenAI server with `max_input_tokens` set (default 8,000, the window of many GGUFs):
- the largest prompt sent, in tokens (tiktoken's cl100k_base when its vocabulary is at hand, else characters / 4),
  against the limit: none may be above it;
- report.json's size and the audit's peak RSS, with the text unit at its real size and at 2 MB
  (targets: under 20 MB and 1.5 GB): the report grows with the work, not with the texts;
- the text unit grown is one the trails of the normal audit read, so the big text is really used.

    python benchmarks/oversized_text.py [--size-mb 2] [--max-input-tokens 8000]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fake_openai import Answer, FakeOpenAI, PromptView, overlap_oracle

from veritrail_graphrag import AuditReport

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "graphrag-christmas-carol"
REPORT = Path("audit/report.json")  # under the copy, by --out: where reports go depends on the layout


def reaching_the_source(request: dict) -> Answer:
    """The fake model, made generous (a fifth of a claim's words select a sentence; every verdict
    Fully Supported) so that trails go down to the text units, where the big text is."""
    view = PromptView.of(request)
    answer = overlap_oracle(view, share=0.2)
    if view.task == "verdict generation":
        answer = {**answer, "verdict": "Fully Supported"}
    return answer


def count_tokens() -> tuple[str, object]:
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base")
    except Exception:  # not installed, or its vocabulary is not cached and there is no network
        return "characters / 4", lambda text: (len(text) + 3) // 4
    return "cl100k_base", lambda text: len(encoding.encode(text, disallowed_special=()))


def audit(root: Path, server: FakeOpenAI, max_input_tokens: int) -> tuple[int, float, int]:
    """(report.json bytes, peak RSS in MB of the audit process, exit code)."""
    (root / "settings.yaml").write_text(
        "completion_models:\n  default_completion_model:\n    model_provider: openai\n"
        f"    model: bench-model\n    api_base: {server.url}\n    api_key: not-a-real-key\n"
    )
    env = {**os.environ, "VERITRAIL_MAX_INPUT_TOKENS": str(max_input_tokens), "VERITRAIL_CACHE": "false"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    command = [sys.executable, "-m", "veritrail_graphrag", "audit", str(root), "--verifier", "llm", "--no-resume"]
    done = subprocess.run(
        [*command, "--out", str(root / REPORT.parent)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    peak = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    if done.returncode not in (0, 3):
        sys.exit(f"audit failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return (root / REPORT).stat().st_size, peak, done.returncode


def roots_read(root: Path) -> list[str]:
    """Text-unit ids whose sentences the audit showed to Evidence Selection, most often first."""
    seen: dict[str, int] = {}
    for result in AuditReport.load(root / REPORT).results:
        for iteration in result.iterations:
            for node_id in iteration.checked:
                if node_id.startswith("text_unit:"):
                    seen[node_id] = seen.get(node_id, 0) + 1
    return sorted(seen, key=seen.__getitem__, reverse=True)


def grow(root: Path, node_id: str, size: int) -> None:
    path = root / "output" / "text_units.parquet"
    table = pd.read_parquet(path)
    row = table.index[table["human_readable_id"].astype(str) == node_id.removeprefix("text_unit:")][0]
    text = table.at[row, "text"]
    table.at[row, "text"] = (text + " ") * (size // (len(text) + 1) + 1)
    table.to_parquet(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=float, default=2.0)
    parser.add_argument("--max-input-tokens", type=int, default=8000)
    args = parser.parse_args()
    counter_name, tokens = count_tokens()
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(responder=reaching_the_source) as server:
        root = Path(tmp) / "carol"
        shutil.copytree(SAMPLE, root)
        rows = []
        for label in ("real size", f"{args.size_mb:g} MB text unit"):
            if label != "real size":
                read = roots_read(root)
                if not read:
                    sys.exit("the normal audit read no text unit: nothing to grow")
                grow(root, read[0], int(args.size_mb * 1_000_000))
            server.reset()
            size, peak, code = audit(root, server, args.max_input_tokens)
            prompts = ["\n".join(m["content"] for m in r.body["messages"]) for r in server.requests]
            largest = max(map(tokens, prompts))
            rows.append((label, len(prompts), largest, size / 1e6, peak, code))
    print(f"max_input_tokens = {args.max_input_tokens:,}; tokens counted with {counter_name}")
    print(f"{'text unit':<20} {'calls':>6} {'largest prompt':>15} {'report.json MB':>15} {'peak RSS MB':>12} {'exit':>5}")
    for label, calls, largest, mb, peak, code in rows:
        print(f"{label:<20} {calls:>6} {largest:>15,} {mb:>15.2f} {peak:>12.0f} {code:>5}")
    if any(largest > args.max_input_tokens for _, _, largest, *_ in rows):
        sys.exit("a prompt was over the limit")


if __name__ == "__main__":
    main()
