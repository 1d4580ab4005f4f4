"""What `veritrail check-cited` checks: the answer (or a list of claims), the spans, how citations
are written, and where the report goes.

- `--spans FILE` with `--answer FILE`: `[S0]`-style citations; the report is written beside the
  answer as `<answer name without suffix>.check-cited.json` (`answer.md` -> `answer.check-cited.json`).
- a GraphRAG project `ROOT`: the spans are the index records the answer's `[Data: Reports (2, 7);
  Entities (5)]` markers cite (a report's full text, an entity's or relationship's description, a
  text unit). The answer is a saved query run's final answer (`--query-run`, default the latest;
  any search method), its report `check-cited.json` in the run's folder; or an answer file
  (`--answer`), its report in a folder beside the index named after the file.
- `--claims FILE` (a JSON list of claims, each a string or `{"text": ...}` with its citations)
  instead of an answer: the caller's own claims, reported beside the file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veritrail_graphrag.cited.claims import Markers
from veritrail_graphrag.cited.spans import Span, load_spans, make_spans
from veritrail_graphrag.errors import ClaimsError, UsageError, VeriTrailError
from veritrail_graphrag.files import read_json, read_text


@dataclass
class CheckInput:
    answer: str | list[str]
    spans: list[Span]
    report_path: Path
    markers: Markers | None = None
    settings_root: Path | None = None
    """Where the model settings are looked for: the GraphRAG project (its settings.yaml)."""
    notes: list[str] = field(default_factory=list)


def load_claim_list(path: Path) -> list[str]:
    """A JSON list of claims: strings, or objects with a `text`; errors name the entry."""
    data: Any = read_json(path, ClaimsError)
    if not isinstance(data, list) or not data:
        raise ClaimsError("expected a non-empty JSON list of claims (strings or {'text': ...})", file=path)
    claims: list[str] = []
    for position, item in enumerate(data):
        text = item.get("text") if isinstance(item, dict) else item
        if not isinstance(text, str) or not text.strip():
            raise ClaimsError(f"entry {position}: a claim is a non-empty string or {{'text': ...}}", file=path)
        claims.append(text)
    return claims


def _answer(answer_path: Path | None, claims_path: Path | None) -> tuple[str | list[str], Path]:
    """The answer's text or the list of claims, and the file it came from."""
    if claims_path is not None:
        return load_claim_list(claims_path), claims_path
    assert answer_path is not None
    return read_text(answer_path, VeriTrailError), answer_path


def spans_input(spans_path: Path, answer_path: Path | None, claims_path: Path | None, out: Path | None) -> CheckInput:
    answer, source = _answer(answer_path, claims_path)
    report_path = out or source.with_name(f"{source.stem}.check-cited.json")
    return CheckInput(answer, load_spans(spans_path), report_path)


def graphrag_input(
    root: Path, answer_path: Path | None, claims_path: Path | None, query_run: str | None, out: Path | None
) -> CheckInput:
    from veritrail_graphrag.adapters.graphrag import locate, read_index
    from veritrail_graphrag.adapters.graphrag.citations import cited_records, read_data_group
    from veritrail_graphrag.adapters.graphrag.layout import answer_dir
    from veritrail_graphrag.audit.options import SourceOptions
    from veritrail_graphrag.audit.targets import graphrag_query_target

    notes: list[str] = []
    if answer_path is None and claims_path is None:
        target = graphrag_query_target(root, SourceOptions(query_run=query_run))
        dag, answer, folder = target.dag, target.dag.node("final_answer").text, target.out_dir
        notes += [*target.notes, f"checked the final answer of {target.source}"]
    else:
        if query_run is not None:
            raise UsageError("give --query-run, or --answer/--claims, not both")
        answer, source = _answer(answer_path, claims_path)
        dag = read_index(root)
        folder = answer_dir(root, source.stem, answer if isinstance(answer, str) else "\n".join(answer))
    text = answer if isinstance(answer, str) else "\n".join(answer)
    records = cited_records(dag, text)
    if not records:
        notes.append(f"{root}: the answer cites no record of this index ([Data: Reports (...)], ...)")
    return CheckInput(
        answer,
        make_spans(records, str(root)),
        out or folder / "check-cited.json",
        Markers(read=read_data_group),
        locate(root).project_root or root,
        notes,
    )
