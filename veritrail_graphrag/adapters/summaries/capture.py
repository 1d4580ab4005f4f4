"""Turn the LLM calls of a running summarization chain into `SummaryLog` records.

LangChain and LlamaIndex summarizers return only the final summary, but every intermediate
summary passes through an LLM call: its output is a node, and the logged texts that appear
verbatim in its prompt are its inputs. Frameworks insert texts into prompts as they are (at most
re-spaced), so matching is exact after collapsing whitespace. A text found only inside a longer
matched text is not an input of its own: a level-2 prompt that quotes a summary which quotes a
chunk read the summary, not the chunk.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Mapping
from typing import Any

from veritrail_graphrag.adapters.summaries.log_writer import SummaryLog
from veritrail_graphrag.errors import VeriTrailWarning


class UnmatchedPromptWarning(VeriTrailWarning):
    """An LLM call whose prompt contains no logged text was not logged (its inputs are unknown)."""


def normalize(text: str) -> str:
    return " ".join(text.split())


def find_inputs(prompt: str, texts: Mapping[str, str]) -> list[str]:
    """Ids of the texts quoted in `prompt`, in prompt order, dropping texts nested in others."""
    haystack = normalize(prompt)
    spans: list[tuple[int, int, str]] = []
    for node_id, text in texts.items():
        needle = normalize(text)
        if not needle:
            continue
        start = haystack.find(needle)
        while start != -1:
            spans.append((start, start + len(needle), node_id))
            start = haystack.find(needle, start + 1)
    spans.sort(key=lambda span: (span[0], -(span[1] - span[0])))
    kept: list[str] = []
    covered_until = -1
    for _start, end, node_id in spans:
        if end <= covered_until:
            continue
        covered_until = max(covered_until, end)
        if node_id not in kept:
            kept.append(node_id)
    return kept


class SummaryCapture:
    """Logs each (prompt, output) pair as a summary of the logged texts its prompt quotes.

    Log the source chunks first (`log.source(...)`); a call whose prompt quotes nothing logged
    is skipped with an `UnmatchedPromptWarning` and counted in `skipped`. A call reported twice
    (a framework's completion API wrapping its chat API emits both events) is logged once.
    """

    def __init__(self, log: SummaryLog, *, id_prefix: str = "summary-") -> None:
        self.log = log
        self.id_prefix = id_prefix
        self.skipped = 0
        self._count = 0
        self._seen: dict[tuple[tuple[str, ...], str], str] = {}
        self._lock = threading.Lock()

    def record(self, prompt: str, output: str, metadata: Mapping[str, Any] | None = None) -> str | None:
        """Log `output` with the inputs found in `prompt`; returns its id, or None when skipped."""
        with self._lock:
            texts = self.log.texts
            inputs = find_inputs(prompt, texts)
            if not inputs or not output.strip():
                self.skipped += 1
                reason = "its prompt quotes no logged text" if not inputs else "its output is empty"
                warnings.warn(
                    f"{self.log.path}: an LLM call was not logged: {reason}", UnmatchedPromptWarning, stacklevel=3
                )
                return None
            key = (tuple(inputs), output)
            if key in self._seen:
                return self._seen[key]
            node_id = self.log.summary(self._next_id(texts), output, inputs, metadata=metadata)
            self._seen[key] = node_id
            return node_id

    def _next_id(self, texts: Mapping[str, str]) -> str:
        while True:
            self._count += 1
            candidate = f"{self.id_prefix}{self._count}"
            if candidate not in texts:
                return candidate
