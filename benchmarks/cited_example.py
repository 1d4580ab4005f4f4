"""The cited-answer check's figures in the manual (docs/cited.md), measured again.

    python benchmarks/cited_example.py

The worked example (`tests/cited_oracle.py`: four spans, eight claims) is checked with
`require_citations=True` against the tests' fake OpenAI server answering from the scripted
oracle, which reports as cached the longest prompt prefix it saw before, as an endpoint's prompt
cache would. Prints the example's table (status, P(YES) before and after, the gap in bits), the
calls and the prompt tokens not seen before in modes `cited` and `all`, a re-run's calls, and the
calls against an endpoint without log-probabilities. Then what the non-evidence rule removes from
the bundled sample's index: the community reports' headings, the text units' questions and
commands, and the descriptions'.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from cited_oracle import ANSWER, SPANS, entailment_oracle
from fake_openai import FakeOpenAI

from veritrail_graphrag import CitedCheckReport, adetect_hallucination
from veritrail_graphrag.adapters.graphrag import read_index
from veritrail_graphrag.cited.non_evidence import kind
from veritrail_graphrag.llm.config import LLMConfig


async def _check(server: FakeOpenAI, cache: Path | None, **options: Any) -> CitedCheckReport:
    llm = LLMConfig(model="gpt-4o-mini", base_url=server.url, api_key="not-a-real-key", max_attempts=2,
                    backoff_base=0.0, cache=cache is not None, cache_path=cache)  # fmt: skip
    return await adetect_hallucination(ANSWER, SPANS, llm=llm, require_citations=True, **options)


def _interval(value: Any) -> str:
    if value is None:
        return "-"
    low, high = round(value.min, 2), round(value.max, 2)
    return f"{low:.2f}" if low == high else f"{low:.2f}..{high:.2f}"


def _usage(report: CitedCheckReport) -> str:
    usage = report.summary.usage
    assert usage is not None
    return f"{usage.calls} calls, {usage.input_tokens - usage.cached_input_tokens} prompt tokens not seen before"


async def worked_example() -> None:
    with tempfile.TemporaryDirectory() as work:
        with FakeOpenAI(entailment_oracle(), prompt_cache=True) as server:
            report = await _check(server, Path(work) / "cache.sqlite")
            print("| # | claim | cites | status | P(yes) prior | P(yes) post | gap (bits) |")
            for d in report.details:
                gap = "-" if d.budget_gap is None else _interval(d.budget_gap)
                cites = ", ".join(d.cites) or "-"
                print(f"| {d.idx} | {d.claim} | {cites} | {d.status.value} | {_interval(d.prior_yes)} | "
                      f"{_interval(d.post_yes)} | {gap} |")  # fmt: skip
            print(f"mode cited: {_usage(report)}")
            again = await _check(server, Path(work) / "cache.sqlite")
            print(f"re-run: {again.summary.usage.calls} calls, {again.summary.usage.cached_calls} from the cache")
        with FakeOpenAI(entailment_oracle(), prompt_cache=True) as server:
            print(f"mode all: {_usage(await _check(server, None, context_mode='all'))}")
        with FakeOpenAI(entailment_oracle(), logprobs=False) as server:
            await _check(server, None)
            print(f"without log-probabilities: {server.count} calls")


def sample_non_evidence() -> None:
    dag = read_index(ROOT / "sample_runs" / "graphrag-christmas-carol")
    sentences: Counter[str] = Counter()
    removed: Counter[tuple[str, str]] = Counter()
    for node in dag:
        for sentence in dag.sentences(node.id):
            sentences[node.kind] += 1
            found = kind(sentence.text)
            if found is not None:
                removed[node.kind, found.value] += 1
    for node_kind, total in sorted(sentences.items()):
        parts = ", ".join(f"{n} {what}" for (k, what), n in sorted(removed.items()) if k == node_kind) or "nothing"
        print(f"{node_kind}: {total} sentences; removed: {parts}")


if __name__ == "__main__":
    asyncio.run(worked_example())
    sample_non_evidence()
