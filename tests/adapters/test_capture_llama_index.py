"""LlamaIndex capture: hierarchical merging and TreeSummarize run on LlamaIndex's MockLLM, offline."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.llms import MockLLM
from llama_index.core.response_synthesizers import TreeSummarize

from veritrail_graphrag.adapters.summaries import SummaryLog, read_summary_log
from veritrail_graphrag.adapters.summaries.llama_index import capture_llama_index

CHUNKS = [
    "Marley was dead, to begin with.",
    "Scrooge kept the coal-box in his own room.",
    "The nephew wished his uncle a merry Christmas.",
    "Two portly gentlemen asked for a donation for the poor.",
]


def test_hierarchical_merging_with_an_echoing_model(tmp_path: Path) -> None:
    """MockLLM echoes its prompt, so every summary quotes its inputs and theirs: only the
    outermost quotation counts as an input."""
    path = tmp_path / "run.jsonl"
    llm = MockLLM()
    with SummaryLog(path) as log:
        for i, chunk in enumerate(CHUNKS):
            log.source(f"chunk-{i}", chunk)
        with capture_llama_index(log) as handler:
            left = llm.complete("Summarize:\n" + "\n".join(CHUNKS[:2])).text
            right = llm.complete("Summarize:\n" + "\n".join(CHUNKS[2:])).text
            llm.complete(f"Merge these summaries:\n{left}\n\n{right}")
    assert handler not in get_dispatcher().event_handlers
    dag = read_summary_log(path)
    assert dag.stages() == {1: 4, 2: 2, 3: 1}
    assert sorted(dag.src("summary-1")) == ["chunk-0", "chunk-1"]
    assert sorted(dag.src("summary-3")) == ["summary-1", "summary-2"]
    assert dag.terminal == "summary-3"


def test_tree_summarize_is_captured(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with SummaryLog(path) as log:
        for i, chunk in enumerate(CHUNKS):
            log.source(f"chunk-{i}", chunk)
        with capture_llama_index(log):
            response = TreeSummarize(llm=MockLLM(max_tokens=6)).get_response("What happens?", CHUNKS)
    dag = read_summary_log(path)
    assert dag.node(dag.terminal).text == str(response)
    assert sorted(dag.src(dag.terminal)) == [f"chunk-{i}" for i in range(4)]


def test_calls_outside_the_block_are_not_logged(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with SummaryLog(path) as log:
        log.source("chunk-0", CHUNKS[0])
        with capture_llama_index(log):
            pass
        MockLLM().complete(CHUNKS[0])
    assert len(read_summary_log(path)) == 1
