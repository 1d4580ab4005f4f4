"""Small GraphRAG indexes of every generation the adapter reads, written for these tests.

A drawn `World` (text units, entities, relationships, communities, reports, claims) is written in
the column set and types of one generation (3.x, 2.x, 1.x, 0.x, early 0.x, and 0.3/0.4, whose
communities keep their number in `id`, as the real indexes of each show them), into one of the
folder shapes users have (project with settings.yaml and `output/`, a bare folder of tables, a 0.x
run folder, an output folder named in settings.yaml), with stray tables beside them. The
irregularities real indexes have are drawn too: relationships to an entity that is not in the table,
entities without a description, reports of a community the communities table lacks. Tables are kept
as columns of Python values until written, so that the property tests can mutate them first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import strategies as st
from seeds import SENTENCES, passages, sentence

GENERATIONS = ("3.x", "2.x", "1.x", "0.x", "0.x-early", "0.3-0.4")
NAMES = ["HARBOUR COUNCIL", "MARA VELL", "GULL ROCK", "OREN TASK", "NORTH PIER", "THE OLD MILL", "LAMP GUILD"]
STRAY = "STRANGER"
"""A relationship endpoint that is no entity (GraphRAG writes such relationships)."""
MISSING_COMMUNITY = 7
"""A report's community number that the communities table does not hold."""


@dataclass
class World:
    units: list[dict[str, Any]]
    entities: list[dict[str, Any]]
    relationships: list[dict[str, Any]]
    communities: list[dict[str, Any]]
    reports: list[dict[str, Any]]
    claims: list[dict[str, Any]]


@st.composite
def worlds(draw: st.DrawFn) -> World:
    units = [{"id": f"tu-{i}", "text": draw(passages)} for i in range(draw(st.integers(1, 4)))]
    unit_ids = st.lists(st.sampled_from([u["id"] for u in units]), min_size=1, max_size=3, unique=True)
    titles = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5, unique=True))
    entities = [
        {
            "id": f"e-{i}",
            "title": title,
            "type": "ORGANIZATION" if i % 2 else "PERSON",
            "description": "" if draw(st.integers(0, 5)) == 0 else draw(passages),
            "text_unit_ids": draw(unit_ids),
        }
        for i, title in enumerate(titles)
    ]
    ends = st.sampled_from(titles) if draw(st.integers(0, 3)) else st.sampled_from([*titles, STRAY])
    relationships = [
        {
            "id": f"r-{i}",
            "source": draw(ends),
            "target": draw(ends),
            "description": draw(sentence),
            "text_unit_ids": draw(unit_ids),
        }
        for i in range(draw(st.integers(0, 4)))
    ]
    top = draw(st.integers(1, 2))
    home = {e["title"]: draw(st.integers(0, top - 1)) for e in entities}
    communities = [{"community": c, "level": 0, "parent": -1, "titles": [t for t, h in home.items() if h == c]} for c in range(top)]
    if draw(st.booleans()):
        communities.append({"community": top, "level": 1, "parent": 0, "titles": communities[0]["titles"][:2]})
    for community in communities:
        members = community.pop("titles")
        community["entity_ids"] = [e["id"] for e in entities if e["title"] in members]
        community["relationship_ids"] = [
            r["id"] for r in relationships if r["source"] in members and r["target"] in members
        ]
        community["text_unit_ids"] = sorted({u for e in entities if e["title"] in members for u in e["text_unit_ids"]})
        community["children"] = [c["community"] for c in communities if c["parent"] == community["community"]]
    reported = [c for c in communities if draw(st.integers(0, 5))] or communities[:1]
    if draw(st.integers(0, 4)) == 0:
        reported = [*reported, {"community": MISSING_COMMUNITY, "level": 0, "parent": -1, "children": []}]
    reports = [
        {
            "community": c["community"],
            "level": c["level"],
            "parent": c["parent"],
            "children": c["children"],
            "title": f"Community {c['community']}",
            "full_content": draw(passages),
            "rank": float(draw(st.integers(0, 10))),
        }
        for c in reported
    ]
    claims = [
        {
            "id": f"cv-{i}",
            "subject_id": draw(st.sampled_from(titles)),
            "description": draw(sentence),
            "text_unit_id": draw(st.sampled_from([u["id"] for u in units])),
        }
        for i in range(draw(st.sampled_from([0, 0, 1, 2])))
    ]
    return World(units, entities, relationships, communities, reports, claims)


Columns = list[tuple[str, list[Any]]]


@dataclass
class Frame:
    """A table as named columns of Python values (a name may repeat), and the index to store."""

    columns: Columns
    index: list[Any] | None = None

    def rows(self) -> int:
        return len(self.columns[0][1]) if self.columns else 0


def _column(values: list[Any]) -> pa.Array:
    try:
        return pa.array(values)
    except (pa.ArrowException, TypeError, OverflowError, ValueError):
        return pa.array([None if v is None else str(v) for v in values])


def write_frame(frame: Frame, path: Path) -> None:
    """Write as parquet; a stored index goes through pandas, as GraphRAG 0.x wrote it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_arrays([_column(v) for _, v in frame.columns], names=[n for n, _ in frame.columns])
    names = [n for n, _ in frame.columns]
    if frame.index is not None and len(set(names)) == len(names) and len(frame.index) == table.num_rows:
        data = table.to_pandas()
        data.index = frame.index
        data.to_parquet(path)
        return
    pq.write_table(table, path)


def _hrid(rows: list[dict[str, Any]], as_text: bool = False) -> list[Any]:
    return [str(i) if as_text else i for i in range(len(rows))]


def tables_of(world: World, generation: str) -> dict[str, Frame]:
    """The world's tables as `generation` wrote them: file stem (without create_final_) -> frame."""
    early = generation in ("0.x-early", "0.3-0.4")
    u, e, r, c, p = world.units, world.entities, world.relationships, world.communities, world.reports
    units: Columns = [("id", [x["id"] for x in u])]
    if not early:
        units.append(("human_readable_id", _hrid(u)))
    units += [("text", [x["text"] for x in u]), ("n_tokens", [len(x["text"]) for x in u])]
    if generation == "3.x":
        units.append(("document_id", ["doc-1"] * len(u)))
    else:
        units.append(("document_ids", [["doc-1"]] * len(u)))
    units += [
        ("entity_ids", [[y["id"] for y in e if x["id"] in y["text_unit_ids"]] for x in u]),
        ("relationship_ids", [[y["id"] for y in r if x["id"] in y["text_unit_ids"]] for x in u]),
    ]
    entities: Columns = [
        ("id", [x["id"] for x in e]),
        ("name" if early else "title", [x["title"] for x in e]),
        ("type", [x["type"] for x in e]),
        ("description", [x["description"] for x in e]),
        ("human_readable_id", _hrid(e)),
        ("text_unit_ids", [x["text_unit_ids"] for x in e]),
    ]
    if early:
        entities.append(("description_embedding", [[0.1, 0.2, 0.3]] * len(e)))
    else:
        entities += [("frequency", [len(x["text_unit_ids"]) for x in e]), ("degree", [1] * len(e))]
    relationships: Columns = [
        ("id", [x["id"] for x in r]),
        ("human_readable_id", _hrid(r, as_text=early)),
        ("source", [x["source"] for x in r]),
        ("target", [x["target"] for x in r]),
        ("description", [x["description"] for x in r]),
        ("weight", [1.0] * len(r)),
        ("text_unit_ids", [x["text_unit_ids"] for x in r]),
    ]
    community = [str(x["community"]) if early else x["community"] for x in c]
    if generation == "0.3-0.4":  # the community number is the id, and no other column holds it
        communities: Columns = [("id", community), ("title", [f"Community {x['community']}" for x in c])]
    else:
        communities = [("id", [f"c-{x['community']}" for x in c])]
        communities += [("title", [f"Community {x['community']}" for x in c])]
        communities += [("raw_community" if early else "community", community)]
    communities.append(("level", [x["level"] for x in c]))
    if generation in ("3.x", "2.x", "1.x"):
        communities.append(("parent", [x["parent"] for x in c]))
    if generation == "3.x":
        communities.append(("children", [x["children"] for x in c]))
    if not early:
        communities.append(("entity_ids", [x["entity_ids"] for x in c]))
    communities += [("relationship_ids", [x["relationship_ids"] for x in c]), ("text_unit_ids", [x["text_unit_ids"] for x in c])]
    reports: Columns = [
        ("community", [str(x["community"]) if early else x["community"] for x in p]),
        ("full_content", [x["full_content"] for x in p]),
        ("level", [x["level"] for x in p]),
        ("rank", [x["rank"] for x in p]),
        ("title", [x["title"] for x in p]),
        ("summary", [x["full_content"][:40] for x in p]),
        ("findings", [[{"summary": "s", "explanation": x["full_content"]}] for x in p]),
        ("full_content_json", [json.dumps({"title": x["title"]}) for x in p]),
        ("id", [f"report-{x['community']}" for x in p]),
    ]
    if not early:
        reports.append(("human_readable_id", [x["community"] for x in p]))
    if generation in ("3.x", "2.x", "1.x"):
        reports.append(("parent", [x["parent"] for x in p]))
    tables = {
        "text_units": Frame(units),
        "entities": Frame(entities),
        "relationships": Frame(relationships),
        "communities": Frame(communities),
        "community_reports": Frame(reports),
    }
    if generation not in ("3.x", "2.x"):
        placed = [(x["title"], m["community"], m["level"]) for m in c for x in e if x["id"] in m["entity_ids"]]
        tables["nodes"] = Frame(
            [
                ("id", [f"n-{i}" for i in range(len(placed))]),
                ("title", [t for t, _, _ in placed]),
                ("community", [str(k) if early else k for _, k, _ in placed]),
                ("level", [lv for _, _, lv in placed]),
            ]
        )
    if world.claims:
        tables["covariates"] = Frame(
            [
                ("id", [x["id"] for x in world.claims]),
                ("human_readable_id", _hrid(world.claims)),
                ("type", ["FACT"] * len(world.claims)),
                ("description", [x["description"] for x in world.claims]),
                ("subject_id", [x["subject_id"] for x in world.claims]),
                ("object_id", ["NONE"] * len(world.claims)),
                ("status", ["TRUE"] * len(world.claims)),
                ("text_unit_id", [x["text_unit_id"] for x in world.claims]),
            ]
        )
    return tables


def raw_graph(world: World) -> dict[str, Frame]:
    """`snapshots.raw_graph: true`: what each chunk's extraction said, one row per item."""
    return {
        "raw_entities": Frame(
            [
                ("title", [x["title"] for x in world.entities]),
                ("description", [[x["description"] or "Unnamed."] * len(x["text_unit_ids"]) for x in world.entities]),
                ("text_unit_ids", [x["text_unit_ids"] for x in world.entities]),
            ]
        ),
        "raw_relationships": Frame(
            [
                ("source", [x["source"] for x in world.relationships]),
                ("target", [x["target"] for x in world.relationships]),
                ("description", [[x["description"]] * len(x["text_unit_ids"]) for x in world.relationships]),
                ("text_unit_ids", [x["text_unit_ids"] for x in world.relationships]),
            ]
        ),
    }


SHAPES = ("project", "flat", "run_folder", "configured")


@dataclass
class Index:
    """Where a drawn index is written: the folder a user names, the tables' folder, their files."""

    root: Path
    tables: Path
    generation: str
    settings: str | None = None
    frames: dict[str, Frame] = field(default_factory=dict)

    def file(self, name: str) -> Path:
        short = self.generation in ("3.x", "2.x") or name.startswith("raw_")
        return self.tables / (f"{name}.parquet" if short else f"create_final_{name}.parquet")

    def write(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if self.settings is not None:
            (self.root / "settings.yaml").write_text(self.settings, encoding="utf-8")
        for name, frame in self.frames.items():
            write_frame(frame, self.file(name))


def place(root: Path, generation: str, shape: str) -> Index:
    """The folders of one shape, and its settings.yaml (written with the tables) where it has one."""
    if shape == "run_folder" and generation in ("3.x", "2.x"):
        shape = "project"
    tables = {"project": root / "output", "flat": root, "configured": root / "out" / "index"}.get(
        shape, root / "output" / "20240706-150910" / "artifacts"
    )
    if shape == "flat":
        return Index(root, tables, generation)
    key = "output_storage" if generation == "3.x" else "output"
    base = "out/index" if shape == "configured" else "output"
    return Index(root, tables, generation, f"{key}:\n  type: file\n  base_dir: {base}\n")


STRAY_TABLES = {
    "documents": Frame([("id", ["doc-1"]), ("title", ["notes.txt"]), ("text_unit_ids", [["tu-0"]])]),
    "embeddings.entity.description": Frame([("id", ["e-0"]), ("embedding", [[0.1, 0.2]])]),
    "relationships_with_types": Frame([("id", ["r-0"]), ("relationship_type", ["KNOWS"])]),
}


@st.composite
def indexes(draw: st.DrawFn, root: Path) -> tuple[Index, World]:
    """A drawn world written (not yet: `Index.write`) as one generation in one folder shape."""
    world = draw(worlds())
    generation = draw(st.sampled_from(GENERATIONS))
    index = place(root, generation, draw(st.sampled_from(SHAPES)))
    index.frames = tables_of(world, generation)
    if generation in ("3.x", "2.x") and draw(st.integers(0, 3)) == 0:
        index.frames |= raw_graph(world)
    for name in draw(st.lists(st.sampled_from(sorted(STRAY_TABLES)), max_size=2, unique=True)):
        index.frames[name] = STRAY_TABLES[name]
    return index, world


def query_run(cited: list[int]) -> dict[str, Any]:
    """A saved global search run whose one map batch read the reports of `cited` communities
    (query_run.json's shape)."""
    citation = f"[Data: Reports ({', '.join(map(str, cited))})]"
    return {
        "format": "veritrail-graphrag-query-run",
        "version": 2,
        "run_id": "run-1",
        "query": "What happened at the harbour?",
        "method": "global",
        "created": "2026-11-02T10:00:00Z",
        "batches": [
            {"index": 0, "report_ids": cited, "answers": [{"answer": f"The lamps were repaired {citation}.", "score": 60}]}
        ],
        "final_answer": f"The harbour lamps were repaired before winter {citation}.",
    }


def _small_world() -> World:
    """A fixed world: two text units' entities, one relationship, a community and its sub-community."""
    units = [{"id": f"tu-{i}", "text": text} for i, text in enumerate(SENTENCES[:3])]
    entities = [
        {"id": "e-0", "title": "MARA VELL", "type": "PERSON", "description": SENTENCES[1], "text_unit_ids": ["tu-1"]},
        {"id": "e-1", "title": "GULL ROCK", "type": "GEO", "description": SENTENCES[3], "text_unit_ids": ["tu-0", "tu-2"]},
    ]
    relationships = [
        {"id": "r-0", "source": "MARA VELL", "target": "GULL ROCK", "description": SENTENCES[4], "text_unit_ids": ["tu-1"]}
    ]
    communities = [
        {"community": 0, "level": 0, "parent": -1, "children": [1], "entity_ids": ["e-0", "e-1"],
         "relationship_ids": ["r-0"], "text_unit_ids": ["tu-0", "tu-1", "tu-2"]},
        {"community": 1, "level": 1, "parent": 0, "children": [], "entity_ids": ["e-1"],
         "relationship_ids": [], "text_unit_ids": ["tu-0", "tu-2"]},
    ]  # fmt: skip
    reports = [
        {"community": c["community"], "level": c["level"], "parent": c["parent"], "children": c["children"],
         "title": f"Community {c['community']}", "full_content": SENTENCES[5 + i], "rank": 1.0}
        for i, c in enumerate(communities)
    ]  # fmt: skip
    return World(units, entities, relationships, communities, reports, [])


SMALL_WORLD = _small_world()
