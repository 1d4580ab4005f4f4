"""The sub-claim decomposition queue (the paper's section 3.1.1). Pure logic: the engine asks the
verifier for each part and feeds the answer back."""

from __future__ import annotations

from collections import deque


def _key(text: str) -> str:
    return text.strip().lower()


class DecompositionQueue:
    """A part split into several pieces is queued for further decomposition; a part that comes
    back whole is final. Repeats are skipped, and at most `max_calls` parts are decomposed (the
    parts still queued then are kept as they are)."""

    def __init__(self, claim: str, max_calls: int) -> None:
        self._claim = claim
        self._queue = deque([claim])
        self._seen = {_key(claim)}
        self._final: list[str] = []
        self._calls_left = max_calls

    def next(self) -> str | None:
        """The next part to decompose, or None when the queue is empty or the calls are spent."""
        if not self._queue or self._calls_left == 0:
            return None
        self._calls_left -= 1
        return self._queue.popleft()

    def answer(self, part: str, pieces: list[str]) -> None:
        pieces = [p.strip() for p in pieces if p.strip()]
        if len(pieces) <= 1:
            self._final.append(pieces[0] if pieces else part)
            return
        for piece in pieces:
            if _key(piece) not in self._seen:
                self._seen.add(_key(piece))
                self._queue.append(piece)

    def sub_claims(self) -> list[str]:
        """Final parts, then the parts left undecomposed; never the claim itself."""
        parts = dict.fromkeys([*self._final, *self._queue])
        return [p for p in parts if _key(p) != _key(self._claim)]
