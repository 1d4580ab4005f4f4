"""Where a GraphRAG index keeps its tables, and which GraphRAG generation wrote them.

Users point us at whatever folder they have: a project root (`settings.yaml` + `output/`), the
`output/` folder itself, a 0.x run folder (`output/<timestamp>/artifacts/`), or any folder of
parquet files. Two file namings exist: `<table>.parquet` (2.x and later) and
`create_final_<table>.parquet` (0.x and 1.x). The generation is read from the columns, because
file names alone do not tell 2.x from 3.x or 0.x from 1.x.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from pydantic import BaseModel, ConfigDict

from veritrail_graphrag.errors import EXCERPT, AdapterError

REQUIRED = ("text_units", "entities", "relationships", "communities", "community_reports")
_SNAPSHOTS = ("raw_entities", "raw_relationships")
SETTINGS_FILES = ("settings.yaml", "settings.yml", "settings.json")
"""The names GraphRAG accepts for a project's configuration, in the order it looks for them."""

Naming = Literal["short", "create_final"]


class Layout(BaseModel):
    """A located index: the folder holding its tables and the GraphRAG generation that wrote them."""

    model_config = ConfigDict(frozen=True)

    name: str
    naming: Naming
    directory: Path
    project_root: Path | None = None

    def file(self, table: str) -> Path:
        """The file a table lives in under this naming, whether or not it exists."""
        if self.naming == "create_final" and table not in _SNAPSHOTS:
            return self.directory / f"create_final_{table}.parquet"
        return self.directory / f"{table}.parquet"

    def has(self, table: str) -> bool:
        return self.file(table).is_file()


def arrow_problem(exc: Exception) -> str:
    """pyarrow's reason on one short line: its messages can list a whole schema, one field a line."""
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return first if len(first) <= 2 * EXCERPT else first[: 2 * EXCERPT - 1] + "…"


def columns_of(path: Path) -> list[str]:
    """Column names from the parquet footer, without reading the data."""
    try:
        return list(pq.read_schema(path).names)
    except (OSError, ValueError, pa.ArrowException) as exc:  # ValueError: metadata that is not UTF-8
        raise AdapterError(f"not a readable parquet file ({arrow_problem(exc)})", file=path) from None


def _naming_of(folder: Path) -> Naming | None:
    if (folder / "text_units.parquet").is_file() or (folder / "entities.parquet").is_file():
        return "short"
    if (folder / "create_final_text_units.parquet").is_file() or (folder / "create_final_entities.parquet").is_file():
        return "create_final"
    return None


def _latest_artifacts(folder: Path) -> list[Path]:
    """0.x wrote one `<timestamp>/artifacts/` folder per run; the newest name is the latest run."""
    if not folder.is_dir():
        return []
    runs = sorted((p for p in folder.iterdir() if (p / "artifacts").is_dir()), reverse=True)
    return [runs[0] / "artifacts"] if runs else []


def yaml_problem(exc: yaml.YAMLError) -> str:
    """What is wrong and where, on one line: PyYAML's own message quotes the offending line whole."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    problem = problem if len(problem) <= 2 * EXCERPT else problem[: 2 * EXCERPT - 1] + "…"
    return problem if mark is None else f"{problem} at line {mark.line + 1}, column {mark.column + 1}"


def _configured_output(root: Path) -> list[Path]:
    """The output folder named in settings.yaml (`output.base_dir`, or `output_storage` in 3.x)."""
    for marker in SETTINGS_FILES:
        settings = root / marker
        if not settings.is_file():
            continue
        try:
            config = yaml.safe_load(settings.read_text(encoding="utf-8")) or {}
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise AdapterError(f"cannot be read as YAML ({yaml_problem(exc)})", file=settings) from None
        if not isinstance(config, dict):
            return []
        for key in ("output", "output_storage"):
            section = config.get(key)
            base_dir = section.get("base_dir") if isinstance(section, dict) else None
            if isinstance(base_dir, str) and "${" not in base_dir:
                return [root / base_dir]
    return []


def _candidates(path: Path) -> list[Path]:
    return [
        path,
        *_configured_output(path),
        path / "output",
        *_latest_artifacts(path / "output"),
        *_latest_artifacts(path),
        path / "artifacts",
    ]


def _project_root(directory: Path) -> Path | None:
    for folder in [directory, *list(directory.parents)[:3]]:
        if any((folder / marker).is_file() for marker in SETTINGS_FILES):
            return folder
    return None


def _generation(directory: Path, naming: Naming) -> str:
    """Tell generations apart by the columns each one introduced or dropped."""
    if naming == "short":
        text_units = directory / "text_units.parquet"
        if text_units.is_file() and "document_id" in columns_of(text_units):
            return "3.x"
        return "2.x"
    communities = directory / "create_final_communities.parquet"
    entities = directory / "create_final_entities.parquet"
    community_columns = columns_of(communities) if communities.is_file() else []
    entity_columns = columns_of(entities) if entities.is_file() else []
    if "raw_community" in community_columns or ("name" in entity_columns and "title" not in entity_columns):
        return "0.x-early"
    if "parent" in community_columns:
        return "1.x"
    return "0.x"


def locate(path: str | Path) -> Layout:
    """Find the tables under `path` and check that every table the DAG needs is there."""
    path = Path(path).resolve()
    if not path.exists():
        raise AdapterError("no such folder", file=path)
    if not path.is_dir():
        raise AdapterError(
            "not a folder; give a GraphRAG project root, its output/ folder or a folder of parquet files",
            file=path,
        )
    for folder in _candidates(path):
        naming = _naming_of(folder) if folder.is_dir() else None
        if naming is not None:
            break
    else:
        hint = (
            "; this is a `graphrag update` folder: give its previous/ (the index before the update) or "
            "delta/ (the index of the added documents)"
            if all((path / part).is_dir() for part in UPDATE_PARTS)
            else ""
        )
        raise AdapterError(
            "unknown layout, no GraphRAG index found (looked for text_units.parquet or "
            f"create_final_text_units.parquet here, in output/ and in output/<run>/artifacts/){hint}",
            file=path,
        )
    layout = Layout(
        name=_generation(folder, naming),
        naming=naming,
        directory=folder,
        project_root=_project_root(folder),
    )
    missing = [str(layout.file(table)) for table in REQUIRED if not layout.has(table)]
    if missing:
        raise AdapterError(
            f"GraphRAG {layout.name} index is missing required tables: {', '.join(missing)}", file=folder
        )
    return layout


def cache_folder(layout: Layout) -> Path | None:
    """The LLM cache of graph extraction, if the project kept one (named per generation)."""
    if layout.project_root is None:
        return None
    for name in ("extract_graph", "entity_extraction"):
        folder = layout.project_root / "cache" / name
        if folder.is_dir():
            return folder
    return None


__all__ = ["REQUIRED", "Layout", "cache_folder", "columns_of", "locate"]


UPDATE_PARTS = ("previous", "delta")


def is_update_folder(directory: Path) -> bool:
    """`update_output/<timestamp>/previous` (the index before a `graphrag update`) or `.../delta`
    (the index of the added documents alone): both complete indexes of their own."""
    return directory.name in UPDATE_PARTS and all((directory.parent / part).is_dir() for part in UPDATE_PARTS)


def veritrail_dir(path: str | Path) -> Path:
    """`<project>/veritrail`: our folder beside GraphRAG's own `output/`, `cache/` and `logs/`, never
    inside `output/`: `graphrag update` copies every parquet file under `output/` (subfolders too)
    as an index table, and fails on ours. Without a project (a folder of tables alone, which no
    update can run on) it is `<tables>/veritrail`. An update folder (`update_output/<timestamp>/
    previous` or `delta`) gets its own, so auditing the index before an update never overwrites
    the audits of the index after it."""
    layout = locate(Path(path))
    if is_update_folder(layout.directory):
        return layout.directory / "veritrail"
    return (layout.project_root or layout.directory) / "veritrail"


def legacy_veritrail_dir(path: str | Path) -> Path | None:
    """A project's `output/veritrail`, where veritrail 0.x wrote: its query runs are still read
    (their audits now go to `veritrail_dir`); its parquet tables make `graphrag update` fail, so
    the user is told to move it (nothing is moved behind their back)."""
    layout = locate(Path(path))
    if layout.project_root is None or is_update_folder(layout.directory):
        return None
    old = layout.directory / "veritrail"
    return old if old.is_dir() and old != veritrail_dir(path) else None


DEFAULT_REPORTS = 10
INDEX_AUDIT = "index-audit"


def index_audit_folder(reports: int | None, communities: list[int] | None) -> str:
    """Each selection of reports its own folder, so that one audit never replaces another's:
    `index-audit` for the default (the 10 highest-ranked), else named after the selection."""
    if communities:
        return f"{INDEX_AUDIT}-communities-" + "-".join(map(str, sorted(set(communities))))
    if reports is None:
        return f"{INDEX_AUDIT}-all"
    return INDEX_AUDIT if reports == DEFAULT_REPORTS else f"{INDEX_AUDIT}-top-{reports}"


def answer_dir(path: str | Path, stem: str, answer: str) -> Path:
    """Where the reports about an answer file go: named after the file and a hash of its text."""
    digest = hashlib.sha256(answer.encode()).hexdigest()[:8]
    return veritrail_dir(path) / "answers" / f"{stem}-{digest}"


def queries_dir(path: str | Path) -> Path:
    """One folder per captured query run."""
    return veritrail_dir(path) / "queries"


def saved_runs_dirs(path: str | Path) -> list[Path]:
    """Where the query runs of an index are saved: its own queries folder and, for an update
    folder, the project's (runs asked before `graphrag update` were saved there), or for a
    project, `output/veritrail/queries` where veritrail 0.x saved them."""
    own = queries_dir(path)
    layout = locate(Path(path))
    if is_update_folder(layout.directory) and layout.project_root is not None:
        return [own, layout.project_root / "veritrail" / "queries"]
    legacy = legacy_veritrail_dir(path)
    return [own] if legacy is None else [own, legacy / "queries"]


def run_dir(path: str | Path, run_id: str) -> Path:
    """The folder `QueryRun.save` writes a run into, and where its audit reports go."""
    return queries_dir(path) / run_id
