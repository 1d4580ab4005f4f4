"""A LlamaIndex event handler that logs a summarization pipeline's LLM calls as it runs.

    with SummaryLog("run.jsonl") as log:
        for node in nodes:
            log.source(node.node_id, node.get_content())
        with capture_llama_index(log):
            summary = index.as_query_engine(response_mode="tree_summarize").query(...)

It listens on LlamaIndex's instrumentation dispatcher (every LLM's completion and chat events).
Needs the optional `llama-index-core` package.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from veritrail_graphrag.adapters.summaries.capture import SummaryCapture
from veritrail_graphrag.adapters.summaries.log_writer import SummaryLog

try:
    from llama_index.core.instrumentation import get_dispatcher
    from llama_index.core.instrumentation.event_handlers import BaseEventHandler
    from llama_index.core.instrumentation.events import BaseEvent
    from llama_index.core.instrumentation.events.llm import LLMChatEndEvent, LLMCompletionEndEvent
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "the LlamaIndex capture helper needs llama-index-core: pip install 'veritrail-graphrag[llama-index]'"
    ) from exc


class SummaryLogEventHandler(BaseEventHandler):
    """Logs each finished LLM call whose prompt quotes logged texts (see `capture.py`)."""

    capture: SummaryCapture

    @classmethod
    def class_name(cls) -> str:
        return "SummaryLogEventHandler"

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        if isinstance(event, LLMCompletionEndEvent):
            self.capture.record(event.prompt, event.response.text, metadata={"span_id": event.span_id})
        elif isinstance(event, LLMChatEndEvent) and event.response is not None:
            prompt = "\n\n".join(message.content or "" for message in event.messages)
            output = event.response.message.content or ""
            self.capture.record(prompt, output, metadata={"span_id": event.span_id})


@contextmanager
def capture_llama_index(log: SummaryLog, *, id_prefix: str = "summary-") -> Iterator[SummaryLogEventHandler]:
    """Log LLM calls made inside the block; the handler is removed again on exit."""
    dispatcher = get_dispatcher()
    handler = SummaryLogEventHandler(capture=SummaryCapture(log, id_prefix=id_prefix))
    dispatcher.add_event_handler(handler)
    try:
        yield handler
    finally:
        dispatcher.event_handlers.remove(handler)
