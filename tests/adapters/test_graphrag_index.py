"""Reading real GraphRAG indexes of every generation (shared fixtures) into a stage 1-4 DAG.

Expected counts and edges are computed here from the raw parquet with plain pandas, never with
the adapter's own helpers.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from samples import SHARED, needs_shared

from veritrail_graphrag.adapters.graphrag import read_index
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.errors import AdapterError

VERBS = SHARED / "fixtures" / "graphrag-verbs-data"
pytestmark = needs_shared(VERBS)

LAYOUTS = {
    "3.x": ("", ""),
    "2.x": ("legacy/v2.7.0", ""),
    "1.x": ("legacy/v1.2.0", "create_final_"),
    "0.x": ("legacy/v0.5.0", "create_final_"),
    "0.x-early": ("legacy/dulce-notebook-v0.5.0", "create_final_"),
}
ITEM_KINDS = {"entity", "relationship", "covariate", "entity_summary", "relationship_summary"}


def folder(layout: str) -> Path:
    return VERBS / LAYOUTS[layout][0]


def table(layout: str, name: str) -> pd.DataFrame:
    sub, prefix = LAYOUTS[layout]
    return pd.read_parquet(VERBS / sub / f"{prefix}{name}.parquet")


def entities(layout: str) -> pd.DataFrame:
    frame = table(layout, "entities")
    return frame.rename(columns={"name": "title"}) if "title" not in frame.columns else frame


def has_text(values: pd.Series) -> pd.Series:
    return values.fillna("").astype(str).str.strip() != ""


def text_unit_node(layout: str) -> dict[str, str]:
    units = table(layout, "text_units")
    label = units["human_readable_id"] if "human_readable_id" in units.columns else units["id"]
    return {i: f"text_unit:{h}" for i, h in zip(units["id"], label, strict=True)}


def expected_kinds(layout: str) -> dict[str, int]:
    counts = {"text_unit": len(table(layout, "text_units"))}
    for frame, kind in ((entities(layout), "entity"), (table(layout, "relationships"), "relationship")):
        described = frame[has_text(frame["description"])]
        chunks = described["text_unit_ids"].map(lambda ids: len(set(ids)))
        counts[kind] = int((chunks == 1).sum())
        counts[f"{kind}_summary"] = int((chunks > 1).sum())
    counts["covariate"] = int(has_text(table(layout, "covariates")["description"]).sum())
    counts["community_report"] = len(table(layout, "community_reports"))
    return counts


def copy_tables(source: Path, target: Path, skip: tuple[str, ...] = ()) -> Path:
    """Writable copies (the shared fixtures are read-only)."""
    target.mkdir(parents=True, exist_ok=True)
    for path in source.glob("*.parquet"):
        if path.name not in skip:
            shutil.copyfile(path, target / path.name)
    return target


def edges_between(dag: DAG, sources: set[str], targets: set[str]) -> set[tuple[str, str]]:
    return {(u, v) for u, v in dag.edges if dag.node(u).kind in sources and dag.node(v).kind in targets}


@pytest.fixture(scope="module")
def dags() -> dict[str, DAG]:
    return {layout: read_index(folder(layout)) for layout in LAYOUTS}


# --- every layout -------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_layout_loads_with_the_expected_nodes_per_kind_and_stage(dags: dict[str, DAG], layout: str) -> None:
    dag = dags[layout]
    expected = expected_kinds(layout)
    assert dict(Counter(node.kind for node in dag)) == {k: v for k, v in expected.items() if v}
    assert dag.stages() == {
        1: expected["text_unit"],
        2: expected["entity"] + expected["relationship"] + expected["covariate"],
        3: expected["entity_summary"] + expected["relationship_summary"],
        4: expected["community_report"],
    }
    assert dag.metadata["layout"] == layout
    assert dag.metadata["stage2"] == "not_recorded"
    assert Path(dag.metadata["source"]) == folder(layout).resolve()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_edges_are_well_formed(dags: dict[str, DAG], layout: str) -> None:
    dag = dags[layout]
    assert dag.roots == {node.id for node in dag if node.kind == "text_unit"}
    allowed = {
        "text_unit": ITEM_KINDS,
        "entity": {"community_report"},
        "relationship": {"community_report"},
        "covariate": {"community_report"},
        "entity_summary": {"community_report"},
        "relationship_summary": {"community_report"},
        "community_report": {"community_report"},
    }
    for u, v in dag.edges:
        assert dag.node(v).kind in allowed[dag.node(u).kind], (u, v)
    assert all(dag.src(node.id) for node in dag if node.kind == "community_report")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_item_inputs_are_exactly_the_text_units_it_lists(dags: dict[str, DAG], layout: str) -> None:
    dag = dags[layout]
    units = text_unit_node(layout)
    described = entities(layout)[lambda f: has_text(f["description"])]
    for title, ids in zip(described["title"], described["text_unit_ids"], strict=True):
        assert set(dag.src(f"entity:{title}")) == {units[i] for i in ids}
    relationships = table(layout, "relationships")
    for source, target, ids in zip(
        relationships["source"], relationships["target"], relationships["text_unit_ids"], strict=True
    ):
        assert set(dag.src(f"relationship:{source}->{target}")) == {units[i] for i in ids}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_texts_are_copied_verbatim_and_rows_can_be_found(dags: dict[str, DAG], layout: str) -> None:
    dag = dags[layout]
    for row in entities(layout)[lambda f: has_text(f["description"])].itertuples():
        node = dag.node(f"entity:{row.title}")
        assert node.text == row.description
        assert node.metadata["id"] == row.id and node.metadata["human_readable_id"] == row.human_readable_id
    for row in table(layout, "community_reports").itertuples():
        node = dag.node(f"report:{int(row.community)}")
        assert (node.text, node.stage, node.kind) == (row.full_content, 4, "community_report")
    units = table(layout, "text_units")
    for unit_id, text in zip(units["id"], units["text"], strict=True):
        node = dag.node(text_unit_node(layout)[unit_id])
        assert node.text == text and node.metadata["id"] == unit_id


# --- 3.x: exact membership ------------------------------------------------------------------------


def test_3x_entity_and_relationship_report_edges_follow_communities(dags: dict[str, DAG]) -> None:
    """A report's inputs are its community's entities and relationships, and the relationships it
    cites that touch one of those entities (an edge to another community, which GraphRAG's report
    prompt shows but `relationship_ids` does not list)."""
    dag = dags["3.x"]
    described = entities("3.x")[lambda f: has_text(f["description"])]
    entity_node = dict(zip(described["id"], "entity:" + described["title"], strict=True))
    relationships = table("3.x", "relationships")
    relationship_node = dict(
        zip(
            relationships["id"], "relationship:" + relationships["source"] + "->" + relationships["target"], strict=True
        )
    )
    communities = table("3.x", "communities")
    expected_entities = {
        (entity_node[e], f"report:{c}")
        for c, ids in zip(communities["community"], communities["entity_ids"], strict=True)
        for e in ids
        if e in entity_node
    }
    listed = {
        (relationship_node[r], f"report:{c}")
        for c, ids in zip(communities["community"], communities["relationship_ids"], strict=True)
        for r in ids
    }
    members = {
        int(c): {entity_node[e].removeprefix("entity:") for e in ids if e in entity_node}
        for c, ids in zip(communities["community"], communities["entity_ids"], strict=True)
    }
    by_short = {int(row.human_readable_id): row for row in relationships.itertuples()}
    reports = table("3.x", "community_reports")
    cited = {
        (relationship_node[by_short[int(i)].id], f"report:{c}")
        for c, text in zip(reports["community"], reports["full_content"], strict=True)
        for group in re.findall(r"Relationships \(([^)]*)\)", text)
        for i in re.findall(r"\d+", group)
        if int(i) in by_short and {by_short[int(i)].source, by_short[int(i)].target} & members.get(int(c), set())
    }
    assert edges_between(dag, {"entity", "entity_summary"}, {"community_report"}) == expected_entities
    assert edges_between(dag, {"relationship", "relationship_summary"}, {"community_report"}) == listed | cited
    assert len(cited - listed) == 220  # edges to other communities, which GraphRAG showed each report
    assert dag.metadata["membership"]["relationships"] == "communities.relationship_ids+cited"


def test_3x_report_hierarchy_and_claims(dags: dict[str, DAG]) -> None:
    dag = dags["3.x"]
    communities = table("3.x", "communities")
    parents = communities[communities["parent"] >= 0]
    expected = {(f"report:{c}", f"report:{p}") for c, p in zip(parents["community"], parents["parent"], strict=True)}
    assert edges_between(dag, {"community_report"}, {"community_report"}) == expected

    covariates = table("3.x", "covariates")[lambda f: has_text(f["description"])]
    by_title = dict(zip(entities("3.x")["title"], entities("3.x")["id"], strict=True))
    homes: dict[str, set[int]] = {}
    for c, ids in zip(communities["community"], communities["entity_ids"], strict=True):
        for e in ids:
            homes.setdefault(e, set()).add(int(c))
    expected_claims = {
        (f"covariate:{h}", f"report:{c}")
        for h, subject in zip(covariates["human_readable_id"], covariates["subject_id"], strict=True)
        for c in homes.get(by_title.get(subject, ""), set())
    }
    assert edges_between(dag, {"covariate"}, {"community_report"}) == expected_claims
    assert dag.metadata["skipped"] == {"covariates.parquet: rows with an empty description": 25}


def test_3x_relationships_with_unknown_endpoints_are_kept(dags: dict[str, DAG]) -> None:
    dag = dags["3.x"]
    titles = set(entities("3.x")["title"])
    relationships = table("3.x", "relationships")
    dangling = relationships[~relationships["source"].isin(titles) | ~relationships["target"].isin(titles)]
    assert len(dangling) == 84 and dag.metadata["dangling_relationships"] == 84
    listed = {r for ids in table("3.x", "communities")["relationship_ids"] for r in ids}
    for row in dangling.itertuples():
        node_id = f"relationship:{row.source}->{row.target}"
        assert dag.src(node_id)
        assert bool(dag.outputs(node_id)) == (row.id in listed)


def test_3x_index_survives_a_json_round_trip(dags: dict[str, DAG], tmp_path: Path) -> None:
    dag = dags["3.x"]
    dag.to_json(tmp_path / "index.json")
    again = DAG.from_json(tmp_path / "index.json")
    assert list(again) == list(dag) and set(again.edges) == set(dag.edges)
    assert again.metadata == dag.metadata


# --- legacy specifics -----------------------------------------------------------------------------


def test_0x_report_of_unclustered_entities_gets_its_members_from_nodes(dags: dict[str, DAG]) -> None:
    dag = dags["0.x"]
    nodes = table("0.x", "nodes")
    titles = set(nodes[(nodes["community"] == -1) & (nodes["level"] == 0)]["title"])
    described = entities("0.x")[lambda f: has_text(f["description"]) & f["title"].isin(titles)]
    relationships = table("0.x", "relationships")
    inside = relationships[relationships["source"].isin(titles) & relationships["target"].isin(titles)]
    expected = set("entity:" + described["title"]) | set("relationship:" + inside["source"] + "->" + inside["target"])
    items = {i for i in dag.src("report:-1") if not dag.node(i).kind.startswith("covariate")}
    assert items == expected
    assert dag.metadata["membership"] == {
        "entities": "communities.entity_ids+nodes",
        "relationships": "communities.relationship_ids+endpoints",
    }


def test_early_0x_membership_comes_from_nodes_and_string_communities_become_numbers(dags: dict[str, DAG]) -> None:
    dag = dags["0.x-early"]
    nodes = table("0.x-early", "nodes").dropna(subset=["community"])
    reports = table("0.x-early", "community_reports")
    described = set(entities("0.x-early")[lambda f: has_text(f["description"])]["title"])
    for community, level in zip(reports["community"], reports["level"], strict=True):
        members = set(nodes[(nodes["community"] == community) & (nodes["level"] == level)]["title"]) & described
        inputs = {i for i in dag.src(f"report:{int(community)}") if dag.node(i).kind.startswith("entity")}
        assert inputs == {f"entity:{t}" for t in members}
    assert dag.metadata["membership"]["entities"] == "nodes"


@pytest.mark.parametrize("layout", ["3.x", "1.x"])
def test_hierarchy_derived_like_graphrag_0x_matches_the_recorded_parents(tmp_path: Path, layout: str) -> None:
    sub, prefix = LAYOUTS[layout]
    out = copy_tables(VERBS / sub, tmp_path / "out")
    communities_file = out / f"{prefix}communities.parquet"
    recorded = pd.read_parquet(communities_file)
    recorded.drop(columns=[c for c in ("parent", "children") if c in recorded.columns]).to_parquet(communities_file)
    dag = read_index(out)
    parents = recorded[recorded["parent"] >= 0]
    expected = {(f"report:{c}", f"report:{p}") for c, p in zip(parents["community"], parents["parent"], strict=True)}
    assert dag.metadata["hierarchy"] == "derived"
    assert edges_between(dag, {"community_report"}, {"community_report"}) == expected


def test_0x_hierarchy_is_derived(dags: dict[str, DAG]) -> None:
    assert dags["0.x"].metadata["hierarchy"] == "derived"
    assert edges_between(dags["0.x"], {"community_report"}, {"community_report"})


# --- the raw graph (snapshots.raw_graph) gives stage 2 ---------------------------------------------


def _raw_rows(frame: pd.DataFrame, keys: list[str], same_text: str, two_in_one_chunk: str) -> pd.DataFrame:
    """Per-chunk descriptions for a copy of the fixture: distinct ones for multi-chunk items, the
    final description for single-chunk ones, identical ones for `same_text`."""
    rows = []
    for row in frame.to_dict("records"):
        label = " / ".join(row[k] for k in keys)
        ids = list(row["text_unit_ids"])
        if len(ids) == 1 or label == same_text:
            texts = [row["description"]] * len(ids)
        else:
            texts = [f"Chunk {i[:8]} says {label} was there." for i in ids]
        if label == two_in_one_chunk:
            ids.append(ids[0])
            texts.append(f"Chunk {ids[0][:8]} also says {label} spoke.")
        rows.append({**{k: row[k] for k in keys}, "description": texts, "text_unit_ids": ids})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def raw_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = copy_tables(VERBS, tmp_path_factory.mktemp("raw") / "output")
    raw = _raw_rows(entities("3.x"), ["title"], same_text="MARLEY", two_in_one_chunk="SCROOGE")
    extra = {
        "title": "NOT IN THE INDEX",
        "description": ["pruned later"],
        "text_unit_ids": [raw["text_unit_ids"][0][0]],
    }
    pd.concat([raw, pd.DataFrame([extra])], ignore_index=True).to_parquet(out / "raw_entities.parquet")
    _raw_rows(table("3.x", "relationships"), ["source", "target"], "", "").to_parquet(out / "raw_relationships.parquet")
    return out


def test_raw_graph_gives_one_stage2_node_per_chunk(raw_output: Path) -> None:
    dag = read_index(raw_output)
    units = text_unit_node("3.x")
    frame = entities("3.x").set_index("title")
    assert dag.metadata["stage2"] == "raw_graph"

    scrooge_chunks = [units[i] for i in frame.loc["SCROOGE", "text_unit_ids"]]
    assert len(scrooge_chunks) > 1
    assert set(dag.src("entity:SCROOGE")) == {f"entity:SCROOGE@{u}" for u in scrooge_chunks}
    assert dag.node("entity:SCROOGE").stage == 3
    for unit_id in frame.loc["SCROOGE", "text_unit_ids"]:
        chunk = dag.node(f"entity:SCROOGE@{units[unit_id]}")
        assert (chunk.stage, chunk.kind, dag.src(chunk.id)) == (2, "entity", [units[unit_id]])
        assert chunk.text.startswith(f"Chunk {unit_id[:8]} says SCROOGE was there.")
        assert chunk.metadata["text_unit_id"] == unit_id
    first = dag.node(f"entity:SCROOGE@{scrooge_chunks[0]}")
    assert (
        first.text.splitlines()[1] == f"Chunk {frame.loc['SCROOGE', 'text_unit_ids'][0][:8]} also says SCROOGE spoke."
    )

    # Identical descriptions from every chunk: GraphRAG keeps the one text, no summary call.
    assert len(frame.loc["MARLEY", "text_unit_ids"]) > 1
    marley = dag.node("entity:MARLEY")
    assert (marley.stage, marley.kind) == (2, "entity")
    assert set(dag.src("entity:MARLEY")) == {units[i] for i in frame.loc["MARLEY", "text_unit_ids"]}
    assert dag.metadata["skipped"]["raw_entities.parquet: rows whose entity is not in the final table"] == 1


def test_raw_graph_counts(raw_output: Path) -> None:
    dag = read_index(raw_output)
    expected = expected_kinds("3.x")
    chunks = 0
    for frame in (entities("3.x"), table("3.x", "relationships")):
        sizes = frame["text_unit_ids"].map(lambda ids: len(set(ids)))
        chunks += int(sizes[sizes > 1].sum())
    marley = len(set(entities("3.x").set_index("title").loc["MARLEY", "text_unit_ids"]))
    assert dag.stages() == {
        1: expected["text_unit"],
        2: expected["entity"] + expected["relationship"] + expected["covariate"] + chunks - marley + 1,
        3: expected["entity_summary"] + expected["relationship_summary"] - 1,
        4: expected["community_report"],
    }


def test_raw_graph_with_lists_of_different_lengths_is_refused(tmp_path: Path) -> None:
    out = copy_tables(VERBS, tmp_path / "output")
    pd.DataFrame({"title": ["SCROOGE"], "description": [["a", "b"]], "text_unit_ids": [["x"]]}).to_parquet(
        out / "raw_entities.parquet"
    )
    with pytest.raises(AdapterError, match=r"raw_entities\.parquet.*'description'.*'text_unit_ids'"):
        read_index(out)


# --- finding the tables ---------------------------------------------------------------------------


def test_project_root_output_folder_and_cache_note(tmp_path: Path) -> None:
    copy_tables(VERBS, tmp_path / "output")
    (tmp_path / "settings.yaml").write_text("output:\n  type: file\n  base_dir: output\n", encoding="utf-8")
    (tmp_path / "cache" / "extract_graph").mkdir(parents=True)
    dag = read_index(tmp_path)
    assert Path(dag.metadata["project_root"]) == tmp_path.resolve()
    assert Path(dag.metadata["source"]) == (tmp_path / "output").resolve()
    assert "extract_graph" in dag.metadata["stage2_note"]
    assert len(read_index(tmp_path / "output")) == len(dag)


def test_settings_base_dir_and_0x_timestamped_runs(tmp_path: Path) -> None:
    configured = tmp_path / "configured"
    copy_tables(VERBS, configured / "index-tables")
    (configured / "settings.yaml").write_text("output_storage:\n  base_dir: index-tables\n", encoding="utf-8")
    assert read_index(configured).metadata["layout"] == "3.x"

    old = tmp_path / "old"
    copy_tables(folder("0.x"), old / "output" / "20240101-000000" / "artifacts")
    copy_tables(folder("0.x"), old / "output" / "20241112-101010" / "artifacts")
    dag = read_index(old)
    assert dag.metadata["layout"] == "0.x"
    assert dag.metadata["source"].endswith("20241112-101010/artifacts")


def test_covariates_can_be_left_out(dags: dict[str, DAG]) -> None:
    dag = read_index(folder("3.x"), include_covariates=False)
    assert not [node for node in dag if node.kind == "covariate"]
    assert len(dag) == len(dags["3.x"]) - expected_kinds("3.x")["covariate"]


# --- bad input names the file and the column ------------------------------------------------------


def test_missing_table(tmp_path: Path) -> None:
    copy_tables(VERBS, tmp_path, skip=("entities.parquet",))
    with pytest.raises(AdapterError, match=r"missing required tables: .*entities\.parquet"):
        read_index(tmp_path)


def test_missing_column(tmp_path: Path) -> None:
    copy_tables(VERBS, tmp_path)
    pd.read_parquet(tmp_path / "relationships.parquet").drop(columns=["source"]).to_parquet(
        tmp_path / "relationships.parquet"
    )
    with pytest.raises(AdapterError, match=r"relationships\.parquet: missing column 'source'"):
        read_index(tmp_path)


def test_missing_column_in_legacy_layout_names_the_legacy_file(tmp_path: Path) -> None:
    copy_tables(folder("0.x-early"), tmp_path)
    frame = pd.read_parquet(tmp_path / "create_final_entities.parquet")
    frame.drop(columns=["name"]).to_parquet(tmp_path / "create_final_entities.parquet")
    with pytest.raises(AdapterError, match=r"create_final_entities\.parquet: missing column 'title'"):
        read_index(tmp_path)


def test_unknown_layout(tmp_path: Path) -> None:
    pd.DataFrame({"a": [1]}).to_parquet(tmp_path / "something_else.parquet")
    with pytest.raises(AdapterError, match="unknown layout"):
        read_index(tmp_path)
    with pytest.raises(AdapterError, match="no such folder"):
        read_index(tmp_path / "absent")
    with pytest.raises(AdapterError, match="not a folder"):
        read_index(tmp_path / "something_else.parquet")


@pytest.mark.parametrize(
    ("file", "column"), [("text_units.parquet", "text"), ("community_reports.parquet", "full_content")]
)
def test_empty_required_text(tmp_path: Path, file: str, column: str) -> None:
    copy_tables(VERBS, tmp_path)
    frame = pd.read_parquet(tmp_path / file)
    frame.loc[3, column] = "  "
    frame.to_parquet(tmp_path / file)
    with pytest.raises(AdapterError, match=rf"{file}: column '{column}' is empty in 1 row"):
        read_index(tmp_path)


def test_non_numeric_or_repeated_community(tmp_path: Path) -> None:
    copy_tables(VERBS, tmp_path)
    reports = pd.read_parquet(tmp_path / "community_reports.parquet")
    reports.assign(community=reports["community"].astype(str).replace("7", "seven")).to_parquet(
        tmp_path / "community_reports.parquet"
    )
    with pytest.raises(AdapterError, match=r"community_reports\.parquet: column 'community' .*'seven'"):
        read_index(tmp_path)
    reports.assign(community=reports["community"].replace(7, 8)).to_parquet(tmp_path / "community_reports.parquet")
    with pytest.raises(AdapterError, match=r"community_reports\.parquet: column 'community' must name each report"):
        read_index(tmp_path)


def test_rows_with_empty_optional_text_are_skipped_and_counted(dags: dict[str, DAG]) -> None:
    assert dags["2.x"].metadata["skipped"] == {
        "covariates.parquet: rows with an empty description": 32,
        "entities.parquet: rows with an empty description": 2,
    }
    assert dags["0.x-early"].metadata["skipped"]["create_final_entities.parquet: rows with an empty description"] == 59


def test_repeated_titles_get_the_graphrag_id_and_repeated_ids_are_refused(tmp_path: Path) -> None:
    copy_tables(folder("2.x"), tmp_path)
    frame = pd.read_parquet(tmp_path / "entities.parquet")
    first, second = frame.loc[0, "id"], frame.loc[1, "id"]
    frame.loc[1, "title"] = frame.loc[0, "title"]
    frame.to_parquet(tmp_path / "entities.parquet")
    dag = read_index(tmp_path)
    title = frame.loc[0, "title"]
    assert dag.node(f"entity:{title}[{first}]").metadata["id"] == first
    assert dag.node(f"entity:{title}[{second}]").metadata["id"] == second

    units = pd.read_parquet(tmp_path / "text_units.parquet")
    units.loc[1, "id"] = units.loc[0, "id"]
    units.to_parquet(tmp_path / "text_units.parquet")
    with pytest.raises(AdapterError, match=r"text_units\.parquet: column 'id' repeats the value"):
        read_index(tmp_path)
