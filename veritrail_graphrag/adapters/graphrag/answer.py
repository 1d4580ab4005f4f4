"""Answers saved by hand after `graphrag query`: the final answer, and optionally its map answers.

GraphRAG's CLI prints only the final answer. Its `[Data: Reports (..); Entities (..); Sources (..)]`
citations say which records it drew on, so a saved answer can still be traced: the cited records
become its inputs (reports by community number, entities, relationships and claims by
`human_readable_id`, sources by row). What the context window held beyond what the answer cites
is lost, and the DAG's notes say so. Map answers of a global search saved as files become
stage-5 nodes wired to the reports they cite.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from veritrail_graphrag.adapters.graphrag import ids
from veritrail_graphrag.adapters.graphrag.citations import CitationIndex, data_citations
from veritrail_graphrag.adapters.graphrag.query_dag import REDUCE_STAGE, above, on_top
from veritrail_graphrag.adapters.graphrag.query_run import MapAnswer, MapBatch, Method, QueryRun, cited_reports
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.errors import AdapterError
from veritrail_graphrag.files import read_text

UNCITED_CONTEXT_LOST = (
    "the answer was not captured: its inputs are only the records it cites; whatever else GraphRAG's "
    "context window held could not be recovered (capture the search with `veritrail query` or "
    "`veritrail graphrag query` to audit it against everything the model was shown)"
)


def _read_text(path: Path) -> str:
    text = read_text(path, AdapterError)
    if not text.strip():
        raise AdapterError("the file is empty", file=path)
    return text


def _map_answer(path: Path) -> MapAnswer:
    """A `.txt`/`.md` answer (score unknown: read by reduce), or JSON `{"answer": ..., "score": ...}`."""
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
        if not reports and answer.score > 0:  # GraphRAG's "nothing relevant here" scores 0 and cites nothing
            raise AdapterError(
                "cites no report ([Data: Reports (...)]), so it cannot be traced (only an answer scored 0, "
                "which reduce does not read, may cite none)",
                file=path,
            )
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


def add_cited_answer(
    index: DAG, answer: str, question: str | None = None, source: str = "answer", method: Method = "global"
) -> DAG:
    """The index plus a final answer whose inputs are the records it cites.

    Global search's answer is the reduce step (stage 6, its map answers unknown) and can only have
    read reports: other records it cites are left to the citation check. The other methods' answers
    sit one stage above the highest record they cite. A cited record the index does not hold is no
    input; the citation check reports it for the claims that cite it.
    """
    citations = [c for c in data_citations(answer) if method != "global" or c.dataset == "reports"]
    nodes, unknown = CitationIndex(index).resolve(citations)
    if not nodes:
        wanted = "[Data: Reports (...)]" if method == "global" else "[Data: Sources (...); Entities (...); ...]"
        raise AdapterError(f"the answer cites no record ({wanted}), so it cannot be traced", file=source)
    stage = REDUCE_STAGE if method == "global" else above(index, nodes)
    final = Node(
        id=ids.FINAL_ANSWER,
        text=answer,
        stage=stage,
        kind="final_answer",
        metadata={"method": method, "cited_reports": cited_reports(answer), "source": source},
    )
    notes = [UNCITED_CONTEXT_LOST]
    if unknown:  # a finding about the answer, reported per claim in its citations, not an input error
        notes.append(f"the answer cites record(s) not in the index: {', '.join(unknown)}")
    if method == "global":
        notes.append("map answers were not given: the final answer is linked to the reports it cites")
    if method == "drift":
        notes.append("DRIFT's primer and follow-up answers were not recorded: the final answer is linked directly")
    metadata = {"question": question, "method": method, "answer_source": source, "notes": notes}
    return on_top(index, [final], [(n, final.id) for n in nodes], metadata)
