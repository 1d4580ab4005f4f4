"""FABLES claims checked against the annotators' evidence quotes (the books are not public).

Each claim becomes a one-step DAG whose roots are its evidence quotes. The annotators picked
those quotes *after* deciding the label, so this is oracle retrieval: much easier than the
paper's FABLES+ setting, where the verifier has to find the evidence in a whole book through the
intermediate summaries. Figures from here are not comparable with the paper's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from veritrail_graphrag.dag import DagFile, Node
from veritrail_graphrag.evaluation.errors import BenchmarkDataError
from veritrail_graphrag.evaluation.items import BenchmarkItem, LabeledClaim, LoadedBenchmark
from veritrail_graphrag.models import Claim

FOLDER = "fables"
CLAIMS_FILE = "claims.jsonl"
TERMINAL = "claim"
_NOT_A_QUOTE = re.compile(
    r"^(?:n/?a|none|-+|no quotation|no evidence.*|cann?o?t verify.*|can'?t verify.*|not true)\W*$", re.IGNORECASE
)
"""Annotator notes written where a quote belongs ("N/A", "None.", "cant verify or refute")."""

SKIP_INAPPLICABLE = "label Inapplicable (neither faithful nor unfaithful)"
SKIP_NO_QUOTE = "no evidence quote"


def quotes(record: dict[str, Any]) -> list[str]:
    """The evidence strings that are actual quotes."""
    return [q.strip() for q in record.get("evidence") or [] if q.strip() and not _NOT_A_QUOTE.match(q.strip())]


def item_from_record(record: dict[str, Any]) -> BenchmarkItem:
    found = quotes(record)
    nodes = [Node(id=f"quote-{i + 1}", text=q, stage=1, kind="evidence_quote") for i, q in enumerate(found)]
    nodes.append(Node(id=TERMINAL, text=record["claim"], stage=2, kind="summary_claim"))
    claim = Claim(id=str(record["claim_id"]), text=record["claim"])
    return BenchmarkItem(
        id=str(record["claim_id"]),
        benchmark="fables",
        subset=str(record["model"]),
        document_id=f"fables:{record['book']}",
        dag=DagFile(nodes=nodes, edges=[(n.id, TERMINAL) for n in nodes[:-1]]),
        terminal=TERMINAL,
        claims=[LabeledClaim(claim=claim, supported=record["label_binary"] == "supported")],
        metadata={"label": record["label"], "book": record["book"]},
    )


def load_fables(data_dir: Path) -> LoadedBenchmark:
    path = data_dir / FOLDER / CLAIMS_FILE
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise BenchmarkDataError(f"FABLES: {path} not found; pass --data DIR holding {FOLDER}/{CLAIMS_FILE}") from None
    items: list[BenchmarkItem] = []
    skipped = {SKIP_INAPPLICABLE: 0, SKIP_NO_QUOTE: 0}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if record["label_binary"] not in ("supported", "unsupported"):
                skipped[SKIP_INAPPLICABLE] += 1
                continue
            if not quotes(record):
                skipped[SKIP_NO_QUOTE] += 1
                continue
            items.append(item_from_record(record))
        except json.JSONDecodeError as exc:
            raise BenchmarkDataError(f"FABLES: {path} line {number} is not JSON ({exc.msg})") from None
        except (KeyError, TypeError) as exc:
            raise BenchmarkDataError(f"FABLES: {path} line {number} lacks field {exc}") from None
    return LoadedBenchmark(
        name="fables",
        items=items,
        skipped=skipped,
        notes=[
            "Oracle retrieval: each claim's roots are the quotes annotators chose after labeling it, so this "
            "is far easier than the paper's FABLES+ setting (whole book, intermediate summaries) and its "
            "figures are not comparable with the paper's.",
            "Labels: Yes = supported; No and PartialSupport = Not Fully Supported; Inapplicable claims and "
            "claims whose evidence holds no quote (empty, 'N/A', 'None', ...) are skipped and counted.",
        ],
    )
