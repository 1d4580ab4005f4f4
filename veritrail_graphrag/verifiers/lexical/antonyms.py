"""Opposite words, for the lexical verdict's antonym check.

Word overlap cannot see "easy" turned into "difficult": the claim loses one word and gains one the
source may well use elsewhere. So the verdict looks for a claim word that the evidence lacks while
the evidence sentences aligned with the claim use its opposite. The list is general English (what
summaries flip: degree, direction, quantity, time, evaluation), kept short so that a match is a
real contradiction rather than a loose association. Words that cannot be said of one person
together (another place in age, the other gender of a kin: `person_opposites`) are a list of
their own, for the facts verifier, which checks them against what the evidence says of the same
name.
"""

from __future__ import annotations

from functools import lru_cache

from veritrail_graphrag.verifiers.lexical.text import stem

_PAIRS = """
easy:difficult easy:hard simple:complex simple:complicated strong:weak strength:weakness high:low
higher:lower highest:lowest increase:decrease increase:reduce increasing:decreasing rise:fall raise:lower
grow:shrink more:less more:fewer most:least many:few large:small big:small long:short early:late
before:after first:last new:old young:old young:elderly modern:ancient positive:negative agree:disagree
accept:reject approve:reject include:exclude including:excluding success:failure succeed:fail win:lose
gain:loss profit:loss open:close start:end begin:end start:finish buy:sell import:export
expensive:cheap expensive:affordable costly:cheap fast:slow quick:slow good:bad better:worse best:worst
happy:sad like:dislike love:hate present:absent available:unavailable possible:impossible legal:illegal
public:private internal:external maximum:minimum upper:lower top:bottom inside:outside above:below
north:south east:west true:false correct:incorrect right:wrong same:different
similar:different specific:general various:limited broad:narrow wide:narrow full:empty heavy:light
hot:cold warm:cold dark:bright rich:poor wealthy:poor advantage:disadvantage benefit:drawback
safe:dangerous secure:insecure certain:uncertain sure:unsure clear:unclear known:unknown single:multiple
often:rarely frequent:rare permanent:temporary minor:major junior:senior
mandatory:optional required:optional free:paid monthly:annual monthly:yearly weekly:monthly daily:weekly
online:offline manual:automatic domestic:international local:global national:international
novice:advanced novice:expert beginner:advanced basic:advanced friend:enemy allow:forbid allow:prohibit
support:oppose encourage:discourage enable:disable add:remove arrive:depart enter:exit
remember:forget borrow:lend send:receive victory:defeat peace:war calm:angry kind:cruel
generous:stingy careful:careless honest:dishonest polite:rude likely:unlikely interested:uninterested
satisfied:dissatisfied comfortable:uncomfortable happy:unhappy
larger:smaller largest:smallest bigger:smaller
biggest:smallest longer:shorter longest:shortest earlier:later earliest:latest stronger:weaker
strongest:weakest richer:poorer richest:poorest faster:slower fastest:slowest easier:harder easiest:hardest
"""
"""Pairs as written; both sides are stemmed the way claims and evidence are."""

_AGES = "younger:older younger:elder youngest:oldest youngest:eldest"
"""Opposites of age between people or things, which time does not change ("young" Scrooge grows
"old"; the youngest child stays the youngest)."""

_KIN = """
father:mother son:daughter brother:sister husband:wife uncle:aunt nephew:niece grandfather:grandmother
grandson:granddaughter
"""
"""The same kin of the other gender: one person is a father and a husband and a son (and a teacher
and a student), but not a son and a daughter."""


def _build(pairs: list[list[str]]) -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for pair in pairs:
        left, right = (stem(word) for word in pair)
        table.setdefault(left, set()).add(right)
        table.setdefault(right, set()).add(left)
    return {key: frozenset(values) for key, values in table.items()}


@lru_cache(maxsize=1)
def _table() -> dict[str, frozenset[str]]:
    return _build([pair.split(":") for pair in f"{_PAIRS} {_AGES}".split()])


@lru_cache(maxsize=1)
def _people() -> dict[str, frozenset[str]]:
    return _build([pair.split(":") for pair in f"{_AGES} {_KIN}".split()])


@lru_cache(maxsize=1)
def _person_words() -> frozenset[str]:
    return frozenset(word for pair in f"{_AGES} {_KIN}".split() for word in pair.split(":"))


def opposites(key: str) -> frozenset[str]:
    """The stemmed words opposite to a stemmed word (empty when it has none listed)."""
    return _table().get(key, frozenset())


def person_opposites(key: str) -> frozenset[str]:
    """The stemmed words that cannot be said of the same person as a stemmed word: another place in
    age or the other gender of a kin ("eldest" / "youngest", "son" / "daughter")."""
    return _people().get(key, frozenset())


def is_person_word(surface: str) -> bool:
    """Whether a word as written is one of `person_opposites`' words, not a verb that stems alike
    ("fathered") nor a plural ("the Bronte sisters" are a group)."""
    return surface.lower() in _person_words()
