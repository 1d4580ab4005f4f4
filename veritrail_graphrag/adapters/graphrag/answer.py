"""Answers saved by hand after `graphrag query`: the final answer, and optionally its map answers.

GraphRAG's CLI prints only the final answer. Its `[Data: Reports (..)]` citations say which
community reports it drew on, so a saved answer can still be traced: the cited reports become its
inputs. Map answers saved as files become stage-5 nodes wired to the reports they cite.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from veritrail_graphrag.adapters.graphrag import ids
from veritrail_graphrag.adapters.graphrag.query_run import (
    REDUCE_STAGE,
    MapAnswer,
    MapBatch,
    QueryRun,
    ancestry,
    cited_reports,
)
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.errors import AdapterError
from veritrail_graphrag.files import read_text


def _read_text(path: Path) -> str:
    text = read_text(path, AdapterError)
    if not text.strip():
        raise AdapterError("the file is empty", file=path)
    return text


def _map_answer(path: Path) -> MapAnswer:
    """A `.txt`/`.md` answer (score unknown: kept), or JSON `{"answer": ..., "score": ...}`."""
    text = _read_text(path)
    if path.suffix != ".json":
        return MapAnswer(answer=text, score=100)
    try:
        data = json.loads(text)
        return MapAnswer(answer=data["answer"], score=float(data.get("score", 100)))
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise AdapterError(f"expected {{'answer': str, 'score': number}} ({exc})", file=path) from None


def run_from_files(answer_path: Path, map_answers_dir: Path, question: str | None) -> QueryRun:
    """A query run from an answer file and a folder of map-answer files (one answer per file)."""
    if not map_answers_dir.is_dir():
        raise AdapterError("not a folder of map-answer files", file=map_answers_dir)
    files = sorted(p for p in map_answers_dir.iterdir() if p.suffix in {".txt", ".md", ".json"})
    if not files:
        raise AdapterError("no .txt, .md or .json map answers", file=map_answers_dir)
    batches = []
    for index, path in enumerate(files):
        answer = _map_answer(path)
        reports = cited_reports(answer.answer)
        if not reports:
            raise AdapterError("cites no report ([Data: Reports (...)]), so it cannot be traced", file=path)
        batches.append(MapBatch(index=index, report_ids=reports, answers=[answer]))
    final = _read_text(answer_path)
    digest = hashlib.sha256(final.encode()).hexdigest()[:8]
    return QueryRun(
        run_id=f"{answer_path.stem}-{digest}",
        query=question or "(question not given)",
        notes=f"built from {answer_path.name} and {len(files)} map-answer files; batches = reports each cites",
        batches=batches,
        final_answer=final,
    )


def add_cited_answer(index: DAG, answer: str, question: str | None = None, source: str = "answer") -> DAG:
    """The index plus a final answer (stage 6) whose inputs are the reports it cites."""
    reports = [ids.report_id(c) for c in cited_reports(answer)]
    if not reports:
        raise AdapterError("the answer cites no report ([Data: Reports (...)]), so it cannot be traced", file=source)
    unknown = [r for r in reports if r not in index]
    if unknown:
        raise AdapterError(f"cites report(s) not in the index: {', '.join(unknown)}", file=source)
    kept = ancestry(index, set(reports))
    final = Node(
        id=ids.FINAL_ANSWER,
        text=answer,
        stage=REDUCE_STAGE,
        kind="final_answer",
        metadata={"cited_reports": cited_reports(answer), "source": source},
    )
    nodes = [n for n in index if n.id in kept] + [final]
    edges = [(u, v) for u, v in index.edges if u in kept and v in kept] + [(r, final.id) for r in reports]
    metadata = {
        **index.metadata,
        "question": question,
        "answer_source": source,
        "map_answers": "not recorded: the final answer is linked to the reports it cites",
        "index_nodes_dropped": len(index) - len(kept),
    }
    return DAG.from_records(nodes, edges, metadata)
