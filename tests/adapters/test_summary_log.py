"""Our JSONL summary log: writer, reader, crash tolerance, bad input, detection, the sample run."""

from __future__ import annotations

import json
import threading
import warnings
from pathlib import Path

import pytest

from veritrail_graphrag.adapters.summaries import (
    SummaryLog,
    TornLineWarning,
    detect_format,
    load_summary_run,
    read_summary_log,
)
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.errors import AdapterError

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "hierarchical-christmas-carol" / "summary-log.jsonl"
HEADER = {"format": "veritrail-summary-log", "version": 1}


def write_lines(path: Path, records: list[dict], tail: str = "") -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in [HEADER, *records]) + tail, encoding="utf-8")
    return path


def small_run(path: Path) -> Path:
    with SummaryLog(path, metadata={"model": "hand"}) as log:
        log.source("c1", "Scrooge is a miser.")
        log.source("c2", "Marley is dead.")
        log.source("c3", "The clerk is cold.")
        log.summary("s1", "A miser and a dead partner.", ["c1", "c2"])
        log.summary("s2", "A cold clerk.", ["c3"])
        log.question("Who is Scrooge?")
        log.add_metadata({"cost": 0.1})
        log.summary("final", "A miser, a dead partner and a cold clerk.", ["s1", "s2"])
    return path


def test_round_trip_gives_stages_kinds_edges_and_metadata(tmp_path: Path) -> None:
    dag = read_summary_log(small_run(tmp_path / "run.jsonl"))
    assert {n.id: (n.stage, n.kind) for n in dag} == {
        "c1": (1, "chunk"),
        "c2": (1, "chunk"),
        "c3": (1, "chunk"),
        "s1": (2, "summary"),
        "s2": (2, "summary"),
        "final": (3, "final_summary"),
    }
    assert sorted(dag.src("final")) == ["s1", "s2"]
    assert dag.terminal == "final"
    assert dag.roots == {"c1", "c2", "c3"}
    assert dag.metadata["question"] == "Who is Scrooge?"
    assert dag.metadata["run"] == {"model": "hand", "cost": 0.1}
    assert dag.metadata["edges_from"] == "recorded"


def test_each_record_is_one_line_and_readable_while_the_run_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    log = SummaryLog(path)
    log.source("c1", "First chunk.\nWith a second line.")
    log.summary("s1", "Its summary.", ["c1"])
    assert len(path.read_text(encoding="utf-8").splitlines()) == 3
    assert read_summary_log(path).terminal == "s1"
    log.close()


def test_stage_rule_and_given_stages(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with SummaryLog(path) as log:
        log.source("c1", "One.")
        log.source("c2", "Two.")
        log.summary("a", "A.", ["c1"])
        log.summary("b", "B.", ["c2", "a"], stage=2)  # `a` read as same-level context
        log.summary("top", "Top.", ["a", "b"], kind="final_answer", metadata={"level": 2})
        with pytest.raises(AdapterError, match=r"'low'.*below the stage of an input"):
            log.summary("low", "Low.", ["a"], stage=1)
    dag = read_summary_log(path)
    assert [dag.stage(i) for i in ("c1", "a", "b", "top")] == [1, 2, 2, 3]
    assert dag.node("top").kind == "final_answer"
    assert dag.node("top").metadata == {"level": 2}


def test_reader_refuses_a_given_stage_below_an_input(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "x.jsonl",
        [{"id": "c", "text": "C.", "stage": 3}, {"id": "s", "text": "S.", "inputs": ["c"], "stage": 2}],
    )
    with pytest.raises(AdapterError, match=r"line 3: record 's': stage 2 is below"):
        read_summary_log(path)


def test_writer_refuses_mistakes_when_they_are_made(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with SummaryLog(path) as log:
        log.source("c1", "One.")
        with pytest.raises(AdapterError, match=r"record 's1' names input\(s\) not logged yet: 'nope'"):
            log.summary("s1", "S.", ["c1", "nope"])
        with pytest.raises(AdapterError, match=r"record 'c1': the id is already logged"):
            log.source("c1", "Again.")
        with pytest.raises(AdapterError, match=r"record 'c2' has empty text"):
            log.source("c2", "  \n")
        with pytest.raises(AdapterError, match=r"blank id"):
            log.source(" ", "Text.")
        with pytest.raises(AdapterError, match=r"record ''"):
            log.source("", "Text.")
        with pytest.raises(AdapterError, match=r"summary 's2' has no inputs"):
            log.summary("s2", "S.", [])
        with pytest.raises(AdapterError, match=r"not JSON serializable|cannot be written as JSON"):
            log.source("c3", "Three.", metadata={"bad": object()})
    with pytest.raises(AdapterError, match="closed"):
        log.source("c4", "Four.")
    assert [n.id for n in read_summary_log(path)] == ["c1"]


def test_a_new_log_refuses_an_existing_file(tmp_path: Path) -> None:
    path = small_run(tmp_path / "run.jsonl")
    with pytest.raises(AdapterError, match="already exists; pass resume=True"):
        SummaryLog(path)


def test_torn_last_line_is_a_warning_and_is_skipped(tmp_path: Path) -> None:
    path = small_run(tmp_path / "run.jsonl")
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"type":"text","id":"more","text":"Half writ')
    with pytest.warns(TornLineWarning, match=r"line 10: incomplete last line skipped"):
        dag = read_summary_log(path)
    assert "more" not in dag
    assert dag.terminal == "final"
    assert dag.metadata["skipped_torn_line"] == 10


def test_torn_multibyte_character_on_the_last_line_is_torn_too(tmp_path: Path) -> None:
    path = small_run(tmp_path / "run.jsonl")
    with path.open("ab") as handle:
        handle.write('{"id":"x","text":"caf\u00e9'.encode()[:-1])
    with pytest.warns(TornLineWarning):
        assert len(read_summary_log(path)) == 6


def test_resume_cuts_the_torn_line_and_appends(tmp_path: Path) -> None:
    path = small_run(tmp_path / "run.jsonl")
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"type":"text","id":"more","te')
    with pytest.warns(TornLineWarning, match="removed before resuming"):
        log = SummaryLog(path, resume=True, metadata={"resumed": True})
    with log:
        log.summary("more", "Further.", ["final"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dag = read_summary_log(path)
    assert dag.terminal == "more"
    assert dag.stage("more") == 4
    assert dag.metadata["run"]["resumed"] is True


def test_resume_after_a_hand_written_file_without_final_newline(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(HEADER) + "\n" + json.dumps({"id": "c", "text": "C."}), encoding="utf-8")
    with SummaryLog(path, resume=True) as log:
        log.summary("s", "S.", ["c"])
    assert read_summary_log(path).terminal == "s"


def test_a_torn_line_in_the_middle_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(
        json.dumps(HEADER) + '\n{"id": "c1", "text": "One."}\n{"id": "c2", "te\n{"id": "c3", "text": "Three."}\n',
        encoding="utf-8",
    )
    with pytest.raises(AdapterError, match=r"run.jsonl, line 3: unreadable record \(invalid JSON"):
        read_summary_log(path)


def test_cycle_in_inputs_names_the_records_and_lines(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "x.jsonl",
        [
            {"id": "c", "text": "C."},
            {"id": "a", "text": "A.", "inputs": ["c", "b"]},
            {"id": "b", "text": "B.", "inputs": ["a"]},
        ],
    )
    with pytest.raises(AdapterError, match=r"cycle: '(a|b)' \(line [34]\) -> '(a|b)' \(line [34]\) -> "):
        read_summary_log(path)


def test_self_input_is_a_cycle(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "x.jsonl", [{"id": "a", "text": "A.", "inputs": ["a"]}])
    with pytest.raises(AdapterError, match=r"cycle: 'a' \(line 2\) -> 'a' \(line 2\)"):
        read_summary_log(path)


def test_unknown_input_names_the_record_and_line(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "x.jsonl", [{"id": "c", "text": "C."}, {"id": "s", "text": "S.", "inputs": ["c", "z"]}]
    )
    with pytest.raises(AdapterError, match=r"x.jsonl, line 3: record 's' names unknown input\(s\) 'z'"):
        read_summary_log(path)


def test_duplicate_id_names_both_lines(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "x.jsonl", [{"id": "c", "text": "C."}, {"id": "c", "text": "Again."}])
    with pytest.raises(AdapterError, match=r"line 3: duplicate id 'c' \(first on line 2\)"):
        read_summary_log(path)


def test_empty_text_names_the_record(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "x.jsonl", [{"id": "c", "text": "C."}, {"id": "s", "text": " ", "inputs": ["c"]}])
    with pytest.raises(AdapterError, match=r"line 3: record 's' has empty text"):
        read_summary_log(path)


def test_forward_references_are_allowed(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "x.jsonl", [{"id": "s", "text": "S.", "inputs": ["c"]}, {"id": "c", "text": "C."}])
    dag = read_summary_log(path)
    assert (dag.stage("c"), dag.stage("s")) == (1, 2)


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([{"id": "c", "text": "C.", "input": ["x"]}], r"line 2: record 'c': input: Extra inputs"),
        ([{"id": "c"}], r"line 2: record 'c': text: Field required"),
        ([{"type": "note", "text": "?"}], r"line 2: record: unknown record type 'note'"),
        ([{"id": "c", "text": "C.", "stage": -1}], r"line 2: record 'c': stage"),
        (
            [{"type": "question", "text": "One?"}, {"type": "question", "text": "Two?"}],
            r"line 3: a second, different question \(the first is on line 2\)",
        ),
    ],
)
def test_malformed_records_name_the_line(tmp_path: Path, records: list[dict], message: str) -> None:
    with pytest.raises(AdapterError, match=message):
        read_summary_log(write_lines(tmp_path / "x.jsonl", records))


def test_bad_headers(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(AdapterError, match="empty log"):
        read_summary_log(empty)
    other = tmp_path / "other.jsonl"
    other.write_text('{"id": "c", "text": "C."}\n', encoding="utf-8")
    with pytest.raises(AdapterError, match=r"line 1: not a 'veritrail-summary-log' log"):
        read_summary_log(other)
    newer = tmp_path / "newer.jsonl"
    newer.write_text(json.dumps({**HEADER, "version": 2}) + "\n", encoding="utf-8")
    with pytest.raises(AdapterError, match="version 2 is newer than this reader"):
        read_summary_log(newer)
    with pytest.raises(AdapterError, match="no such file"):
        read_summary_log(tmp_path / "missing.jsonl")


def test_several_loose_ends_load_but_have_no_final_summary(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "x.jsonl",
        [
            {"id": "c1", "text": "One."},
            {"id": "c2", "text": "Two."},
            {"id": "s1", "text": "S1.", "inputs": ["c1"]},
            {"id": "s2", "text": "S2.", "inputs": ["c2"]},
        ],
    )
    dag = read_summary_log(path)
    assert {dag.node("s1").kind, dag.node("s2").kind} == {"summary"}
    assert sorted(dag.sinks) == ["s1", "s2"]


def test_concurrent_writers_never_interleave_lines(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with SummaryLog(path) as log:
        log.source("c", "Source.")

        def write(worker: int) -> None:
            for i in range(40):
                log.summary(f"s-{worker}-{i}", f"Summary {i} by {worker}. " * 20, ["c"])

        threads = [threading.Thread(target=write, args=(w,)) for w in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(read_summary_log(path)) == 1 + 6 * 40


def test_detect_and_load_every_format(tmp_path: Path) -> None:
    log_path = small_run(tmp_path / "run.jsonl")
    assert detect_format(log_path) == "summary-log"
    assert load_summary_run(log_path).terminal == "final"
    dag_path = tmp_path / "dag.json"
    DAG.from_records([Node(id="a", text="A.", stage=1), Node(id="b", text="B.", stage=2)], [("a", "b")]).to_json(
        dag_path
    )
    assert detect_format(dag_path) == "dag"
    assert load_summary_run(dag_path).terminal == "b"
    book_path = tmp_path / "hier.json"
    book_path.write_text(json.dumps({"b": {"summaries_dict": {"0": ["A."]}, "final_summary": "A."}}))
    assert detect_format(book_path) == "booookscore"
    assert load_summary_run(book_path).terminal == "summary-0-0"
    with pytest.raises(AdapterError, match="book applies to BooookScore files only; this is a summary-log"):
        load_summary_run(log_path, book="b")
    unknown = tmp_path / "u.json"
    unknown.write_text('{"rows": 3}')
    with pytest.raises(AdapterError, match="unknown kind"):
        load_summary_run(unknown)
    text = tmp_path / "t.txt"
    text.write_text("just words\nmore words\n")
    with pytest.raises(AdapterError, match="not a summarization run"):
        load_summary_run(text)


def test_the_sample_run_loads_with_its_documented_stages() -> None:
    dag = load_summary_run(SAMPLE)
    assert dag.stages() == {1: 6, 2: 6, 3: 2, 4: 1}
    assert dag.terminal == "final"
    assert dag.roots == {f"chunk-{n}" for n in range(1, 7)}
    assert sorted(dag.src("level2-2")) == ["level1-4", "level1-5", "level1-6"]
    assert {dag.node(i).kind for i in dag.roots} == {"chunk"}
    # The planted content sits where the sample's README says.
    planted_stage_2 = "Scrooge docks half a crown from the clerk's wages for the day off."
    planted_stage_3 = "Bob Cratchit has worked for Scrooge for twenty years."
    assert planted_stage_2 in dag.node("level1-5").text
    assert planted_stage_3 in dag.node("level2-2").text
    assert not any("twenty years" in dag.node(f"level1-{n}").text for n in range(1, 7))
    assert not any("docks" in dag.node(f"chunk-{n}").text for n in range(1, 7))
    assert "twenty years" in dag.node("final").text
    assert "docks half a crown" in dag.node("final").text
