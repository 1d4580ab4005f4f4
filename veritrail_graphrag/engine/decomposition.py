"""The sub-claim decomposition queue (the paper's section 3.1.1), bounded. Pure logic: the engine
asks the verifier for each part and feeds the answer back.

The paper splits a claim, then splits each part again, until the parts come back whole, within a
cap on calls. A model that never answers "whole" (a small one restating a part with a word changed,
or returning its parent among the parts) then spends the whole cap on one claim: most of an audit's
calls. So a part ends its branch when it brings nothing new: a piece identical, after
normalisation, to the part it came from or to any part seen before is not split again, and a part
the model returns unchanged is final. `max_depth` bounds the rounds: 1 splits the claim once and
its parts are final; None keeps the paper's recursion, bounded by the cap alone.
"""

from __future__ import annotations

import re
from collections import deque

_PUNCTUATION = re.compile(r"[^\w\s]")


def normalized(text: str) -> str:
    """Case, spacing and punctuation do not make a new part: "Acme, and Lyon." is "acme and lyon"."""
    return " ".join(_PUNCTUATION.sub(" ", text.lower()).split())


class DecompositionQueue:
    """Parts waiting to be split (with their depth, the claim's being 0) and parts that are final.
    At most `max_calls` parts are decomposed; the parts still queued then are kept as they are."""

    def __init__(self, claim: str, max_calls: int, max_depth: int | None = None) -> None:
        self._claim = claim
        self._queue: deque[tuple[str, int]] = deque([(claim, 0)])
        self._depths = {normalized(claim): 0}
        self._final: list[str] = []
        self._calls_left = max_calls
        self._max_depth = max_depth

    def next(self) -> str | None:
        """The next part to decompose, or None when the queue is empty or the calls are spent."""
        if not self._queue or self._calls_left == 0:
            return None
        self._calls_left -= 1
        return self._queue.popleft()[0]

    def answer(self, part: str, pieces: list[str]) -> None:
        """`pieces` is the verifier's split of `part`. One piece is the part restated: final. Of
        several, a piece that repeats the part keeps the part (final, not split again), a piece
        seen before is skipped, and each new piece is queued, or final at the depth bound."""
        key = normalized(part)
        pieces = [p.strip() for p in pieces if p.strip()]
        if len(pieces) <= 1:
            unchanged = not pieces or normalized(pieces[0]) == key
            self._final.append(part if unchanged else pieces[0])
            return
        depth = self._depths[key] + 1
        for piece in pieces:
            piece_key = normalized(piece)
            if piece_key == key:
                self._final.append(part)
            elif piece_key not in self._depths:
                self._depths[piece_key] = depth
                if self._max_depth is not None and depth >= self._max_depth:
                    self._final.append(piece)
                else:
                    self._queue.append((piece, depth))

    def sub_claims(self) -> list[str]:
        """Final parts, then the parts left undecomposed, once each; never the claim itself."""
        parts: dict[str, str] = {}
        for part in [*self._final, *(p for p, _ in self._queue)]:
            parts.setdefault(normalized(part), part)
        parts.pop(normalized(self._claim), None)
        return list(parts.values())
