"""DAG validation and the JSON round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veritrail_graphrag import DAG, DagError, Node


def n(node_id: str, stage: int, text: str = "Some text.") -> dict:
    return {"id": node_id, "stage": stage, "text": text}


def test_roots_terminal_src() -> None:
    dag = DAG.from_records([n("a", 1), n("b", 1), n("s", 2), n("f", 3)], [("a", "s"), ("b", "s"), ("s", "f")])
    assert dag.roots == {"a", "b"}
    assert dag.terminal == "f"
    assert dag.src("s") == ["a", "b"]
    assert dag.src("a") == []
    assert dag.stages() == {1: 2, 2: 1, 3: 1}


@pytest.mark.parametrize(
    ("nodes", "edges", "message", "ids"),
    [
        ([n("a", 1), n("b", 1)], [("a", "b"), ("b", "a")], "cycle", {"a", "b"}),
        ([n("a", 1)], [("a", "ghost")], "unknown nodes", {"a -> ghost"}),
        ([n("a", 2), n("b", 1)], [("a", "b")], "stage decreases", {"a -> b"}),
        ([n("a", 1), n("a", 2)], [], "duplicate node ids", {"a"}),
        ([n("a", 1, "   ")], [], "empty text", {"a"}),
        ([n("", 1)], [], "empty id", {""}),
    ],
)
def test_invalid_graphs_name_the_ids(nodes: list, edges: list, message: str, ids: set) -> None:
    with pytest.raises(DagError, match=message) as info:
        DAG.from_records(nodes, edges)
    assert set(info.value.ids) == ids


def test_self_loop_is_a_cycle() -> None:
    with pytest.raises(DagError, match="cycle"):
        DAG.from_records([n("a", 1)], [("a", "a")])


def test_several_sinks_need_an_explicit_terminal() -> None:
    dag = DAG.from_records([n("a", 1), n("r1", 2), n("r2", 2)], [("a", "r1"), ("a", "r2")])
    with pytest.raises(DagError, match="2 terminal nodes") as info:
        _ = dag.terminal
    assert set(info.value.ids) == {"r1", "r2"}
    assert dag.resolve_terminal("r2") == "r2"
    with pytest.raises(DagError, match="unknown node id 'zz'"):
        dag.resolve_terminal("zz")


def test_json_round_trip(tmp_path: Path) -> None:
    dag = DAG.from_records(
        [Node(id="a", stage=1, text="Dr. Who arrived.", kind="chunk", metadata={"page": 3}), n("f", 2)],
        [("a", "f")],
        metadata={"question": "who?"},
    )
    path = tmp_path / "dag.json"
    dag.to_json(path)
    again = DAG.from_json(path)
    assert list(again) == list(dag)
    assert again.edges == [("a", "f")]
    assert again.metadata == {"question": "who?"}
    assert [p.name for p in tmp_path.iterdir()] == ["dag.json"]


def test_edges_may_be_objects(tmp_path: Path) -> None:
    path = tmp_path / "dag.json"
    path.write_text(json.dumps({"nodes": [n("a", 1), n("b", 2)], "edges": [{"source": "a", "target": "b"}]}))
    assert DAG.from_json(path).edges == [("a", "b")]


def test_non_utf8_json_names_the_file_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"nodes": [{"id": "a", "stage": 1, "text": "caf\xe9"}], "edges": []}')
    with pytest.raises(DagError, match=r"bad\.json: not UTF-8 \(byte 47 is 0xe9\)"):
        DAG.from_json(path)


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"nodes": [\n  {"id": "a",, }]}')
    with pytest.raises(DagError, match=r"bad\.json: invalid JSON at line 2"):
        DAG.from_json(path)


def test_bad_field_names_the_node(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"nodes": [n("a", 1), {"id": "b", "stage": "two", "text": "x"}], "edges": []}))
    with pytest.raises(DagError, match=r"node 'b' \(nodes\.1\.stage\)"):
        DAG.from_json(path)


def test_graph_errors_from_a_file_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "cyclic.json"
    path.write_text(json.dumps({"nodes": [n("a", 1), n("b", 1)], "edges": [["a", "b"], ["b", "a"]]}))
    with pytest.raises(DagError, match=r"cyclic\.json: the graph has a cycle"):
        DAG.from_json(path)


def test_other_formats_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"format": "something-else", "nodes": [], "edges": []}))
    with pytest.raises(DagError, match="format 'something-else'"):
        DAG.from_json(path)


def test_sentences_are_split_lazily_and_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import veritrail_graphrag.dag.graph as dag_module

    calls: list[str] = []
    real = dag_module.split_sentences
    monkeypatch.setattr(dag_module, "split_sentences", lambda text, rules: calls.append(text) or real(text, rules))
    dag = DAG.from_records([n("a", 1, "One. Two."), n("b", 2, "Three.")], [("a", "b")])
    assert calls == []
    first = dag.sentences("a")
    assert dag.sentences("a") is first
    assert [s.id for s in first] == ["a#0", "a#1"]
    assert calls == ["One. Two."] and dag.split_count == 1
