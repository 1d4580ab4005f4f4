"""Fixed dev/test splits by source document.

Thresholds and verifier settings are tuned on dev and reported on test. A split by item would
leak: SummEdits has ~30 edited summaries per document and FABLES ~120 claims per book, so a
document's text would be tuned on and tested on at once. Documents are ordered by a keyed hash of
their id and the first `dev_fraction` of them (rounded, at least one) go to dev. Ranking rather
than thresholding each hash matters because the benchmarks have few documents (26 FABLES books):
a per-document coin flip put 2 of the 26 books in dev, too few to tune on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from itertools import chain, zip_longest

from veritrail_graphrag.evaluation.items import BenchmarkItem, Split

SPLIT_SEED = "veritrail-eval-v1"
DEV_FRACTION = 0.3


def _key(seed: str, text: str) -> str:
    return hashlib.sha256(f"{seed}\x00{text}".encode()).hexdigest()


def assign_splits(
    document_ids: Iterable[str], seed: str = SPLIT_SEED, dev_fraction: float = DEV_FRACTION
) -> dict[str, Split]:
    """Split per document: the same ids and seed always give the same assignment."""
    ranked = sorted(set(document_ids), key=lambda d: _key(seed, d))
    dev_count = max(1, round(dev_fraction * len(ranked))) if len(ranked) > 1 else 0
    return {d: Split.DEV if position < dev_count else Split.TEST for position, d in enumerate(ranked)}


def select(items: Iterable[BenchmarkItem], split: Split, seed: str = SPLIT_SEED) -> list[BenchmarkItem]:
    """The items of one split, in a seeded order that mixes subsets, so `--limit N` is a fair sample
    rather than the first domain's first N records. An item whose split the data fixes (`split`,
    a labels file) is in that split; the others are split by document."""
    pool = list(items)
    splits = assign_splits((item.document_id for item in pool if item.split is None), seed)
    chosen = [item for item in pool if (item.split or splits[item.document_id]) is split]
    return sorted(chosen, key=lambda item: _key(seed, item.id))


def has_unsupported(item: BenchmarkItem) -> bool:
    """Whether an item holds an unsupported unit: an inconsistent summary, a planted error."""
    return item.supported is False or any(claim.supported is False for claim in item.claims)


def balanced(items: Sequence[BenchmarkItem], limit: int) -> list[BenchmarkItem]:
    """`limit` items taken in turn from the items with an unsupported unit and from the others, each
    in the split's order, so that `--limit N` scores both classes; when one class runs out, the
    other fills the slice."""
    unsupported = [item for item in items if has_unsupported(item)]
    supported = [item for item in items if not has_unsupported(item)]
    alternating = chain.from_iterable(zip_longest(unsupported, supported))
    return [item for item in alternating if item is not None][:limit]
