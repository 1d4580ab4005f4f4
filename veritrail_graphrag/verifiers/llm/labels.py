"""Short per-prompt sentence labels (S1, S2, ...) and their way back to our sentence ids.

Sentence ids are `<node id>#<n>` and GraphRAG node ids are long hashes: asking a model to copy
them invites typos that silently cite the wrong sentence. Labels are positional within one
prompt, so the same batch of texts always yields the same prompt (and the same cache key) even
when node ids change between index versions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from veritrail_graphrag.models import Sentence

_TOKEN = re.compile(
    r"(?<![\w#/.:-])S?\s*(?P<start>\d+)(?:\s*(?:-|\u2013|\u2014|\.\.|to)\s*S?\s*(?P<end>\d+))?(?![0-9])",
    re.IGNORECASE,
)


class SentenceLabels:
    """Labels S1..Sn for one prompt's sentences, in the order given."""

    def __init__(self, sentences: Sequence[Sentence]) -> None:
        self.sentences = list(sentences)

    def label(self, position: int) -> str:
        return f"S{position + 1}"

    def labelled(self) -> list[tuple[str, Sentence]]:
        return [(self.label(i), s) for i, s in enumerate(self.sentences)]

    def resolve(self, cited: Iterable[str | int]) -> tuple[list[str], list[str]]:
        """Map cited labels (ranges expanded) to sentence ids; also return what could not be mapped.

        Unknown labels are dropped, never guessed at: an id outside this prompt would put a
        sentence in the evidence trail that the model was never shown.
        """
        ids: list[str] = []
        unknown: list[str] = []
        for item in cited:
            text = str(item).strip().strip("[]")
            matches = list(_TOKEN.finditer(text))
            if not matches:
                if text:
                    unknown.append(text)
                continue
            for match in matches:
                start = int(match["start"])
                end = int(match["end"]) if match["end"] else start
                if end < start or end - start > len(self.sentences):
                    unknown.append(match.group(0))
                    continue
                for number in range(start, end + 1):
                    if 1 <= number <= len(self.sentences):
                        ids.append(self.sentences[number - 1].id)
                    else:
                        unknown.append(f"S{number}")
        return list(dict.fromkeys(ids)), unknown
