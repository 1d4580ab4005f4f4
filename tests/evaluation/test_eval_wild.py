"""The wild benchmark: labels read from the package, every text from the corpus at run time, and
a label whose claim moved or changed reported, never dropped in silence. (No text of the corpus is
written here: the corpus carries no licence; labels are made from the shipped dev labels.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from samples import SHARED, needs_shared
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli

from veritrail_graphrag.evaluation.catalog import load_benchmark
from veritrail_graphrag.evaluation.errors import BenchmarkDataError
from veritrail_graphrag.evaluation.items import Split
from veritrail_graphrag.evaluation.session import chosen_split
from veritrail_graphrag.evaluation.splits import select
from veritrail_graphrag.evaluation.wild import (
    HELDOUT_LABELS,
    claim_key,
    dev_labels_path,
    find_corpus,
    heldout_labels_path,
    load_wild,
    read_labels,
)

CORPUS = SHARED / "fixtures" / "graphrag-wild"
INDEX = "khmelkoff__jm_project"


def _dev(index: str = INDEX) -> list[dict]:
    return [json.loads(line) for line in dev_labels_path().read_text().splitlines() if f'"{index}"' in line]


def _write(path: Path, labels: list[dict]) -> Path:
    path.write_text("".join(json.dumps(label) + "\n" for label in labels))
    return path


def test_the_key_ignores_citations_case_and_punctuation() -> None:
    assert claim_key("The mill opened [Data: Reports (1, 2)].") == claim_key("the MILL  opened")
    assert claim_key("The mill opened.") != claim_key("The mill closed.")
    assert len(claim_key("x")) == 12


def test_the_shipped_dev_labels_parse_and_hold_three_labels() -> None:
    labels = read_labels(dev_labels_path())
    assert len(labels) == 299
    assert {label.label for label in labels} == {"supported", "unsupported", "uncheckable"}


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "line 2: not JSON"),
        ('{"index": "a", "community": 1, "sentence": 0, "key": "0123456789ab", "label": "maybe"}', "line 2: label"),
        ('{"index": "a", "community": 1, "sentence": 0, "key": "xyz", "label": "supported"}', "line 2: key"),
    ],
)
def test_a_bad_labels_line_is_named(tmp_path: Path, line: str, problem: str) -> None:
    good = '{"index": "a", "community": 1, "sentence": 1, "key": "0123456789ab", "label": "supported"}'
    path = tmp_path / "labels.jsonl"
    path.write_text(f"{good}\n{line}\n")
    with pytest.raises(BenchmarkDataError, match=problem):
        read_labels(path)


def test_a_claim_labelled_twice_is_refused(tmp_path: Path) -> None:
    good = '{"index": "a", "community": 1, "sentence": 1, "key": "0123456789ab", "label": "supported"}'
    path = tmp_path / "labels.jsonl"
    path.write_text(f"{good}\n{good}\n")
    with pytest.raises(BenchmarkDataError, match="line 2: a report 1 sentence 1 is labelled on line 1 too"):
        read_labels(path)


def test_the_default_split_is_dev_for_wild_without_test_labels(tmp_path: Path) -> None:
    assert chosen_split("wild", None, None) is Split.DEV
    assert chosen_split("wild", None, tmp_path / "test.jsonl") is Split.TEST
    assert chosen_split("summedits", None, None) is Split.TEST
    assert chosen_split("wild", "test", None) is Split.TEST  # the shipped held-out labels


def test_the_held_out_labels_share_no_report_with_the_dev_labels() -> None:
    """Issue 39: the top reports of five indexes are kept for measurement; the dev set never takes them."""
    held_out, dev = read_labels(heldout_labels_path()), read_labels(dev_labels_path())
    assert len(held_out) == 348 and sum(label.label == "unsupported" for label in held_out) >= 40
    assert not {(x.index, x.community) for x in held_out} & {(x.index, x.community) for x in dev}


def test_labels_are_refused_for_a_benchmark_that_has_its_own(tmp_path: Path) -> None:
    with pytest.raises(BenchmarkDataError, match="--labels is for the wild benchmark"):
        load_benchmark("summedits", tmp_path, tmp_path / "labels.jsonl")


def test_the_corpus_is_found_beside_the_benchmarks(tmp_path: Path) -> None:
    (tmp_path / "fixtures" / "graphrag-wild").mkdir(parents=True)
    (tmp_path / "benchmarks").mkdir()
    assert find_corpus(tmp_path / "benchmarks") == tmp_path / "fixtures" / "graphrag-wild"


@needs_shared(CORPUS)
def test_test_labels_are_matched_moved_or_reported(tmp_path: Path) -> None:
    """A label at its sentence is scored; one whose sentence number is wrong but whose words are
    the report's is scored where they are, and said so; one whose words are not the claim's, or
    whose report does not exist, is reported and not scored."""
    dev = _dev()
    report = dev[0]["community"]
    same = [label for label in dev if label["community"] == report]
    kept, moved, changed = same[0], dict(same[1], sentence=same[1]["sentence"] + 100), dict(same[2], key="0" * 12)
    missing = dict(same[3], community=987654)
    path = _write(tmp_path / "test.jsonl", [kept, moved, changed, missing])

    loaded = load_wild(CORPUS, path)
    test = select(loaded.items, Split.TEST)
    assert [item.id for item in test] == [f"{INDEX}/{report}"]
    claims = test[0].claims
    assert [c.claim.sentence for c in claims] == [kept["sentence"], same[1]["sentence"]]
    assert all(claim_key(c.claim.text) == label["key"] for c, label in zip(claims, [kept, same[1]], strict=True))
    warning = " ".join(loaded.warnings)
    assert "2 test label(s) not scored" in warning
    where = f"report {report} sentence {changed['sentence']} ({changed['label']})"
    assert f"{where}: the claim there has other words" in warning
    assert "report 987654" in warning and "the index has no such report" in warning
    assert "1 test label(s) scored at another sentence number" in warning
    scored = {item.subset for item in select(loaded.items, Split.DEV)}
    unread = {
        d["index"] for d in read_dev() if any(f"{d['index']}: the index cannot be read" in w for w in loaded.warnings)
    }
    assert scored | unread == {d["index"] for d in read_dev()} and not scored & unread
    assert loaded.triage


def read_dev() -> list[dict]:
    return [json.loads(line) for line in dev_labels_path().read_text().splitlines()]


@needs_shared(CORPUS)
def test_an_index_that_does_not_load_is_reported_with_its_labels(tmp_path: Path) -> None:
    (tmp_path / INDEX).mkdir()
    path = _write(tmp_path / "test.jsonl", _dev()[:3])
    corpus = tmp_path
    for other in {d["index"] for d in read_dev()} - {INDEX}:
        (corpus / other).symlink_to(CORPUS / other)
    loaded = load_wild(corpus, path)
    assert not select(loaded.items, Split.TEST)
    warning = " ".join(loaded.warnings)
    assert "3 test label(s) not scored: the 3 labels of 1 index(es) that cannot be read" in warning
    assert f"{INDEX}: the index cannot be read, so none of its 3 labels is scored" in warning


def test_a_missing_index_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(BenchmarkDataError, match="no index folder"):
        load_wild(tmp_path)


@needs_shared(CORPUS)
def test_the_test_split_scores_the_shipped_held_out_labels(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli.app, ["eval", "wild", "--split", "test", "--limit", "1", "--data", str(CORPUS), "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "wild-test-facts-limit1.json").read_text())
    assert report["split"] == "test" and report["units"] >= 1
    assert HELDOUT_LABELS in " ".join(report["notes"])
