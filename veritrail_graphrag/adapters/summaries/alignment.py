"""Recover which consecutive children each parent summary merged, from the texts alone.

Used when the run's packing settings are unknown. A merge keeps the names and content words of
the children it read, and BooookScore-style merges read consecutive runs, so the grouping is a
monotone segmentation: child i goes to parent g(i), g non-decreasing, every parent gets at least
one child. We score child i against parent k by the share of the child's informative words
(TF-IDF-weighted over the level) that the parent repeats, and pick the segmentation with the best
total score by dynamic programming (O(children x parents)). Scores below a noise floor count as
zero, and a child neither neighbouring parent echoes (a preface, an "I cannot summarize this"
reply) is left to the tie-break, which follows the packing: a greedy packer fills the earlier
prompt first, so such a child joins the earlier group.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
# A parent that repeats less than this share of a child's informative words gives no evidence
# that it read the child: such scores are chance overlaps (common names, the book's setting).
_NOISE = 0.1
# Function words carry no evidence of which child a parent read.
_STOPWORDS = frozenset(
    """a about above after again against all also although am an and any are as at be because
    been before being below between both but by can could did do does doing down during each
    either even ever every few for from further had has have having he her here hers herself
    him himself his how however i if in into is it its itself just let may me might more most
    much must my myself neither never no nor not now of off on once one only or other our ours
    ourselves out over own same she should since so some still such than that the their theirs
    them themselves then there these they this those though through to too under until up upon
    us very was we were what when where whether which while who whom whose why will with within
    without would yet you your yours yourself yourselves""".split()
)


def content_words(text: str) -> Counter[str]:
    """Counts of lower-cased words that are not function words, possessives folded ("Tom's" -> tom)."""
    words = (w.split("'", 1)[0] for w in _WORD.findall(text.lower()))
    return Counter(w for w in words if len(w) > 1 and w not in _STOPWORDS)


def affinities(parents: Sequence[str], children: Sequence[str]) -> list[list[float]]:
    """a[k][i] in [0, 1]: the share of child i's word weight that parent k repeats.

    A word weighs (1 + log count in the child) x log((n + 1) / children using it): what a child
    says often and its neighbours do not (its own characters and places) decides where it went.
    """
    child_words = [content_words(c) for c in children]
    parent_words = [set(content_words(p)) for p in parents]
    spread = Counter(w for words in child_words for w in words)
    idf = {w: math.log((len(children) + 1) / df) for w, df in spread.items()}
    weights = [{w: (1 + math.log(n)) * idf[w] for w, n in words.items()} for words in child_words]
    scores = []
    for words in parent_words:
        row = []
        for weight in weights:
            total = sum(weight.values())
            row.append(sum(v for w, v in weight.items() if w in words) / total if total else 0.0)
        scores.append(row)
    return scores


def align_groups(parents: Sequence[str], children: Sequence[str]) -> list[range]:
    """The consecutive, non-empty run of children behind each parent, in order."""
    m, n = len(parents), len(children)
    if m == 0 or m > n:
        raise ValueError(f"cannot split {n} children among {m} parents")
    if m == 1:
        return [range(n)]
    score = [[a if a >= _NOISE else 0.0 for a in row] for row in affinities(parents, children)]
    # best[k][i]: best total for children 0..i with child i in parent k; came_from_new: k started at i.
    best = [[-math.inf] * n for _ in range(m)]
    came_from_new = [[False] * n for _ in range(m)]
    best[0][0] = score[0][0]
    for i in range(1, n):
        for k in range(min(i + 1, m)):
            stay = best[k][i - 1]
            new = best[k - 1][i - 1] if k > 0 else -math.inf
            if new >= stay:
                best[k][i], came_from_new[k][i] = new + score[k][i], True
            else:
                best[k][i] = stay + score[k][i]
    starts = [0] * m
    k = m - 1
    for i in range(n - 1, 0, -1):
        if came_from_new[k][i]:
            starts[k] = i
            k -= 1
    return [range(starts[k], starts[k + 1] if k + 1 < m else n) for k in range(m)]
