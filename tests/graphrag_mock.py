"""A scripted completion model that lets GraphRAG 3.3 index and answer every search method offline.

GraphRAG's own `mock` model replays a fixed list of answers in call order, which cannot survive
concurrent calls and does not stream (every search's answer step streams). This model reads
which of GraphRAG's default prompts it was given, and for the extraction prompts which document
(for DRIFT's follow-up searches which follow-up query), and answers with the texts below in the
formats GraphRAG parses: delimited entity/relationship and claim tuples, the community-report
JSON, the map step's `{"points": [...]}`, DRIFT's primer and follow-up JSON.
Every call is kept in `ScriptedCompletion.calls` so a test can check what a step was shown.

The corpus is tests/data/graphrag_tiny: Mira Vell's rescue (lighthouse.txt) and the pier named
after her (council.txt). MIRA VELL appears in both documents, so her description is summarized
(stage 3); `ADDED_DOCUMENT` (a ferry to Skarra) is the document a `graphrag update` adds. Each
final answer plants one claim no document supports: the royal medal (global), her birth year
(local), the pier's extension (basic), the golden lantern (DRIFT). The answers cite
records by the ids GraphRAG shows in a fresh index of this corpus: text unit row 0 is council.txt,
row 1 lighthouse.txt; entity 0 MIRA VELL, 2 ELDMOUTH LIGHTHOUSE; relationship 1 MIRA VELL ->
ELDMOUTH LIGHTHOUSE; claim 1 the rescue (with `extract_claims` enabled); report 0 the one community.
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
ADDED_DOCUMENT = (
    "ferry.txt",
    "In 1895 the harbor master Tomas Reed started a ferry from the Vell pier to the island of Skarra.\n",
)
EXTRACTIONS["island of Skarra"] = (
    '("entity"<|>TOMAS REED<|>PERSON<|>Tomas Reed, harbor master of Eldmouth, started a ferry to Skarra in 1895)'
    "\n##\n"
    '("entity"<|>SKARRA<|>GEO<|>The island of Skarra, reached by ferry from the Vell pier)\n##\n'
    '("relationship"<|>TOMAS REED<|>SKARRA<|>Tomas Reed started a ferry from the Vell pier to Skarra in 1895<|>7)'
    "\n<|COMPLETE|>"
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
ADDED_REPORT = {
    "title": "Tomas Reed and the Skarra ferry",
    "summary": "The community centres on Tomas Reed, the harbor master who started a ferry to Skarra.",
    "rating": 4.0,
    "rating_explanation": "A local ferry line.",
    "findings": [
        {
            "summary": "A ferry to Skarra",
            "explanation": "In 1895 the harbor master Tomas Reed started a ferry from the Vell pier to the island of "
            "Skarra [Data: Entities (0); Relationships (0)].",
        },
        {
            "summary": "A royal charter",
            "explanation": "The queen granted the ferry a royal charter in 1896 [Data: Entities (0)].",
        },
    ],
}
"""The report of the community `graphrag update` adds (the Skarra ferry); its second finding is planted."""
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
CLAIMS = {
    "schooner Gull": (
        "(MIRA VELL<|>SCHOONER GULL<|>RESCUE<|>TRUE<|>1887-01-01T00:00:00<|>1887-12-31T00:00:00<|>Mira Vell "
        "rescued the six sailors of the schooner Gull in 1887<|>she rowed out and brought all six sailors home)"
        "\n<|COMPLETE|>"
    ),
    "bronze plaque": (
        "(ELDMOUTH TOWN COUNCIL<|>MIRA VELL<|>HONOUR<|>TRUE<|>1890-01-01T00:00:00<|>1890-12-31T00:00:00<|>The "
        "Eldmouth town council named the new harbor pier after Mira Vell in 1890<|>voted to name the new harbor "
        "pier after Mira Vell)\n<|COMPLETE|>"
    ),
}
CLAIMS["island of Skarra"] = (
    "(TOMAS REED<|>SKARRA<|>FERRY<|>TRUE<|>1895-01-01T00:00:00<|>1895-12-31T00:00:00<|>Tomas Reed started a "
    "ferry to the island of Skarra in 1895<|>started a ferry from the Vell pier)\n<|COMPLETE|>"
)
REDUCE_ANSWER = (
    "## Mira Vell of Eldmouth\n\n"
    "Mira Vell kept the Eldmouth lighthouse and rescued the six sailors of the schooner Gull in 1887 "
    "[Data: Reports (0)]. "
    "In 1890 the Eldmouth town council named the new harbor pier after Mira Vell [Data: Reports (0)]. "
    "She later received a royal medal for bravery from the queen [Data: Reports (0)]."
)

LOCAL_PLANTED = "She was born in Eldmouth in 1851."
LOCAL_ANSWER = (
    "## Mira Vell of Eldmouth\n\n"
    "Mira Vell kept the Eldmouth lighthouse for twelve years [Data: Entities (0); Relationships (1)]. "
    "She rescued the six sailors of the schooner Gull in 1887 [Data: Sources (1); Claims (1)]. "
    "In 1890 the Eldmouth town council named the new harbor pier after her [Data: Reports (0); Sources (0)]. "
    f"{LOCAL_PLANTED[:-1]} [Data: Sources (1)]."
)
BASIC_PLANTED = "The pier was later extended by forty meters."
BASIC_ANSWER = (
    "Mira Vell kept the Eldmouth lighthouse and rescued the six sailors of the schooner Gull in 1887 "
    "[Data: Sources (1)]. In 1890 the Eldmouth town council named the new harbor pier after Mira Vell "
    f"[Data: Sources (0)]. {BASIC_PLANTED[:-1]} [Data: Sources (0)]."
)
DRIFT_HYPOTHESIS = "Mira Vell is remembered in Eldmouth for a rescue at sea and for a pier named after her."
DRIFT_FOLLOW_UPS = {
    "Whom did Mira Vell rescue?": {
        "response": "Mira Vell rescued the six sailors of the schooner Gull in 1887 [Data: Sources (1)].",
        "score": 90,
        "follow_up_queries": ["How long did Mira Vell keep the Eldmouth lighthouse?"],
    },
    "What did the Eldmouth town council name after Mira Vell?": {
        "response": "In 1890 the Eldmouth town council named the new harbor pier after Mira Vell [Data: Sources (0)].",
        "score": 85,
        "follow_up_queries": [],
    },
    "How long did Mira Vell keep the Eldmouth lighthouse?": {
        "response": "Mira Vell kept the Eldmouth lighthouse for twelve years [Data: Entities (0)].",
        "score": 70,
        "follow_up_queries": [],
    },
}
DRIFT_PRIMER = {
    "intermediate_answer": "# Mira Vell in Eldmouth\n\nThe reports describe Mira Vell, keeper of the Eldmouth "
    "lighthouse, who rescued the six sailors of the schooner Gull in 1887 and was honoured by the town council.",
    "score": 80,
    "follow_up_queries": list(DRIFT_FOLLOW_UPS)[:2],
}
DRIFT_PLANTED = "The council also gave her a golden lantern."
DRIFT_ANSWER = (
    "## Mira Vell of Eldmouth\n\n"
    "Mira Vell kept the Eldmouth lighthouse for twelve years [Data: Entities (0)]. "
    "She rescued the six sailors of the schooner Gull in 1887 [Data: Sources (1)]. "
    "In 1890 the Eldmouth town council named the new harbor pier after her [Data: Sources (0)]. "
    f"{DRIFT_PLANTED[:-1]} [Data: Sources (0)]."
)

# One phrase of each default GraphRAG 3.3 prompt that no other prompt contains.
PROMPT_MARKERS = {
    "extract_graph": '("relationship"<|><source_entity>',
    "extract_claims": "-Target activity-",
    "summarize_descriptions": "Description List:",
    "community_report": '"rating_explanation"',
    "map": '"points": [',
    "reduce": "---Analyst Reports---",
    "local": "Claims (2, 7, 34, 46, 64, +more)",
    "basic": 'the source id taken from the "id" column',
    "drift_hypothesis": "Create a hypothetical answer to the following query",
    "drift_primer": "The top-ranked community summaries:",
    "drift_local": "Do not answer the global query in this section",
    "drift_reduce": "---Data Reports---",
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


def _one_of(kind: str, script: Mapping[str, Any], prompt: str) -> Any:
    """The scripted answer whose key (a document's phrase, a follow-up query) the prompt holds."""
    found = [answer for marker, answer in script.items() if marker in prompt]
    if len(found) != 1:
        raise ScriptError(f"{kind} prompt matches {len(found)} scripted answers: {prompt[-400:]!r}")
    return found[0]


def scripted_answer(kind: str, prompt: str) -> str:
    if kind == "extract_graph":
        return _one_of(kind, EXTRACTIONS, prompt)
    if kind == "extract_claims":
        return _one_of(kind, CLAIMS, prompt)
    if kind == "drift_local":
        return json.dumps(_one_of(kind, DRIFT_FOLLOW_UPS, prompt))
    answers = {
        "summarize_descriptions": SUMMARY,
        "community_report": json.dumps(REPORT if "MIRA VELL" in prompt.upper() else ADDED_REPORT),
        "map": json.dumps({"points": MAP_POINTS}),
        "reduce": REDUCE_ANSWER,
        "local": LOCAL_ANSWER,
        "basic": BASIC_ANSWER,
        "drift_hypothesis": DRIFT_HYPOTHESIS,
        "drift_primer": json.dumps(DRIFT_PRIMER),
        "drift_reduce": DRIFT_ANSWER,
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


def scripted_noun_phrases() -> Any:
    """The `fast` method's noun-phrase extractor, offline: capitalised word runs ("Mira Vell",
    "Eldmouth") stand for the noun phrases GraphRAG's regex extractor finds with a tagger it trains
    on NLTK corpora that it downloads at run time."""
    import re

    from graphrag.index.operations.build_noun_graph.np_extractors.base import BaseNounPhraseExtractor

    class ScriptedNounPhrases(BaseNounPhraseExtractor):
        def extract(self, text: str) -> list[str]:
            return sorted({m.upper() for m in re.findall(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*", text)})

        def __str__(self) -> str:
            return "scripted_noun_phrases"

    return ScriptedNounPhrases(model_name=None, max_word_length=15, exclude_nouns=[], word_delimiter=" ")
