"""A scripted completion model that lets GraphRAG 3.3 index and answer a global query offline.

GraphRAG's own `mock` model replays a fixed list of answers in call order, which cannot survive
concurrent calls and does not stream (global search's reduce step always streams). This model
reads which of GraphRAG's default prompts it was given, and for the extraction prompt which
document, and answers with the texts below in the formats GraphRAG parses: delimited
entity/relationship tuples, the community-report JSON, the map step's `{"points": [...]}`.
Every call is kept in `ScriptedCompletion.calls` so a test can check what a step was shown.

The corpus is tests/data/graphrag_tiny: Mira Vell's rescue (lighthouse.txt) and the pier named
after her (council.txt). MIRA VELL appears in both documents, so her description is summarized
(stage 3); the reduce answer plants one claim no document supports (the royal medal).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, ClassVar

from graphrag_llm.completion import LLMCompletion, register_completion
from graphrag_llm.types import (
    LLMChoiceChunk,
    LLMChoiceDelta,
    LLMCompletionChunk,
    LLMCompletionResponse,
)
from graphrag_llm.utils import create_completion_response, structure_completion_response

SCRIPTED_TYPE = "veritrail_scripted"

EXTRACTIONS = {
    "schooner Gull": (
        '("entity"<|>MIRA VELL<|>PERSON<|>Mira Vell kept the Eldmouth lighthouse for twelve years and rescued '
        "the six sailors of the schooner Gull in 1887)\n##\n"
        '("entity"<|>ELDMOUTH LIGHTHOUSE<|>GEO<|>The Eldmouth lighthouse, whose lamp Mira Vell lit every night)\n##\n'
        '("relationship"<|>MIRA VELL<|>ELDMOUTH LIGHTHOUSE<|>Mira Vell kept the Eldmouth lighthouse for twelve '
        "years<|>9)\n<|COMPLETE|>"
    ),
    "bronze plaque": (
        '("entity"<|>MIRA VELL<|>PERSON<|>The new Eldmouth harbor pier was named after Mira Vell in 1890)\n##\n'
        '("entity"<|>ELDMOUTH TOWN COUNCIL<|>ORGANIZATION<|>The Eldmouth town council named the harbor pier after '
        "Mira Vell in 1890 and paid for a bronze plaque)\n##\n"
        '("relationship"<|>ELDMOUTH TOWN COUNCIL<|>MIRA VELL<|>The Eldmouth town council voted in 1890 to name the '
        "new harbor pier after Mira Vell<|>8)\n<|COMPLETE|>"
    ),
}
SUMMARY = (
    "Mira Vell kept the Eldmouth lighthouse for twelve years and rescued the six sailors of the schooner Gull in "
    "1887; in 1890 the new Eldmouth harbor pier was named after her."
)
REPORT = {
    "title": "Mira Vell and the Eldmouth harbor",
    "summary": "The community centres on Mira Vell, keeper of the Eldmouth lighthouse, and the town council that "
    "honoured her.",
    "rating": 6.5,
    "rating_explanation": "A local rescue and the public honour that followed it.",
    "findings": [
        {
            "summary": "A rescue at the northern reef",
            "explanation": "Mira Vell kept the Eldmouth lighthouse for twelve years and rescued the six sailors of "
            "the schooner Gull in 1887 [Data: Entities (0); Relationships (0)].",
        },
        {
            "summary": "A pier named after her",
            "explanation": "In 1890 the Eldmouth town council named the new harbor pier after Mira Vell and paid "
            "for a bronze plaque [Data: Entities (2); Relationships (1)].",
        },
    ],
}
MAP_POINTS = [
    {
        "description": "Mira Vell kept the Eldmouth lighthouse and rescued the six sailors of the schooner Gull in "
        "1887 [Data: Reports (0)].",
        "score": 90,
    },
    {
        "description": "In 1890 the Eldmouth town council named the new harbor pier after Mira Vell "
        "[Data: Reports (0)].",
        "score": 60,
    },
    {"description": "The reports do not say who built the lighthouse.", "score": 0},
]
REDUCE_ANSWER = (
    "## Mira Vell of Eldmouth\n\n"
    "Mira Vell kept the Eldmouth lighthouse and rescued the six sailors of the schooner Gull in 1887 "
    "[Data: Reports (0)]. "
    "In 1890 the Eldmouth town council named the new harbor pier after Mira Vell [Data: Reports (0)]. "
    "She later received a royal medal for bravery from the queen [Data: Reports (0)]."
)

# One phrase of each default GraphRAG 3.3 prompt that no other prompt contains.
PROMPT_MARKERS = {
    "extract_graph": "<|COMPLETE|>",
    "summarize_descriptions": "Description List:",
    "community_report": '"rating_explanation"',
    "map": "---Data tables---",
    "reduce": "---Analyst Reports---",
}


class ScriptError(AssertionError):
    """GraphRAG sent a prompt the script has no answer for (a prompt changed between versions)."""


def prompt_text(messages: str | Sequence[Mapping[str, Any]]) -> str:
    """The prompt as one string, whether GraphRAG sent a bare string or chat messages."""
    if isinstance(messages, str):
        return messages
    parts: list[str] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(part.get("text", "")) for part in content)
    return "\n".join(parts)


def prompt_kind(prompt: str) -> str:
    kinds = [kind for kind, marker in PROMPT_MARKERS.items() if marker in prompt]
    if len(kinds) != 1:
        raise ScriptError(f"expected one GraphRAG prompt kind, found {kinds}: {prompt[:300]!r}")
    return kinds[0]


def scripted_answer(kind: str, prompt: str) -> str:
    if kind == "extract_graph":
        found = [answer for marker, answer in EXTRACTIONS.items() if marker in prompt]
        if len(found) != 1:
            raise ScriptError(f"extraction prompt matches {len(found)} scripted documents: {prompt[-400:]!r}")
        return found[0]
    answers = {
        "summarize_descriptions": SUMMARY,
        "community_report": json.dumps(REPORT),
        "map": json.dumps({"points": MAP_POINTS}),
        "reduce": REDUCE_ANSWER,
    }
    return answers[kind]


def _chunk(text: str) -> LLMCompletionChunk:
    delta = LLMChoiceDelta(role="assistant", content=text)
    return LLMCompletionChunk(
        id="scripted",
        object="chat.completion.chunk",
        created=0,
        model="scripted",
        choices=[LLMChoiceChunk(index=0, delta=delta, finish_reason=None)],
    )


def _pieces(text: str) -> list[str]:
    """Word-sized stream pieces, so a consumer that drops or reorders tokens would be caught."""
    return [word + " " for word in text.split(" ")[:-1]] + [text.split(" ")[-1]]


class ScriptedCompletion(LLMCompletion):
    """Answers GraphRAG's prompts from the script; streams word by word when asked to."""

    calls: ClassVar[list[tuple[str, str]]] = []

    def __init__(self, *, tokenizer: Any, metrics_store: Any, **_: Any) -> None:
        self._tokenizer = tokenizer
        self._metrics_store = metrics_store

    def completion(self, /, **kwargs: Any) -> LLMCompletionResponse | Iterator[LLMCompletionChunk]:
        prompt = prompt_text(kwargs["messages"])
        kind = prompt_kind(prompt)
        ScriptedCompletion.calls.append((kind, prompt))
        answer = scripted_answer(kind, prompt)
        if kwargs.get("stream"):
            return iter([_chunk(piece) for piece in _pieces(answer)])
        response = create_completion_response(answer)
        response_format = kwargs.get("response_format")
        if response_format is not None:
            response.formatted_response = structure_completion_response(answer, response_format)
        return response

    async def completion_async(self, /, **kwargs: Any) -> LLMCompletionResponse | AsyncIterator[LLMCompletionChunk]:
        result = self.completion(**kwargs)
        if isinstance(result, Iterator):
            return _aiter(list(result))
        return result

    @property
    def metrics_store(self) -> Any:
        return self._metrics_store

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer


async def _aiter(chunks: list[LLMCompletionChunk]) -> AsyncIterator[LLMCompletionChunk]:
    for chunk in chunks:
        yield chunk


def register() -> None:
    """Make `type: veritrail_scripted` in settings.yaml resolve to `ScriptedCompletion`."""
    register_completion(SCRIPTED_TYPE, ScriptedCompletion)
