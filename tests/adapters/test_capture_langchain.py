"""LangChain capture: a map-reduce summary chain run on LangChain's own fake LLMs, offline."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("langchain_core")

from langchain_core.language_models.fake import FakeListLLM
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.prompts import ChatPromptTemplate, PromptTemplate

from veritrail_graphrag.adapters.summaries import SummaryLog, read_summary_log
from veritrail_graphrag.adapters.summaries.capture import UnmatchedPromptWarning, find_inputs
from veritrail_graphrag.adapters.summaries.langchain import SummaryLogCallbackHandler

CHUNKS = [
    "Marley was dead, to begin with.",
    "Scrooge kept the coal-box in his own room.",
    "The nephew wished his uncle a merry Christmas.",
    "Two portly gentlemen asked for a donation for the poor.",
]


def test_map_reduce_chain_becomes_a_three_stage_dag(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    llm = FakeListLLM(responses=["Marley is dead and Scrooge is mean.", "Scrooge rebuffs nephew and charity."])
    reducer = FakeListLLM(responses=["Scrooge, mean after Marley's death, rebuffs everyone."])
    map_prompt = PromptTemplate.from_template("Summarize this part of a story:\n\n{text}")
    reduce_prompt = PromptTemplate.from_template("Merge these summaries:\n\n{text}")
    with SummaryLog(path) as log:
        for i, chunk in enumerate(CHUNKS):
            log.source(f"chunk-{i}", chunk)
        config = {"callbacks": [SummaryLogCallbackHandler(log)], "max_concurrency": 1}
        partials = (map_prompt | llm).batch(
            [{"text": "\n\n".join(CHUNKS[:2])}, {"text": "\n\n".join(CHUNKS[2:])}], config
        )
        final = (reduce_prompt | reducer).invoke({"text": "\n\n".join(partials)}, config)
    dag = read_summary_log(path)
    assert dag.stages() == {1: 4, 2: 2, 3: 1}
    assert dag.node(dag.terminal).text == final
    assert dag.node(dag.terminal).kind == "final_summary"
    by_text = {node.text: node.id for node in dag}
    assert sorted(dag.src(by_text[partials[0]])) == ["chunk-0", "chunk-1"]
    assert sorted(dag.src(by_text[partials[1]])) == ["chunk-2", "chunk-3"]
    assert sorted(dag.src(dag.terminal)) == sorted(by_text[p] for p in partials)
    assert "run_id" in dag.node(dag.terminal).metadata


def test_chat_models_are_captured_too(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    chat = FakeListChatModel(responses=["Scrooge is mean and Marley is dead."])
    prompt = ChatPromptTemplate.from_messages([("system", "You summarize stories."), ("human", "{text}")])
    with SummaryLog(path) as log:
        log.source("chunk-0", CHUNKS[0])
        log.source("chunk-1", CHUNKS[1])
        (prompt | chat).invoke({"text": f"{CHUNKS[0]}\n{CHUNKS[1]}"}, {"callbacks": [SummaryLogCallbackHandler(log)]})
    dag = read_summary_log(path)
    assert sorted(dag.src(dag.terminal)) == ["chunk-0", "chunk-1"]


def test_calls_that_quote_no_logged_text_are_skipped_with_a_warning(tmp_path: Path) -> None:
    with SummaryLog(tmp_path / "run.jsonl") as log:
        log.source("chunk-0", CHUNKS[0])
        handler = SummaryLogCallbackHandler(log)
        with pytest.warns(UnmatchedPromptWarning, match="quotes no logged text"):
            FakeListLLM(responses=["Hello."]).invoke("Say hello.", {"callbacks": [handler]})
    assert handler.capture.skipped == 1
    assert list(log.texts) == ["chunk-0"]


def test_a_text_nested_in_a_quoted_summary_is_not_an_input() -> None:
    texts = {"c1": "Marley was dead.", "c2": "Scrooge was mean.", "s1": "Summary: Marley was dead. Scrooge was mean."}
    assert find_inputs("Merge:\nSummary:  Marley was dead.\nScrooge was mean.", texts) == ["s1"]
    assert find_inputs("Scrooge was mean. and Marley was dead.", texts) == ["c2", "c1"]
    assert find_inputs("Nothing here.", texts) == []
