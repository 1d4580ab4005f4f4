"""Text normalization shared by the lexical verifier's selection and verdict steps.

Both steps compare a claim with evidence by what they share, so both must reduce text to the same
keys: lowercase word stems, numbers as plain decimal values ("1,000", "1k" and "one thousand" are
all "1000"), acronyms kept even when they spell a stopword ("US"), a code of letters and digits
("I46.1", "A340"), a section number with its lettered parts ("501(c)(3)") and an identifier of
hyphenated digits with a group of six or more ("64-6221541") one name each, since they count
nothing; shorter hyphenated numbers ("1914-1918", "2024-01-15") stay numbers. Negation cues are kept apart
from content words because they flip a statement without adding content; their scope is recorded
so the verdict step can tell "did not recommend" from "recommended". The stemmer is deliberately
crude (PyStemmer is not a dependency): a false merge costs a little precision in a triage tool,
a missed merge costs recall.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from itertools import pairwise
from typing import Literal

TermKind = Literal["word", "name", "number"]

STOPWORDS = frozenset(
    """
    a about above again against all also am among an and any are as at be because been being
    below between both but by can could did do does doing down during each either else etc ever
    every for from further had has have having he her here hers herself him himself his how i if
    in into is it its itself just let lets may me might mine must my myself of off on once only
    onto or other others our ours ourselves out over own per quite rather really same shall she
    should since so some such than that the their theirs them themselves then there these they
    this those though through thus to too toward towards under until up upon us very via was we
    well were what whatever when where whether which while who whom whose why will with within
    would yet you your yours yourself yourselves mr mrs ms miss sir madam s t d ll m re ve o y
    """.split()
)
"""Words that carry no checkable content. Negation cues are absent on purpose: they are tracked
separately. "more", "less", "before" and "after" are absent because swapping them is a classic
factual error."""

NEGATION_CUES = frozenset(
    """
    not no never none nobody nothing neither nor without cannot nowhere lack lacks lacked lacking
    absence absent unable devoid
    """.split()
)
"""Words that deny what follows. "lack" and "absence" are here because summaries say "the lack
of X" where the source says "there is no X"."""

DISCOURSE_WORDS = frozenset(
    """
    mention mentions mentioned mentioning discuss discusses discussed discussing discussion
    talk talks talked talking say says said saying state states stated note notes noted explain
    explains explained describe describes described overall various however moreover furthermore
    additionally meanwhile nevertheless nonetheless therefore hence specifically notably ultimately
    """.split()
)
"""Reporting words and connectives a summary adds around what was said ("the group discussed
the price", "However, ..."): the source rarely contains them, so counting them would penalize
every faithful summary."""

_COMMON_OPENERS = frozenset(
    """
    after before later earlier initially eventually finally first next today yesterday tomorrow
    afterwards despite instead besides currently recently previously once
    """.split()
)
"""Ordinary words that often open a sentence: capitalized there, they are still not names."""
_SCOPE_BREAKERS = frozenset(
    "but however although though whereas while yet except if whether unless because since when which who that".split()
)
"""Words that open another clause, where a negation before them no longer reaches ("are not
still in operation and saying that if the poor would rather die")."""
_RUN_CONNECTORS = frozenset("of for de la".split())
_NOT_DENYING = frozenset("only just merely simply solely all every always necessarily".split())
"""Words after "not" that make it no denial: "not only X but also Y", "not just a policy but a
culture" assert X, they do not deny it; "not all works", "not always paid" count or hedge."""
_SUPPOSING = frozenset("if unless whether".split())
"""Words that open a clause supposing what it says: a negation inside it ("if he does not
change", "whether or not") states nothing. The clause ends at a comma or a stop, and a negation
counts again after `_NEGATION_SCOPE` content terms: an unpunctuated clause may have ended
("knowing whether the miller grinds rye or wheat for the bakery is not important")."""
_NEGATION_SCOPE = 4
"""How many content terms after a cue a negation reaches: enough for "did not formally approve
the merger", short enough not to leak into the next clause."""

ABBREVIATIONS = {
    "dr": "doctor",
    "prof": "professor",
    "corp": "corporation",
    "inc": "incorporated",
    "ltd": "limited",
    "co": "company",
    "dept": "department",
    "govt": "government",
    "gov": "government",
    "univ": "university",
    "intl": "international",
    "mgmt": "management",
    "assn": "association",
    "approx": "approximately",
    "vs": "versus",
    "jan": "january",
    "feb": "february",
    "mar": "march",
    "apr": "april",
    "jun": "june",
    "jul": "july",
    "aug": "august",
    "sep": "september",
    "sept": "september",
    "oct": "october",
    "nov": "november",
    "dec": "december",
}
"""Abbreviations written with a period, mapped to the word they stand for so that "Acme Corp."
matches "Acme Corporation". Their period does not end a sentence."""

_DOTTED = frozenset(ABBREVIATIONS) | frozenset("mr mrs ms st jr sr etc no fig".split())

_NUMBER_WORDS = {
    word: Decimal(value)
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
    if word != "one"
} | {
    "thirty": Decimal(30),
    "forty": Decimal(40),
    "fifty": Decimal(50),
    "sixty": Decimal(60),
    "seventy": Decimal(70),
    "eighty": Decimal(80),
    "ninety": Decimal(90),
    "hundred": Decimal(100),
    "dozen": Decimal(12),
}
"""Spelled-out numbers. "one" is left out: it is far more often a pronoun ("one of the ...")."""

_TENS = frozenset(Decimal(10 * n) for n in range(2, 10))
_UNITS = {
    word: Decimal(value) for value, word in enumerate("one two three four five six seven eight nine".split(), start=1)
}
"""Units that complete a spelled-out tens ("twenty one", "forty-five"); here "one" is a number."""

_SCALES = {
    "hundred": Decimal(100),
    "thousand": Decimal(1000),
    "k": Decimal(1000),
    "million": Decimal(10**6),
    "mn": Decimal(10**6),
    "billion": Decimal(10**9),
    "bn": Decimal(10**9),
    "trillion": Decimal(10**12),
}

_CURRENCIES = {"$": "dollar", "€": "euro", "£": "pound", "¥": "yen"}
"""A currency sign is a word: "$5" and "5 dollars" say the same."""

_TOKEN = re.compile(
    r"(?P<acronym>(?:[A-Z]\.){2,})"
    r"|(?P<code>(?<![^\W_])(?:[A-Za-z]{1,4}\d+(?:\.\d+)*|\d+(?:\([A-Za-z\d]{1,3}\))+"
    r"|\d+(?:-\d+)*-\d{6,}(?:-\d+)*|\d{6,}(?:-\d+)+)(?![^\W_]))"
    r"|(?P<number>\d+(?:[.,]\d+)*(?:st|nd|rd|th|s)?%?)"
    r"|(?P<word>[^\W\d_]+(?:['\u2019][^\W\d_]+)*)"
    r"|(?P<currency>[$€£¥])"
    r"|(?P<stop>[.!?:\n])"
    r"|(?P<pause>[,;()\[\]\"\u201c\u201d\u2013\u2014])"
)
_NUMBER_SUFFIX = re.compile(r"(?:st|nd|rd|th|s)$")

_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("isition", "ire"),
    ("ational", "ate"),
    ("ization", "ize"),
    ("isation", "ize"),
    ("fulness", "ful"),
    ("iveness", "ive"),
    ("ousness", "ous"),
    ("ations", "ate"),
    ("ation", "ate"),
    ("ments", ""),
    ("ment", ""),
    ("ness", ""),
    ("ings", ""),
    ("ing", ""),
    ("ions", ""),
    ("ion", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("sses", "ss"),
    ("ed", ""),
    ("al", ""),
    ("s", ""),
)
_KEEP_S = ("ss", "us", "is")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Reduce a lowercase word so that inflections and close derivations share a key."""
    if len(word) <= 3:
        return word
    for suffix, replacement in _SUFFIXES:
        if not word.endswith(suffix):
            continue
        if suffix == "s" and word.endswith(_KEEP_S):
            break
        base = word[: -len(suffix)]
        if len(base) >= (4 if suffix == "al" else 3):
            word = base + replacement
        break
    while len(word) >= 4 and word.endswith("e"):
        word = word[:-1]
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]
    return word


def fuzzy_equal(a: str, b: str) -> bool:
    """Whether two stems are close derivations the suffix rules missed ("acquir"/"acquisit")."""
    shorter = min(len(a), len(b))
    if shorter < 5 or a[:5] != b[:5]:
        return False
    common = 5
    while common < shorter and a[common] == b[common]:
        common += 1
    return common >= 0.8 * shorter


def _number_key(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


@dataclass(frozen=True, slots=True)
class Term:
    """One content term of a text, with where it stands and whether a negation reaches it."""

    key: str
    surface: str
    kind: TermKind
    sentence: int
    position: int
    negation: int | None
    initial_capital: bool
    parts: tuple[str, ...] = ()
    """The keys of the words of a name written in camel case ("SimpleDocumentIndexer"): what
    "simple document indexer" and "SIMPLE_DOCUMENT_INDEXER" write as words (`camel_parts`)."""


@dataclass(frozen=True, slots=True)
class TextTerms:
    """A text reduced to what the lexical verifier compares.

    `negations` maps a scope id (the cue's order in the text) to the cue as written; a term's
    `negation` names its scope. `acronyms` are the initials of capitalized runs ("United
    Nations" -> "un") so that an acronym on one side matches the spelled-out name on the other;
    `runs` gives, per run, its initials and the positions of its terms.
    """

    terms: tuple[Term, ...]
    negations: dict[int, str]
    acronyms: frozenset[str]
    runs: tuple[tuple[str, tuple[int, ...]], ...]
    lowercase_keys: frozenset[str]

    @property
    def keys(self) -> list[str]:
        return [term.key for term in self.terms]

    @property
    def key_set(self) -> frozenset[str]:
        """Every key, and the words of each camel-case name: a node that writes "DistributedRuntime"
        tells of a distributed runtime."""
        return frozenset(term.key for term in self.terms) | frozenset(p for term in self.terms for p in term.parts)


class _Builder:
    """Walks the tokens of one text once, tracking sentence starts, runs and negation scopes."""

    def __init__(self, shouting: bool) -> None:
        self.shouting = shouting
        self.terms: list[Term] = []
        self.negations: dict[int, str] = {}
        self.runs: list[tuple[str, tuple[int, ...]]] = []
        self.lowercase: set[str] = set()
        self.sentence = 0
        self.at_start = True
        self.scope: int | None = None
        self.scope_left = 0
        self.supposing = 0
        self.run: list[tuple[str, int]] = []

    def add(
        self, key: str, surface: str, kind: TermKind, initial_capital: bool = False, parts: tuple[str, ...] = ()
    ) -> None:
        negation = self.scope if self.scope_left > 0 else None
        if negation is not None:
            self.scope_left -= 1
        self.supposing = max(self.supposing - 1, 0)
        self.terms.append(Term(key, surface, kind, self.sentence, len(self.terms), negation, initial_capital, parts))

    def close_run(self) -> None:
        if len(self.run) >= 2:
            initials = "".join(letter for letter, _ in self.run)
            self.runs.append((initials, tuple(position for _, position in self.run)))
        self.run = []

    def pause(self) -> None:
        self.scope_left = 0
        self.supposing = 0
        self.close_run()

    def stop(self) -> None:
        self.pause()
        self.sentence += 1
        self.at_start = True

    def negate(self, cue: str) -> None:
        self.scope = len(self.negations)
        self.negations[self.scope] = cue
        self.scope_left = _NEGATION_SCOPE

    def word(self, surface: str, next_word: str) -> bool:
        """Handle one word token; returns True when it consumed `next_word` (a number scale)."""
        raw = surface.replace("\u2019", "'")
        lower = raw.lower()
        initial = self.at_start
        self.at_start = False
        titled = lower in NEGATION_CUES and raw[:1].isupper() and raw[1:].islower() and not (initial or self.shouting)
        if (lower.endswith("n't") or lower in NEGATION_CUES) and not titled:
            # a capitalized cue inside a sentence is part of a name ("the Game of Yes and No")
            if not (self.supposing or (lower == "not" and next_word.lower() in _NOT_DENYING)):
                self.negate(surface)
            self.close_run()
            return False
        if lower in _SUPPOSING:
            self.supposing = _NEGATION_SCOPE
        if lower.endswith("'s"):
            raw, lower = raw[:-2], lower[:-2]
        raw, lower = raw.replace("'", ""), lower.replace("'", "")
        if lower in _SCOPE_BREAKERS:
            self.scope_left = 0
        if lower in _NUMBER_WORDS:
            self.close_run()
            return self.number(_NUMBER_WORDS[lower], surface, next_word)
        capitalized = raw[:1].isupper()
        inner_capital = any(ch.isupper() for ch in raw[1:])
        if lower in ABBREVIATIONS and capitalized:
            lower = ABBREVIATIONS[lower]
        if lower in DISCOURSE_WORDS and (initial or not capitalized):
            self.close_run()
            return False
        if len(lower) < 2 or (lower in STOPWORDS and not (inner_capital and not self.shouting)):
            if not (self.run and lower in _RUN_CONNECTORS):
                self.close_run()
            return False
        acronym_like = inner_capital and not self.shouting
        if capitalized and not self.shouting:
            self.run.append((lower[0], len(self.terms)))
        else:
            self.close_run()
        key = _name_key(raw, lower) if acronym_like else stem(lower)
        parts = tuple(_name_key(p, p.lower()) for p in camel_parts(raw)) if acronym_like else ()
        if len(parts) > 1:
            key = "".join(parts)
        if acronym_like or (capitalized and not initial and not self.shouting):
            self.add(key, surface, "name", parts=parts if len(parts) > 1 else ())
        else:
            if not capitalized:
                self.lowercase.add(key)
            self.add(key, surface, "word", initial_capital=capitalized and initial and lower not in _COMMON_OPENERS)
        return False

    def number(self, value: Decimal, surface: str, next_word: str) -> bool:
        """One number, taking the next word along when it completes it: a scale ("5 million") or
        the units of a spelled-out tens ("twenty five", as transcripts write 25)."""
        following = next_word.lower()
        units = _UNITS.get(following) if value in _TENS else None
        scale = _SCALES.get(following)
        if units is not None:
            value += units
        elif scale is not None:
            value *= scale
        consumed = units is not None or scale is not None
        if consumed:
            surface = f"{surface} {next_word}"
        self.at_start = False
        self.add(_number_key(value), surface, "number")
        return consumed


def _name_key(raw: str, lower: str) -> str:
    """The key of a word with capitals inside: an acronym's plural is the acronym ("IDs", "LLMs"),
    and a word in capitals of four letters or more is the word ("JONES" is "Jones", "AGENTS" is
    "agents"), so that a name matches however a table or a report cases it. Short acronyms stay
    as written ("US" is not "us"); a word in camel case gets the keys of its words joined
    ("GraphRAG": "graph" + "rag"), which `Term.parts` keeps apart."""
    if len(raw) >= 3 and raw[-1] == "s" and raw[:-1].isupper():
        return lower[:-1]
    return lower if raw.isupper() and len(lower) < 4 else stem(lower)


def camel_parts(word: str) -> list[str]:
    """The words of a name written in camel case, where a capital follows a small letter or opens
    a capitalized word after capitals ("SimpleDocumentIndexer", "GraphRAG" -> "Graph", "RAG";
    "HTTPServer" -> "HTTP", "Server"): "DistributedRuntime" names what "distributed runtime" and
    "DISTRIBUTED_RUNTIME" name. A plural acronym ("IDs") and a word in capitals stay whole."""
    cuts = [
        at
        for at in range(1, len(word))
        if word[at].isupper()
        and (word[at - 1].islower() or (word[at - 1].isupper() and at + 1 < len(word) and word[at + 1].islower()))
        and word[at:] != word[at] + "s"
    ]
    if not cuts:
        return [word]
    bounds = [0, *cuts, len(word)]
    return [word[a:b] for a, b in pairwise(bounds)]


def _is_shouting(text: str) -> bool:
    words = re.findall(r"[^\W\d_]{2,}", text)
    return len(words) >= 6 and sum(w.isupper() for w in words) > 0.6 * len(words)


@lru_cache(maxsize=4096)
def analyze(text: str) -> TextTerms:
    """Reduce a text to its content terms; cached because a root is re-read for many claims."""
    builder = _Builder(_is_shouting(text))
    tokens = list(_TOKEN.finditer(text))
    skip_next = False
    for index, match in enumerate(tokens):
        if skip_next:
            skip_next = False
            continue
        kind = match.lastgroup
        token = match.group()
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        next_word = following.group() if following and following.lastgroup == "word" else ""
        if kind == "stop":
            previous = tokens[index - 1] if index else None
            if token == "." and previous is not None and previous.group().lower() in _DOTTED:
                continue
            builder.stop()
        elif kind == "pause":
            builder.pause()
        elif kind == "currency":
            builder.add(_CURRENCIES[token], token, "word")
        elif kind == "acronym":
            builder.at_start = False
            letters = token.replace(".", "")
            builder.close_run()
            builder.add(letters.lower(), token, "name")
        elif kind == "code":  # "I46.1", "A340", "501(c)(3)", "64-6221541": a code's name, which counts nothing
            builder.at_start = False
            builder.close_run()
            builder.add(token.lower(), token, "name")
        elif kind == "number":
            builder.close_run()
            skip_next = _number_token(builder, token, next_word)
        elif kind == "word":
            skip_next = builder.word(token, next_word)
    builder.stop()
    return TextTerms(
        terms=tuple(builder.terms),
        negations=builder.negations,
        acronyms=frozenset(initials for initials, _ in builder.runs),
        runs=tuple(builder.runs),
        lowercase_keys=frozenset(builder.lowercase),
    )


class Spans:
    """Each term's characters in its text, by the term's position: `(start, end)`, as a dict of
    pairs would give them, kept as two dicts of numbers, which the garbage collector does not
    track. A text the facts verifier reads is kept for the claims shown it again, and a pair per
    term was half of the objects it kept (144 of 285 a text, on the fixture index)."""

    __slots__ = ("ends", "starts")

    def __init__(self) -> None:
        self.starts: dict[int, int] = {}
        self.ends: dict[int, int] = {}

    def __contains__(self, position: object) -> bool:
        return position in self.starts

    def __getitem__(self, position: int) -> tuple[int, int]:
        return self.starts[position], self.ends[position]

    def get(self, position: int, default: tuple[int, int] | None = None) -> tuple[int, int] | None:
        start = self.starts.get(position)
        return default if start is None else (start, self.ends[position])

    def items(self) -> Iterator[tuple[int, tuple[int, int]]]:
        return ((position, (start, self.ends[position])) for position, start in self.starts.items())


def term_spans(text: str, terms: TextTerms) -> Spans:
    """Each term's characters in its text, found in order (terms come in the order they are written)."""
    spans = Spans()
    starts, ends = spans.starts, spans.ends
    cursor = 0
    lowered = text.lower()
    for term in terms.terms:
        surface = term.surface.lower()
        at = lowered.find(surface, cursor)
        if at >= 0:
            cursor = at + len(surface)
            starts[term.position], ends[term.position] = at, cursor
    return spans


def _number_token(builder: _Builder, token: str, next_word: str) -> bool:
    percent = token.endswith("%")
    digits = _NUMBER_SUFFIX.sub("", token.rstrip("%")).replace(",", "")
    try:
        value = Decimal(digits)
    except InvalidOperation:
        return False
    consumed = builder.number(value, token, next_word)
    if percent:
        builder.add("percent", "%", "word")
    return consumed
