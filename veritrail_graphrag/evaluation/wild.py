"""The wild benchmark: claims of community reports of real GraphRAG indexes that users published,
labelled supported, unsupported or uncheckable by reading each index's own text units.

The labels keep ids only (index folder, community, sentence number, a fingerprint of the claim's
words): most of those indexes carry no licence, so every text is read from the corpus at run time
(`--data`, the folder holding the indexes). The package ships the dev labels
(`wild_labels/dev.jsonl`, its README says how they were made); `--labels FILE` scores another file
of the same format as the test split, with the dev labels kept for tuning the reference point.

A label is scored only when its claim is found and its words are still the ones labelled: a
change to sentence splitting or claim cleaning can move or change claims. A claim found under
another sentence number with the same words is scored and reported; any other label is reported,
never scored and never dropped in silence.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Literal

import networkx as nx
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from veritrail_graphrag.adapters.graphrag import read_index
from veritrail_graphrag.audit.claims import split_claims
from veritrail_graphrag.dag import DAG, DagFile
from veritrail_graphrag.errors import VeriTrailError, validation_problem
from veritrail_graphrag.evaluation.errors import BenchmarkDataError
from veritrail_graphrag.evaluation.items import BenchmarkItem, LabeledClaim, LoadedBenchmark, Split
from veritrail_graphrag.files import read_text
from veritrail_graphrag.models import Claim

CORPUS_FOLDER = "graphrag-wild"
DEV_LABELS = "dev.jsonl"
HELDOUT_LABELS = "heldout.jsonl"
_BRACKETED = re.compile(r"\[[^\]]*\]")
_WORDS = re.compile(r"\w+")
_SHOWN_PROBLEMS = 12


def claim_key(text: str) -> str:
    """The fingerprint of a claim's words: bracketed spans (citations) removed, lower-cased, word
    tokens joined by single spaces, the first 12 hex digits of its SHA-1. It identifies a claim
    without holding any of its text."""
    words = " ".join(_WORDS.findall(_BRACKETED.sub("", text).lower()))
    return hashlib.sha1(words.encode()).hexdigest()[:12]


class WildLabel(BaseModel):
    """One line of a labels file (the fields `wild_labels/README.md` describes)."""

    model_config = ConfigDict(extra="ignore")

    index: str = Field(min_length=1)
    community: int
    sentence: int = Field(ge=0)
    key: str = Field(pattern=r"^[0-9a-f]{12}$")
    label: Literal["supported", "unsupported", "uncheckable"]
    rank: int | None = None
    text_unit: str | None = None
    reason: str = ""

    @property
    def where(self) -> str:
        return f"{self.index} report {self.community} sentence {self.sentence}"


def dev_labels_path() -> Path:
    return Path(str(files("veritrail_graphrag.evaluation") / "wild_labels" / DEV_LABELS))


def heldout_labels_path() -> Path:
    """The held-out labels (the top reports of five indexes, which the dev set never takes):
    measured, never tuned on (`wild_labels/HELDOUT.md`)."""
    return Path(str(files("veritrail_graphrag.evaluation") / "wild_labels" / HELDOUT_LABELS))


def read_labels(path: Path) -> list[WildLabel]:
    """Every label of a JSON-lines file; a line that is not one names the file and line."""
    labels = []
    seen: dict[tuple[str, int, int], int] = {}
    for number, line in enumerate(read_text(path, BenchmarkDataError).splitlines(), 1):
        if not line.strip():
            continue
        try:
            label = WildLabel.model_validate(json.loads(line))
        except json.JSONDecodeError as exc:
            raise BenchmarkDataError(f"{path}, line {number}: not JSON ({exc.msg})") from None
        except ValidationError as exc:
            raise BenchmarkDataError(f"{path}, line {number}: {validation_problem(exc)}") from None
        place = (label.index, label.community, label.sentence)
        if place in seen:
            raise BenchmarkDataError(f"{path}, line {number}: {label.where} is labelled on line {seen[place]} too")
        seen[place] = number
        labels.append(label)
    if not labels:
        raise BenchmarkDataError(f"{path}: no labels")
    return labels


def find_corpus(data_dir: Path) -> Path:
    """`--data` when it holds the indexes, else `graphrag-wild` inside it or beside the benchmarks
    (`shared/fixtures/`)."""
    for candidate in (data_dir / CORPUS_FOLDER, data_dir.parent / "fixtures" / CORPUS_FOLDER):
        if candidate.is_dir():
            return candidate
    return data_dir


def _report_dag(index: DAG, report: str) -> DagFile:
    """The report and everything it was written from: all the traversal can read."""
    kept = nx.ancestors(index.graph, report) | {report}
    return DagFile(
        metadata=index.metadata,
        nodes=[index.node(n) for n in sorted(kept)],
        edges=[(u, v) for u, v in index.edges if u in kept and v in kept],
    )


class _Matched(BaseModel):
    claims: list[LabeledClaim] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    moved: list[str] = Field(default_factory=list)


def _match(labels: Sequence[WildLabel], claims: Sequence[Claim]) -> _Matched:
    """Each label's claim: at its sentence number when the words agree, else the one claim of the
    report with the labelled words (splitting moved it), else none (reported)."""
    by_sentence = {c.sentence: c for c in claims}
    by_key: dict[str, list[Claim]] = defaultdict(list)
    for claim in claims:
        by_key[claim_key(claim.text)].append(claim)
    matched = _Matched()
    taken: set[str] = set()
    for label in labels:
        claim = by_sentence.get(label.sentence)
        if claim is None or claim_key(claim.text) != label.key:
            candidates = [c for c in by_key.get(label.key, []) if c.id not in taken]
            if len(candidates) != 1:
                why = "no claim at that sentence" if claim is None else "the claim there has other words now"
                matched.problems.append(f"{label.where} ({label.label}): {why}")
                continue
            claim = candidates[0]
            matched.moved.append(f"{label.where} is now sentence {claim.sentence}")
        taken.add(claim.id)
        matched.claims.append(
            LabeledClaim(
                claim=claim,
                supported=None if label.label == "uncheckable" else label.label == "supported",
                uncheckable=label.label == "uncheckable",
            )
        )
    return matched


def _items(corpus: Path, labels: Sequence[WildLabel], split: Split, warnings: list[str]) -> list[BenchmarkItem]:
    by_index: dict[str, dict[int, list[WildLabel]]] = defaultdict(lambda: defaultdict(list))
    for label in labels:
        by_index[label.index][label.community].append(label)
    items = []
    problems: list[str] = []
    unread: list[tuple[str, int]] = []
    moved: list[str] = []
    for index_name, reports in sorted(by_index.items()):
        folder = corpus / index_name
        count = sum(len(v) for v in reports.values())
        if not folder.is_dir():
            raise BenchmarkDataError(f"wild: no index folder {index_name!r} in {corpus} ({count} labels name it)")
        try:
            index = read_index(folder)
        except VeriTrailError as exc:
            unread.append(
                (f"{index_name}: the index cannot be read, so none of its {count} labels is scored ({exc})", count)
            )
            continue
        for community, chosen in sorted(reports.items()):
            report = f"report:{community}"
            if report not in index:
                problems += [f"{label.where} ({label.label}): the index has no such report" for label in chosen]
                continue
            claims, _ = split_claims(index, report)
            matched = _match(chosen, claims)
            problems += matched.problems
            moved += matched.moved
            if not matched.claims:
                continue
            items.append(
                BenchmarkItem(
                    id=f"{index_name}/{community}",
                    benchmark="wild",
                    subset=index_name,
                    document_id=index_name,
                    dag=_report_dag(index, report),
                    terminal=report,
                    claims=matched.claims,
                    metadata={"index": index_name, "community": community},
                    split=split,
                )
            )
    warnings += _not_scored(split, unread, problems)
    if moved:
        warnings.append(f"{len(moved)} {split} label(s) scored at another sentence number, same words: " + _few(moved))
    return items


def _few(problems: Sequence[str]) -> str:
    shown = "; ".join(problems[:_SHOWN_PROBLEMS])
    return shown + (f"; and {len(problems) - _SHOWN_PROBLEMS} more" if len(problems) > _SHOWN_PROBLEMS else "")


def _not_scored(split: Split, unread: Sequence[tuple[str, int]], problems: Sequence[str]) -> list[str]:
    """One warning counting every label left out, those of indexes that cannot be read (each
    named, with its count) and those whose claim was not found as labelled (each named)."""
    lost = sum(count for _, count in unread)
    if not unread and not problems:
        return []
    parts = []
    if unread:
        parts.append(
            f"the {lost} labels of {len(unread)} index(es) that cannot be read: " + "; ".join(w for w, _ in unread)
        )
    if problems:
        parts.append(f"{len(problems)} whose claim was not found as labelled: {_few(problems)}")
    return [f"{lost + len(problems)} {split} label(s) not scored: " + "; ".join(parts)]


def load_wild(data_dir: Path, labels: Path | None = None) -> LoadedBenchmark:
    """The dev labels as the dev split and, with `labels`, that file as the test split."""
    corpus = find_corpus(data_dir)
    warnings: list[str] = []
    dev_path = dev_labels_path()
    items = _items(corpus, read_labels(dev_path), Split.DEV, warnings)
    if labels is not None and labels.resolve() != dev_path.resolve():
        items += _items(corpus, read_labels(labels), Split.TEST, warnings)
    described = f"the shipped dev labels ({DEV_LABELS})" + (f" and {labels} as the test split" if labels else "")
    return LoadedBenchmark(
        name="wild",
        items=items,
        warnings=warnings,
        triage=True,
        notes=[
            f"Claims of community reports of the real GraphRAG indexes in {corpus}, labelled by reading each index's "
            f"text units: {described}. A claim is one sentence of its report, verified from the report down to "
            "the text units as `veritrail audit-index` does.",
        ],
    )
