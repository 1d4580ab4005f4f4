"""What an audit runs on: a DAG, the node(s) whose claims are verified, and where reports go.

`veritrail audit PATH` accepts a GraphRAG project (or its output folder), a veritrail DAG JSON, a
summary log or a BooookScore file. Reports are written next to the run's own artifacts: in the
query run's folder, under the project's `veritrail/` for GraphRAG, or beside the file otherwise.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path

from veritrail_graphrag.adapters.graphrag import QueryRun, add_query_run, locate, read_index, search_method
from veritrail_graphrag.adapters.graphrag.answer import add_cited_answer, run_from_files
from veritrail_graphrag.adapters.graphrag.citations import sentence_citations
from veritrail_graphrag.adapters.graphrag.index import tolerated_notes
from veritrail_graphrag.adapters.graphrag.layout import (
    DEFAULT_REPORTS,
    answer_dir,
    index_audit_folder,
    legacy_veritrail_dir,
    queries_dir,
    saved_runs_dirs,
    veritrail_dir,
)
from veritrail_graphrag.adapters.graphrag.query_run import FILE_NAME
from veritrail_graphrag.adapters.summaries import load_summary_run
from veritrail_graphrag.audit.options import SourceOptions
from veritrail_graphrag.audit.pasted import blame_the_answer
from veritrail_graphrag.citations import SentenceCitations
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.errors import AdapterError, DagError, UsageError
from veritrail_graphrag.files import read_text


@dataclass
class AuditTarget:
    dag: DAG
    terminals: list[str]
    out_dir: Path
    source: str
    question: str | None = None
    notes: list[str] = field(default_factory=list)
    project_root: Path | None = None
    """Where the LLM settings are looked for and the LLM cache goes (`.veritrail/`): the GraphRAG
    project, else the folder audited (or the audited file's folder)."""
    citations: dict[str, list[SentenceCitations]] | None = None
    cache_dir: Path | None = None
    """Where model answers are cached, when not the project's `.veritrail/` (see `elsewhere`)."""
    pasted: bool = False
    """An answer saved without what GraphRAG showed the model, wired to the records it cites: its
    unsupported words none of them holds are blamed on the answer (`pasted.py`)."""

    def relocated(self, result: ClaimResult) -> ClaimResult:
        """`result` with its error stage as the target's kind calls for."""
        if not self.pasted or self.citations is None:
            return result
        return blame_the_answer(result, self.dag, self.citations[result.terminal])


@dataclass(frozen=True)
class SavedRun:
    """A saved query run and its folder: users name runs by their folder (a copy keeps the run_id)."""

    folder: Path
    run: QueryRun


def elsewhere(target: AuditTarget, out: str | os.PathLike[str] | None) -> AuditTarget:
    """The target with its reports (and lock, checkpoint and model cache) in `out` instead, when
    given: the way to audit a run in a folder that is not writable, or to keep two audits apart."""
    if out is None:
        return target
    return dataclasses.replace(target, out_dir=Path(out), cache_dir=Path(out) / ".veritrail")


def _run_folders(path: Path) -> list[Path]:
    return [
        run_folder
        for folder in saved_runs_dirs(path)
        for run_folder in (sorted(folder.iterdir()) if folder.is_dir() else [])
        if (run_folder / FILE_NAME).is_file()
    ]


def saved_runs(path: Path) -> tuple[list[SavedRun], list[str]]:
    """The readable saved runs of the index at `path`, oldest first, and one warning per run that
    cannot be read (skipped: one broken file must not hide the others) or per run_id held by more
    than one folder."""
    runs: list[SavedRun] = []
    warnings: list[str] = []
    for folder in _run_folders(path):
        try:
            runs.append(SavedRun(folder, QueryRun.load(folder)))
        except AdapterError as exc:
            warnings.append(f"skipped an unreadable query run: {exc}")
    folders_of: dict[str, list[Path]] = {}
    for saved in runs:
        folders_of.setdefault(saved.run.run_id, []).append(saved.folder)
    for run_id, folders in folders_of.items():
        if len(folders) > 1:
            warnings.append(
                f"query run id {run_id!r} is in {len(folders)} folders: {', '.join(map(str, folders))}; "
                "--query-run takes the folder name"
            )
    return sorted(runs, key=lambda s: (s.run.created, s.folder.name)), warnings


def _named_run(path: Path, name: str) -> SavedRun:
    """The run `--query-run` names: a folder name under the index's queries folder, or a path to
    a run folder. Only this run is read."""
    given = Path(name).expanduser()
    if given.is_absolute() or len(given.parts) > 1:
        folder = given.parent if given.name == FILE_NAME else given
        if not (folder / FILE_NAME).is_file():
            raise AdapterError(f"no {FILE_NAME} in this folder", file=folder)
        return SavedRun(folder, QueryRun.load(folder))
    for folder in _run_folders(path):
        if folder.name == name:
            return SavedRun(folder, QueryRun.load(folder))
    known = ", ".join(dict.fromkeys(f.name for f in _run_folders(path))) or "none"
    raise AdapterError(f"no query run {name!r} (known: {known})", file=queries_dir(path))


def _move_note(path: Path) -> list[str]:
    old = legacy_veritrail_dir(path)
    if old is None or not any(old.rglob("*.parquet")):
        return []
    new = veritrail_dir(path)
    return [
        f"{old} holds parquet tables an older veritrail wrote, which make `graphrag update` fail (it copies "
        f"every parquet file under output/); veritrail now writes to {new}: move it with `mv {old} {new}`"
    ]


def graphrag_query_target(path: Path, source: SourceOptions | None = None) -> AuditTarget:
    """A saved query run (default: the latest), or an answer file (+ map-answer files) to trace.

    `source.method` names the search that wrote the answer file (default global): global answers are
    traced through the reports they cite (or the given map answers), the others through every
    record they cite."""
    source = source or SourceOptions()
    query_run, answer, map_answers, question = source.query_run, source.answer, source.map_answers, source.question
    search = search_method(source.method or "global")
    if map_answers is not None and search != "global":
        raise AdapterError(f"map answers belong to global search, not to {search} search", file=map_answers)
    index = read_index(path)
    root = locate(path).project_root or path
    if answer is not None:
        if map_answers is not None:
            dag = add_query_run(index, run_from_files(answer, map_answers, question))
        else:
            dag = add_cited_answer(index, read_text(answer, AdapterError), question, str(answer), search)
        out_dir = answer_dir(path, answer.stem, dag.node("final_answer").text)
        notes = [*tolerated_notes(index.metadata), *dag.metadata.get("notes", [])]
        citations = sentence_citations(dag, ["final_answer"])
        pasted = map_answers is None
        return AuditTarget(dag, ["final_answer"], out_dir, str(answer), question, notes, root, citations, pasted=pasted)

    warnings: list[str] = []
    if query_run is not None:
        chosen = _named_run(path, query_run)
    else:
        runs, warnings = saved_runs(path)
        if not runs and warnings:  # the error of the newest run, whose file a user opens
            try:
                QueryRun.load(_run_folders(path)[-1])
            except AdapterError as exc:
                raise AdapterError(f"{exc.problem}; no query run is readable (or use --answer FILE)", file=exc.file) from None
        if not runs:
            raise AdapterError(
                f"no query run under {queries_dir(path)}; run `veritrail query ROOT --query ...`, "
                "or give the answer with --answer FILE",
                file=path,
            )
        chosen = runs[-1]
    warnings += [*tolerated_notes(index.metadata), *_move_note(path)]
    try:
        dag = add_query_run(index, chosen.run)
    except (AdapterError, DagError) as exc:  # the run does not fit this index: name the run's file
        raise AdapterError(exc.problem, file=chosen.folder / FILE_NAME, row=exc.row, ids=exc.ids) from None
    # A run saved beside the project's index and audited against an update folder's index gets its
    # reports in that index's own queries folder, so the two audits never overwrite each other.
    own = chosen.folder.parent in saved_runs_dirs(path)
    out_dir = queries_dir(path) / chosen.folder.name if own else chosen.folder
    citations = sentence_citations(dag, ["final_answer"])
    described = f"{path} (query run {chosen.folder.name})"
    return AuditTarget(dag, ["final_answer"], out_dir, described, chosen.run.query, warnings, root, citations)


def graphrag_index_target(
    path: Path, *, reports: int | None = DEFAULT_REPORTS, communities: list[int] | None = None
) -> AuditTarget:
    """Community reports as terminals: the top `reports` by rank, or the given communities."""
    dag = read_index(path)
    all_reports = [n for n in dag if n.kind == "community_report"]
    if communities:
        chosen = [f"report:{c}" for c in communities]
        unknown = [c for c in chosen if c not in dag]
        if unknown:
            raise AdapterError(f"no community report {', '.join(unknown)} in the index", file=path)
    else:
        ranked = sorted(all_reports, key=lambda n: (-(n.metadata.get("rank") or 0), n.metadata.get("community", 0)))
        chosen = [n.id for n in (ranked if reports is None else ranked[:reports])]
    without_inputs = [r for r in chosen if not dag.src(r)]
    if without_inputs:
        raise AdapterError(
            f"report(s) with no recorded inputs cannot be traced: {', '.join(without_inputs)}", file=path
        )
    notes = [
        f"{len(chosen)} of {len(all_reports)} community reports audited",
        *tolerated_notes(dag.metadata),
        *_move_note(path),
    ]
    out_dir = veritrail_dir(path) / index_audit_folder(reports, communities)
    citations = sentence_citations(dag, chosen)
    return AuditTarget(dag, chosen, out_dir, str(path), None, notes, locate(path).project_root or path, citations)


def file_target(path: Path, source: SourceOptions | None = None) -> AuditTarget:
    """A DAG JSON, summary log or BooookScore file; reports go beside it."""
    if not path.is_file():
        raise AdapterError("no such file", file=path)
    source = source or SourceOptions()
    dag = load_summary_run(
        path,
        book=source.book,
        chunks_path=source.chunks,
        max_context_len=source.max_context_len,
        chunk_size=source.chunk_size,
    )
    out_dir = path.with_name(f"{path.stem}.veritrail")
    question = dag.metadata.get("question")
    return AuditTarget(dag, [dag.resolve_terminal(None)], out_dir, str(path), question, project_root=path.parent)


def _refuse(
    given: dict[str, object], names: tuple[str, ...], rest: str, verbs: tuple[str, str] = ("applies", "apply")
) -> None:
    """Refuse the options among `names` that were given, by their flags (`--max-context-len`)."""
    refused = ["--" + name.replace("_", "-") for name in names if name in given]
    if refused:
        raise UsageError.of_flags(refused, rest, verbs)


def audit_target(path: Path, source: SourceOptions) -> AuditTarget:
    """What `veritrail audit PATH` audits: a GraphRAG project's query run or answer file, or a
    summary log, BooookScore file or DAG file. Options that belong to the other kind of input are
    refused, never ignored."""
    given = source.model_dump(exclude_none=True)
    if source.answer is not None and source.query_run is not None:
        raise UsageError("give --answer or --query-run, not both: each names the answer to audit")
    if path.is_dir():
        _refuse(given, ("book", "chunks", "max_context_len", "chunk_size"), "to BooookScore files, not to a GraphRAG project")
        if source.answer is None:
            _refuse(given, ("map_answers", "question", "method"), "with --answer", ("goes", "go"))
        return graphrag_query_target(path, source)
    _refuse(given, ("query_run", "answer", "map_answers", "method", "question"), "to GraphRAG projects, not to a file")
    return file_target(path, source)


def dag_target(dag: DAG | str | os.PathLike[str], terminal: str | None = None) -> tuple[AuditTarget, Path | None]:
    """A DAG to verify (an object, or veritrail's DAG JSON file) and the report path a file implies
    (`<DAG>.report.json` beside it; None for an object)."""
    if isinstance(dag, DAG):
        start = dag.resolve_terminal(terminal)
        return AuditTarget(dag, [start], Path.cwd(), "DAG", dag.metadata.get("question")), None
    path = Path(dag)
    loaded = DAG.from_json(path)
    start = loaded.resolve_terminal(terminal)
    target = AuditTarget(loaded, [start], path.parent, str(path), loaded.metadata.get("question"))
    return target, path.with_name(path.stem + ".report.json")
