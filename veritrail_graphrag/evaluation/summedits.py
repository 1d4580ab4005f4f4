"""SummEdits (sales_call, sales_email, qmsumm) as one-step processes: document -> summary.

The label is for the whole summary, so an item is a summary whose claims are its sentences (the
no-LLM claim extraction of `veritrail verify`); the runner calls the summary consistent only when
every sentence is Fully Supported, and scores it by its weakest sentence.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from veritrail_graphrag.audit.claims import sentence_claims
from veritrail_graphrag.dag import DAG, DagFile, Node
from veritrail_graphrag.evaluation.errors import BenchmarkDataError
from veritrail_graphrag.evaluation.items import BenchmarkItem, LabeledClaim, LoadedBenchmark

FOLDER = "summedits-subset"
DOMAINS = ("sales_call", "sales_email", "qmsumm")
DOCUMENT, SUMMARY = "document", "summary"
SKIP_EMPTY = "empty document or summary"
SKIP_NO_CLAIM = "summary without a sentence of 3+ words"


def _document_id(domain: str, text: str) -> str:
    """By text, not by record id: in qmsumm two id prefixes share one transcript."""
    return f"summedits:{domain}:{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def item_from_record(domain: str, record: dict[str, Any]) -> BenchmarkItem | None:
    """None when the summary has no sentence with verifiable content."""
    nodes = [
        Node(id=DOCUMENT, text=record["doc"], stage=1, kind="document"),
        Node(id=SUMMARY, text=record["summary"], stage=2, kind="summary"),
    ]
    edges = [(DOCUMENT, SUMMARY)]
    claims = sentence_claims(DAG.from_records(nodes, edges), SUMMARY)
    if not claims:
        return None
    return BenchmarkItem(
        id=str(record["id"]),
        benchmark="summedits",
        subset=domain,
        document_id=_document_id(domain, record["doc"]),
        dag=DagFile(nodes=nodes, edges=edges),
        terminal=SUMMARY,
        claims=[LabeledClaim(claim=c) for c in claims],
        supported=record["label"] == 1,
        metadata={"edit_types": list(record.get("edit_types") or []), "original_split": record.get("split")},
    )


def load_summedits(data_dir: Path) -> LoadedBenchmark:
    folder = data_dir / FOLDER
    items: list[BenchmarkItem] = []
    skipped: Counter[str] = Counter()
    for domain in DOMAINS:
        path = folder / f"summedits_{domain}.json"
        try:
            records = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise BenchmarkDataError(f"SummEdits: {path} not found; pass --data DIR holding {FOLDER}/") from None
        except json.JSONDecodeError as exc:
            raise BenchmarkDataError(f"SummEdits: {path} is not JSON ({exc.msg} at line {exc.lineno})") from None
        for position, record in enumerate(records):
            try:
                empty = not str(record["doc"]).strip() or not str(record["summary"]).strip()
                item = None if empty else item_from_record(domain, record)
            except (KeyError, TypeError) as exc:
                raise BenchmarkDataError(f"SummEdits: {path} record #{position} lacks field {exc}") from None
            if item is None:
                skipped[SKIP_EMPTY if empty else SKIP_NO_CLAIM] += 1
            else:
                items.append(item)
    return LoadedBenchmark(
        name="summedits",
        items=items,
        skipped=dict(skipped),
        notes=[
            "One-step process: the document is the root (stage 1), the summary the terminal (stage 2).",
            "Claims are the summary's sentences; a summary is predicted consistent iff every sentence is "
            "Fully Supported, and its score is its lowest sentence score.",
        ],
    )
