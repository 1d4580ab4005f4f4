"""What each prompt profile costs a claim: calls (by kind) and tokens, against the fake OpenAI server
or a local GGUF model, the same claims for both profiles in the same run.

    python benchmarks/prompt_profiles.py                          # the fake server (needs the test extra)
    python benchmarks/prompt_profiles.py --local-model smollm2    # SmolLM2-135M (needs the local extra)
    python benchmarks/prompt_profiles.py --run sample_runs/handwritten-hierarchical/dag.json --claims 5

The claims are the first sentences of the run's final output (by default the global-search answer
of `sample_runs/graphrag-christmas-carol`, stages 1-6; any path `veritrail audit` takes), traced
through its DAG with each profile's default decomposition (paper: the recursion, up to 20 calls a
claim; compact: one round). No answer cache: every call is made. On the fake server the answers
are a word-overlap oracle's, shaped as each profile asks (so the output tokens are the oracle's,
the input tokens the prompts' own); with a local model they are the model's, and a claim whose
answers could not be read after the retries is counted apart ("not verified"). Prints figures and
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
from veritrail_graphrag.audit.options import SourceOptions
from veritrail_graphrag.audit.targets import AuditTarget, audit_target
from veritrail_graphrag.engine.traversal import VeriTrail
from veritrail_graphrag.llm.config import LLMConfig, PromptProfile, resolve_llm_config
from veritrail_graphrag.models import TrailConfig
from veritrail_graphrag.verifiers.llm.profiles import PROFILES
from veritrail_graphrag.verifiers.llm.verifier import LLMVerifier

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_runs" / "graphrag-christmas-carol"


async def run(config: LLMConfig, target: AuditTarget, claims: int) -> dict[str, object]:
    terminal = target.terminals[0]
    chosen = sentence_claims(target.dag, terminal)[:claims]
    verifier = LLMVerifier(config)  # no cache: every call is made
    engine = VeriTrail(verifier, TrailConfig(decomposition_depth=PROFILES[config.prompt_profile].decomposition_depth))
    failed: list[str] = []
    started = time.perf_counter()
    try:
        results = await engine.averify_many(
            target.dag, chosen, terminal, on_error=lambda claim, _: failed.append(claim.id)
        )
    finally:
        await verifier.aclose()
    seconds = time.perf_counter() - started
    total = verifier.usage.report().total
    verdicts = Counter(r.verdict.value for r in results) + Counter({"not verified": len(failed)})
    return {
        "claims": len(chosen),
        "calls": total.calls / len(chosen),
        "kinds": {k: n / len(chosen) for k, n in verifier.usage.report().calls_by_kind.items()},
        "input": total.input_tokens / len(chosen),
        "output": total.output_tokens / len(chosen),
        "seconds": seconds / len(chosen),
        "verdicts": dict(verdicts),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--local-model", help="a GGUF path or smollm2 (default: the fake OpenAI server)")
    parser.add_argument("--run", type=Path, default=SAMPLE, help="what `veritrail audit` takes (default: %(default)s)")
    parser.add_argument("--claims", type=int, default=7)
    args = parser.parse_args()
    target = audit_target(args.run, SourceOptions())
    server: AbstractContextManager[object]
    if args.local_model:
        server = nullcontext()
    else:
        sys.path.insert(0, str(ROOT / "tests"))
        from fake_openai import FakeOpenAI

        server = FakeOpenAI()
    table = Table(title=f"Prompt profiles, {args.local_model or 'fake OpenAI server'}, {args.run}")
    for column in ("profile", "claims", "calls / claim", "by kind, a claim", "input tok / claim", "output tok / claim",
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
            figures = asyncio.run(run(config, target, args.claims))
            kinds = ", ".join(f"{k} {n:.1f}" for k, n in figures["kinds"].items() if n)  # type: ignore[attr-defined]
            table.add_row(
                profile.value, str(figures["claims"]), f"{figures['calls']:.1f}", kinds, f"{figures['input']:,.0f}",
                f"{figures['output']:,.0f}", f"{figures['seconds']:.1f}", str(figures["verdicts"]),
            )  # fmt: skip
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
