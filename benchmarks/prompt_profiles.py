"""What each prompt profile costs a claim: calls (by kind) and tokens, against the fake OpenAI server
or a local GGUF model, the same claims for both profiles in the same run.

    python benchmarks/prompt_profiles.py                          # the fake server (needs the test extra)
    python benchmarks/prompt_profiles.py --local-model smollm2    # SmolLM2-135M (needs the local extra)

The claims are the sentences of the final summary of `sample_runs/handwritten-hierarchical`, traced
through its DAG with each profile's default decomposition (paper: the recursion, up to 20 calls a
claim; compact: one round). No answer cache: every call is made. On the fake server the answers
are a word-overlap oracle's, shaped as each profile asks (so the output tokens are the oracle's,
the input tokens the prompts' own); with a local model they are the model's. Prints figures and
asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from rich.console import Console
from rich.table import Table

from veritrail_graphrag.audit.claims import sentence_claims
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.traversal import VeriTrail
from veritrail_graphrag.llm.config import LLMConfig, PromptProfile, resolve_llm_config
from veritrail_graphrag.models import TrailConfig
from veritrail_graphrag.verifiers.llm.profiles import PROFILES
from veritrail_graphrag.verifiers.llm.verifier import LLMVerifier

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_runs" / "handwritten-hierarchical" / "dag.json"


async def run(config: LLMConfig, dag: DAG, claims: int) -> dict[str, object]:
    chosen = sentence_claims(dag, "final")[:claims]
    verifier = LLMVerifier(config)  # no cache: every call is made
    engine = VeriTrail(verifier, TrailConfig(decomposition_depth=PROFILES[config.prompt_profile].decomposition_depth))
    started = time.perf_counter()
    try:
        results = await engine.averify_many(dag, chosen, "final")
    finally:
        await verifier.aclose()
    seconds = time.perf_counter() - started
    total = verifier.usage.report().total
    return {
        "claims": len(results),
        "calls": total.calls / len(results),
        "kinds": verifier.usage.report().calls_by_kind,
        "input": total.input_tokens / len(results),
        "output": total.output_tokens / len(results),
        "seconds": seconds / len(results),
        "verdicts": dict(Counter(r.verdict.value for r in results)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--local-model", help="a GGUF path or smollm2 (default: the fake OpenAI server)")
    parser.add_argument("--claims", type=int, default=3)
    args = parser.parse_args()
    dag = DAG.from_json(SAMPLE)
    server: AbstractContextManager[object]
    if args.local_model:
        server = nullcontext()
    else:
        sys.path.insert(0, str(ROOT / "tests"))
        from fake_openai import FakeOpenAI

        server = FakeOpenAI()
    table = Table(title=f"Prompt profiles, {args.local_model or 'fake OpenAI server'}, {SAMPLE.parent.name}")
    for column in ("profile", "claims", "calls / claim", "by kind", "input tok / claim", "output tok / claim",
                   "s / claim", "verdicts"):  # fmt: skip
        table.add_column(column)
    with server as fake:
        for profile in PromptProfile:
            endpoint = (
                {"local_model": args.local_model}
                if args.local_model
                else {"model": "fake", "base_url": fake.url, "api_key": "not-a-real-key"}  # type: ignore[attr-defined]
            )
            config = resolve_llm_config(None, {**endpoint, "prompts": profile, "cache": False}, environ={})
            figures = asyncio.run(run(config, dag, args.claims))
            kinds = ", ".join(f"{k} {n}" for k, n in figures["kinds"].items() if n)  # type: ignore[attr-defined]
            table.add_row(
                profile.value, str(figures["claims"]), f"{figures['calls']:.1f}", kinds, f"{figures['input']:,.0f}",
                f"{figures['output']:,.0f}", f"{figures['seconds']:.1f}", str(figures["verdicts"]),
            )  # fmt: skip
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
