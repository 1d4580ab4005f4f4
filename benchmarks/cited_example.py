"""The cited-answer check's figures in the manual (docs/cited.md), measured again.

    python benchmarks/cited_example.py

The worked example (`tests/cited_oracle.py`: four spans, eight claims) is checked with
`require_citations=True` against the tests' fake OpenAI server answering from the scripted
oracle, which reports as cached the longest prompt prefix it saw before, as an endpoint's prompt
cache would. Prints the example's table (status, P(YES) before and after, the gap in bits), the
calls and the prompt tokens not seen before in modes `cited` and `all`, a re-run's calls, and the
calls against an endpoint without log-probabilities. Then what the non-evidence rule removes from
the bundled sample's index: the community reports' headings, the text units' questions and
commands, and the descriptions'. Last, the bundled sample's saved query run (seven claims citing
community reports) checked like `veritrail check-cited sample_runs/graphrag-christmas-carol`, with
a scripted model that judges by words (YES when the spans shown hold 60% of the claim's content
words, the share at which the tests' overlap oracle selects evidence; else UNSURE): each claim's
status, the calls, and the prompt tokens an endpoint's prompt cache would have held.
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

from cited_oracle import ANSWER, SPANS, UNSURE, YES, entailment_oracle, visible_spans
from fake_openai import FakeOpenAI, PromptView, Scored, content_words
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli

from veritrail_graphrag import CitedCheckReport, adetect_hallucination
from veritrail_graphrag.adapters.graphrag import read_index
from veritrail_graphrag.cited.non_evidence import kind
from veritrail_graphrag.llm.config import LLMConfig

WORD_SHARE = 0.6


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


def word_judge(request: dict[str, Any]) -> Scored:
    """YES when the spans shown hold `WORD_SHARE` of the claim's content words; UNSURE otherwise
    (also when the spans are withheld), so a claim passes only when its citations carry its words."""
    view = PromptView.of(request)
    words = content_words(view.claim)
    shown = set().union(*map(content_words, visible_spans(view).values()))
    return YES if words and len(words & shown) >= WORD_SHARE * len(words) else UNSURE


def sample_query_run() -> None:
    with tempfile.TemporaryDirectory() as work, FakeOpenAI(word_judge, prompt_cache=True) as server:
        out = Path(work) / "check-cited.json"
        env = {"VERITRAIL_BASE_URL": server.url, "VERITRAIL_API_KEY": "not-a-key", "VERITRAIL_CACHE": "false"}
        root = ROOT / "sample_runs" / "graphrag-christmas-carol"
        result = CliRunner().invoke(cli.app, ["check-cited", str(root), "--out", str(out)], env=env)
        if result.exit_code != 0:
            raise SystemExit(f"check-cited failed ({result.exit_code}):\n{result.output}")
        report = CitedCheckReport.model_validate_json(out.read_text())
    for d in report.details:
        print(f"{d.idx}: {d.status.value} (cites {', '.join(d.cites) or '-'}): {d.claim}")
    usage = report.summary.usage
    assert usage is not None
    print(f"sample query run: {Counter(d.status.value for d in report.details)}; {usage.calls} calls, "
          f"{usage.cached_input_tokens:,} of {usage.input_tokens:,} prompt tokens reused")  # fmt: skip


if __name__ == "__main__":
    asyncio.run(worked_example())
    sample_non_evidence()
    sample_query_run()
