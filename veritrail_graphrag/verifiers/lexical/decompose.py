"""Rule-based claim decomposition for the offline verifier.

Sub-claims only steer Evidence Selection (the paper's section 3.1.1): a sentence that supports one part
of a compound claim shares too few words with the whole claim to be picked, but enough with the
part. So the rules aim at the splits that are safe without a parser (semicolons, clauses with
their own verbs, verb phrases sharing a subject, short lists under one predicate) and give up,
returning the claim whole, whenever a split would need real syntax. Verbs are recognized from
auxiliaries, "-ed" forms and common irregular past tenses; "-s" forms count only where a noun
cannot stand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

_PUNCTUATION = ".,;:!?\"'()[]\u201c\u201d\u2018\u2019"
_AUXILIARIES = frozenset(
    """
    is are was were be been am has have had will would can could may might shall should must
    do does did isn't aren't wasn't weren't hasn't haven't hadn't won't wouldn't can't couldn't
    doesn't didn't don't cannot
    """.split()
)
_IRREGULAR_PAST = frozenset(
    """
    said made sold bought grew rose fell won lost led began became took gave found built wrote
    paid met left held brought spent told saw went came ran set kept got chose drove knew thought
    felt sent put cut hit let read became overtook withdrew undertook sought taught fought struck
    """.split()
)
_NOT_VERBS_ED = frozenset("hundred indeed speed greed breed creed kindred seed need feed".split())
_PRONOUN_SUBJECTS = frozenset("i you he she it we they".split())
_REPLACEABLE_PRONOUNS = frozenset("he she it they".split())
_DETERMINERS = frozenset(
    "the a an its their his her this that these those our my your each every some many all both several".split()
)
_ADVERBS = frozenset("only also then later still now eventually subsequently further thus".split())
_NOT_SUBJECT_START = frozenset(
    """
    after before when while if although though because since as in on at during for with by
    from to into over under about against between without within among once until unless
    """.split()
)
_RELATIVES = frozenset("which who whom whose that where".split())
_STOPLIKE = frozenset("the a an and or of to in on at for by with from as is are was were be it this that".split())
_LIST_BLOCKERS = frozenset("between".split())
_MAX_ITEM = 4
_MAX_SUBJECT = 6
_MAX_DEPTH = 6


def _bare(token: str) -> str:
    return token.strip(_PUNCTUATION).lower()


def _strong_verb(token: str) -> bool:
    word = _bare(token)
    if word in _AUXILIARIES or word in _IRREGULAR_PAST:
        return True
    return len(word) >= 5 and word.endswith("ed") and word not in _NOT_VERBS_ED


def _s_form(token: str) -> bool:
    word = _bare(token)
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _verb_index(tokens: Sequence[str], start: int = 0) -> int | None:
    """First verb-like token: a strong verb anywhere, an "-s" form only right after a noun-like
    word that follows a determiner or a pronoun ("the plan covers", "it costs")."""
    for index in range(start, len(tokens)):
        if _strong_verb(tokens[index]):
            return index
        if index >= 1 and _s_form(tokens[index]):
            previous = _bare(tokens[index - 1])
            if previous in _REPLACEABLE_PRONOUNS:
                return index
            if (
                index >= 2
                and previous not in _STOPLIKE
                and _bare(tokens[index - 2]) in _DETERMINERS
                and not tokens[index - 1].endswith(",")
            ):
                return index
    return None


def _has_verb(tokens: Sequence[str]) -> bool:
    return _verb_index(tokens) is not None


class _Prefixes:
    """Whether each prefix of one token list has a verb, and its subject, from one scan of it:
    whether a token is a verb depends only on the words before it, so a prefix's first verb is the
    list's. The splitters ask at every "and" of a sentence, and rescanning the words before each
    made one long sentence cost time quadratic in its length."""

    def __init__(self, tokens: Sequence[str]) -> None:
        self.tokens = tokens
        self.verb = _verb_index(tokens)
        after = range(self.verb + 1, len(tokens)) if self.verb is not None else range(0)
        self.relative = next((i for i in after if _bare(tokens[i]) in _RELATIVES), None)

    def has_verb(self, length: int) -> bool:
        """`_has_verb(tokens[:length])`."""
        return self.verb is not None and self.verb < length

    def subject(self, length: int) -> list[str] | None:
        """The words of `tokens[:length]` before its first verb, when they plausibly are its clause's
        subject."""
        verb = self.verb
        if verb is None or verb >= length or not 1 <= verb <= _MAX_SUBJECT:
            return None
        subject = list(self.tokens[:verb])
        if _bare(subject[0]) in _NOT_SUBJECT_START or any(t.endswith(",") for t in subject):
            return None
        if self.relative is not None and self.relative < length:
            return None
        return subject


def _starts_clause(tokens: Sequence[str]) -> bool:
    """Whether the words open a clause of their own: a subject followed closely by a verb."""
    if not tokens:
        return False
    first = _bare(tokens[0])
    if first in _PRONOUN_SUBJECTS:
        rest = 2 if len(tokens) > 2 and _bare(tokens[1]) in _ADVERBS else 1
        return len(tokens) > rest and (_strong_verb(tokens[rest]) or _s_form(tokens[rest]))
    if first in _NOT_SUBJECT_START or first in _ADVERBS or _strong_verb(tokens[0]):
        return False
    for index in range(1, min(len(tokens), _MAX_ITEM + 1)):
        if tokens[index - 1].endswith(","):
            return False
        if _strong_verb(tokens[index]):
            return True
    return False


def _conjunctions(tokens: Sequence[str], clause_only: bool) -> list[tuple[int, int]]:
    """(position, width) of each "and" / "as well as" (and, for clauses, ", but"/", while")."""
    found: list[tuple[int, int]] = []
    for index in range(1, len(tokens) - 1):
        word = tokens[index]
        if word == "and":
            found.append((index, 1))
        elif [_bare(t) for t in tokens[index : index + 3]] == ["as", "well", "as"]:
            if tokens[index + 2] == "as" and index + 3 < len(tokens):
                found.append((index, 3))
        elif clause_only and word in ("but", "while", "whereas") and tokens[index - 1].endswith(","):
            found.append((index, 1))
    return found


_TRAILING = ("and", "both", "either", "")


def _clean_length(tokens: Sequence[str], end: int) -> int:
    """`len(_clean(tokens[:end]))`, without copying the words."""
    while end and _bare(tokens[end - 1]) in _TRAILING:
        end -= 1
    return end


def _clean(tokens: Sequence[str]) -> list[str]:
    out = list(tokens[: _clean_length(tokens, len(tokens))])
    if out:
        out[-1] = out[-1].rstrip(",;:")
    return out


def _split_clauses(tokens: list[str]) -> list[list[str]] | None:
    prefixes = _Prefixes(tokens)
    for index, width in _conjunctions(tokens, clause_only=True):
        length = _clean_length(tokens, index)
        opening = tokens[index + width : index + width + _MAX_ITEM + 1]  # all `_starts_clause` reads
        if not prefixes.has_verb(length) or not _starts_clause(opening):
            continue
        left, right = _clean(tokens[:index]), tokens[index + width :]
        subject = prefixes.subject(length)
        if _bare(right[0]) in _REPLACEABLE_PRONOUNS and subject:
            right = subject + right[1:]
        return [left, right]
    return None


def _verb_phrases(tokens: list[str], s_forms: bool) -> list[list[str]] | None:
    """Split "S V1 X and V2 Y" into "S V1 X" and "S V2 Y". An "-s" head ("and costs") is
    only trusted after the list rule had its chance, since "shoes, hats and bags" looks alike."""
    prefixes = _Prefixes(tokens)
    for index, width in _conjunctions(tokens, clause_only=True):
        right = index + width
        start = 1 if right < len(tokens) and _bare(tokens[right]) in _ADVERBS else 0
        length = _clean_length(tokens, index)
        if right + start >= len(tokens) or not prefixes.has_verb(length):
            continue
        head = tokens[right + start]
        tail_has_strong = any(_strong_verb(t) for t in tokens[right + start + 1 : right + start + 3])
        verb_head = _strong_verb(head) or (
            s_forms and _s_form(head) and not tail_has_strong and right + start + 1 < len(tokens)
        )
        subject = prefixes.subject(length) if verb_head else None
        if subject:
            return [_clean(tokens[:index]), subject + tokens[right:]]
    return None


def _split_verb_phrases(tokens: list[str]) -> list[list[str]] | None:
    return _verb_phrases(tokens, s_forms=False)


def _split_s_form_phrases(tokens: list[str]) -> list[list[str]] | None:
    return _verb_phrases(tokens, s_forms=True)


def _segments(tokens: Sequence[str]) -> list[list[str]]:
    """Cut at commas, keeping each comma on the token that carries it."""
    segments: list[list[str]] = [[]]
    for token in tokens:
        segments[-1].append(token)
        if token.endswith(","):
            segments.append([])
    return [segment for segment in segments if segment]


def _is_item(tokens: Sequence[str]) -> bool:
    return 1 <= len(tokens) <= _MAX_ITEM and not any(_strong_verb(t) for t in tokens)


def _last_item(tokens: Sequence[str], start: int) -> tuple[list[str], list[str], bool] | None:
    """The list item that starts at `start` (after the conjunction), what follows it, and whether a
    comma ended it. An item has at most `_MAX_ITEM` words, so no more than one past them is read."""
    for index in range(start, min(len(tokens), start + _MAX_ITEM + 1)):
        token = tokens[index]
        if token.endswith(","):
            item = list(tokens[start : index + 1])
            return (item, list(tokens[index + 1 :]), True) if _is_item(item) else None
        if index > start and _strong_verb(token):
            item = list(tokens[start:index])
            return (item, list(tokens[index:]), False) if _is_item(item) else None
    rest = tokens[start : start + _MAX_ITEM + 1]
    return (list(rest), [], False) if len(tokens) - start <= _MAX_ITEM and _is_item(rest) else None


def _first_item(segment: list[str], length: int, after: Sequence[str]) -> int:
    """Where the first list item starts inside the segment that also holds the predicate."""
    start = max(0, len(segment) - length)
    if after and _bare(after[0]) in _DETERMINERS:
        for index in range(len(segment) - 1, max(-1, len(segment) - _MAX_ITEM - 1), -1):
            if _bare(segment[index]) in _DETERMINERS:
                return index
    for index in range(len(segment) - 2, start - 1, -1):
        if _strong_verb(segment[index]) or _s_form(segment[index]):
            return index + 1
    return start


def _split_list(tokens: list[str]) -> list[list[str]] | None:
    if not _has_verb(tokens):
        return None
    for index, width in _conjunctions(tokens, clause_only=False):
        parts = _list_parts(tokens, index, width)
        if parts:
            return parts
    return None


def _list_parts(tokens: list[str], index: int, width: int) -> list[list[str]] | None:
    """The parts of a list whose conjunction ("and", `width` words) is at `index`."""
    last = _last_item(tokens, index + width)
    if last is None or any(_bare(t) in _LIST_BLOCKERS for t in tokens[max(index - _MAX_ITEM - 2, 0) : index]):
        return None
    left, right = tokens[:index], tokens[index + width :]
    last_item, rest, comma_ended = last
    segments = _segments(left)
    items: list[list[str]] = [last_item]
    while len(segments) > 1 and _is_item(_clean(segments[-1])):
        items.insert(0, segments.pop())
    head = segments.pop()
    before = [token for segment in segments for token in segment]
    if _has_verb(left) or before or not _is_item(_clean(head)):
        longest = max(len(_clean(item)) for item in items)
        start = _first_item(head, longest, items[0])
        prefix, first = before + head[:start], head[start:]
    else:
        prefix, first = [], head
    items.insert(0, first)
    prefix = _clean(prefix) if prefix and _bare(prefix[-1]) in ("both", "either") else prefix
    shared = [] if comma_ended else rest
    if not prefix and not shared:
        return None
    parts = [prefix + _clean(item) + shared for item in items if _clean(item)]
    if len(parts) < 2 or any(len(part) >= len(left) + len(right) for part in parts):
        return None
    if comma_ended and rest:
        parts[-1] = parts[-1] + [","] + rest
    return parts


_SPLITTERS: tuple[Callable[[list[str]], list[list[str]] | None], ...] = (
    _split_clauses,
    _split_verb_phrases,
    _split_list,
    _split_s_form_phrases,
)


def _split(tokens: list[str], depth: int) -> list[list[str]]:
    if depth >= _MAX_DEPTH:
        return [tokens]
    for splitter in _SPLITTERS:
        pieces = splitter(tokens)
        if pieces:
            return [part for piece in pieces for part in _split(piece, depth + 1)]
    return [tokens]


def _render(tokens: Sequence[str], end: str) -> str:
    text = " ".join(tokens).replace(" ,", ",").strip(" ,;:")
    return text[:1].upper() + text[1:] + end


def decompose_claim(text: str) -> list[str]:
    """Split a claim into simpler self-contained parts, or return it whole when no rule applies."""
    claim = " ".join(text.split())
    end = claim[-1] if claim[-1:] in (".", "!", "?") else ""
    body = claim[: len(claim) - len(end)]
    parts: list[str] = []
    for chunk in body.split(";"):
        for tokens in _split(chunk.split(), 0):
            rendered = _render(tokens, end)
            if len(tokens) >= 2 and any(ch.isalnum() for ch in rendered) and rendered not in parts:
                parts.append(rendered)
    return parts if len(parts) > 1 else [text]
