"""A LangChain callback handler that logs a summarization chain's LLM calls as it runs.

    with SummaryLog("run.jsonl") as log:
        for i, doc in enumerate(docs):
            log.source(f"chunk-{i}", doc.page_content)
        chain.invoke(..., config={"callbacks": [SummaryLogCallbackHandler(log)]})

Needs the optional `langchain-core` package.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from veritrail_graphrag.adapters.summaries.capture import SummaryCapture
from veritrail_graphrag.adapters.summaries.log_writer import SummaryLog

try:
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.messages import BaseMessage
    from langchain_core.outputs import LLMResult
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "the LangChain capture helper needs langchain-core: pip install 'veritrail-graphrag[langchain]'"
    ) from exc


def _message_text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    parts = [part if isinstance(part, str) else str(part.get("text", "")) for part in content]
    return "\n".join(p for p in parts if p)


class SummaryLogCallbackHandler(BaseCallbackHandler):
    """Logs every completed LLM call whose prompt quotes logged texts (see `capture.py`).

    Calls may run concurrently (`batch`), so prompts are kept per run id until their result.
    Failed calls are forgotten: they produced no text.
    """

    def __init__(self, log: SummaryLog, *, id_prefix: str = "summary-") -> None:
        super().__init__()
        self.capture = SummaryCapture(log, id_prefix=id_prefix)
        self._prompts: dict[UUID, list[str]] = {}
        self._lock = threading.Lock()

    def on_llm_start(self, serialized: dict[str, Any], prompts: list[str], *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            self._prompts[run_id] = list(prompts)

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        **kwargs: Any,
    ) -> None:
        with self._lock:
            self._prompts[run_id] = ["\n\n".join(_message_text(m) for m in conversation) for conversation in messages]

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            prompts: Sequence[str] = self._prompts.pop(run_id, [])
        for prompt, generations in zip(prompts, response.generations, strict=False):
            if generations:
                self.capture.record(prompt, generations[0].text, metadata={"run_id": str(run_id)})

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            self._prompts.pop(run_id, None)
