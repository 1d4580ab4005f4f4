"""Bracket citations, claim splitting and evidence spans for the cited-answer check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veritrail_graphrag.citations import find_citations
from veritrail_graphrag.cited.claims import Markers, regex_markers, resolve_cite, span_ids, split_cited_claims
from veritrail_graphrag.cited.spans import Span, load_spans, make_spans
from veritrail_graphrag.errors import ClaimsError, SpansError, UsageError


def test_one_citation_per_sentence_and_the_marker_removed() -> None:
    [claim] = split_cited_claims("Auth validates issuer via JWT_ISSUER. [S0]")
    assert claim.idx == 0 and claim.cites == ["S0"]
    assert claim.text == "Auth validates issuer via JWT_ISSUER."


def test_several_citations_numeric_ones_and_lists() -> None:
    claims = split_cited_claims(
        "Tokens expire after 15 minutes [S1][S2]. Refresh tokens last a day [3]. "
        "Both are signed with RS256 [S1, S4; S5]."
    )
    assert [c.cites for c in claims] == [["S1", "S2"], ["3"], ["S1", "S4", "S5"]]
    assert claims[0].text == "Tokens expire after 15 minutes."


def test_a_citation_alone_after_its_sentence_belongs_to_it() -> None:
    claims = split_cited_claims("The ferry runs hourly.\n\n[S2]\n\nIt is free on Sundays. [S3] [S4]")
    assert [(c.text, c.cites) for c in claims] == [
        ("The ferry runs hourly.", ["S2"]),
        ("It is free on Sundays.", ["S3", "S4"]),
    ]


def test_uncited_sentences_headings_links_and_graphrag_markers() -> None:
    answer = (
        "# Summary\n\nSee [the docs](https://example.com) for details. The grant was approved "
        "[Data: Reports (2, 7)]. Nothing cites this one."
    )
    claims = split_cited_claims(answer)
    assert [c.cites for c in claims] == [[], [], []]
    assert claims[0].text.startswith("See [the docs](https://example.com)")


def test_known_span_ids_of_any_shape_are_citations() -> None:
    text, cites = find_citations("The policy changed in May [policy-doc, S1].", span_ids({"policy-doc", "S1"}))
    assert cites == ["policy-doc", "S1"] and text == "The policy changed in May."
    text, cites = find_citations("The policy changed in May [policy-doc].", span_ids())
    assert cites == [] and "[policy-doc]" in text


def test_resolving_cites_against_span_ids() -> None:
    known = {"S0", "S1", "7"}
    assert resolve_cite("S0", known) == "S0"
    assert resolve_cite("s1", known) == "S1"
    assert resolve_cite("1", known) == "S1"
    assert resolve_cite("S7", known) == "7"
    assert resolve_cite("S9", known) is None


def test_spans_from_python_in_every_accepted_form() -> None:
    spans = make_spans([{"sid": "S0", "text": "a"}, {"id": 1, "text": "b"}, Span(sid="S2", text="c")])
    assert [s.sid for s in spans] == ["S0", "1", "S2"]
    assert make_spans({"S0": "a"}) == [Span(sid="S0", text="a")]


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ([{"sid": "S0", "text": "a"}, {"sid": "S0", "text": "b"}], "'S0' is used more than once (entry 1)"),
        ([{"sid": "S0", "text": "  "}], "span 'S0' (entry 0): text"),
        ([{"text": "a"}], "entry 0: sid: Field required"),
    ],
)
def test_bad_spans_name_the_entry(items: list[dict[str, str]], message: str) -> None:
    with pytest.raises(SpansError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_spans(items, "spans.json")


def test_span_files(tmp_path: Path) -> None:
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([{"sid": "S0", "text": "a"}]), encoding="utf-8")
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"spans": [{"sid": "S0", "text": "a"}]}), encoding="utf-8")
    mapping = tmp_path / "map.json"
    mapping.write_text(json.dumps({"S0": "a"}), encoding="utf-8")
    lines = tmp_path / "spans.jsonl"
    lines.write_text('{"sid": "S0", "text": "a"}\n\n{"sid": "S1", "text": "b"}\n', encoding="utf-8")
    for path in (listed, wrapped, mapping):
        assert load_spans(path) == [Span(sid="S0", text="a")]
    assert [s.sid for s in load_spans(lines)] == ["S0", "S1"]


def test_bad_span_files_name_the_file_and_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"sid": "S0", "text": "a"}\n{"sid": \n', encoding="utf-8")
    with pytest.raises(SpansError, match=r"broken.jsonl: line 2"):
        load_spans(broken)
    empty = tmp_path / "empty.json"
    empty.write_text("[]", encoding="utf-8")
    with pytest.raises(SpansError, match=r"empty\.json: no spans"):
        load_spans(empty)
    with pytest.raises(SpansError, match="no such file"):
        load_spans(tmp_path / "missing.json")


def test_claims_by_line_for_answers_without_full_stops() -> None:
    answer = "## Findings\nTokens expire after 15 minutes [S1]\nRefresh tokens last a day\n[S2]\n\nKeys rotate [S3]"
    claims = split_cited_claims(answer, split="lines")
    assert [(c.text, c.cites) for c in claims] == [
        ("Tokens expire after 15 minutes", ["S1"]),
        ("Refresh tokens last a day", ["S2"]),
        ("Keys rotate", ["S3"]),
    ]
    # by sentences, the lines of one paragraph are one sentence: one claim citing S1 and S2
    first = split_cited_claims(answer)[0]
    assert (first.text, first.cites) == (
        "Tokens expire after 15 minutes Refresh tokens last a day",
        ["S1", "S2"],
    )


def test_the_callers_own_claims_keep_their_citations() -> None:
    claims = split_cited_claims(["Tokens expire after 15 minutes [S1].", "Keys rotate monthly."])
    assert [(c.idx, c.text, c.cites) for c in claims] == [
        (0, "Tokens expire after 15 minutes.", ["S1"]),
        (1, "Keys rotate monthly.", []),
    ]
    with pytest.raises(ClaimsError, match=r"claim\(s\) 1 of the list have no text"):
        split_cited_claims(["Tokens expire [S1].", "[S2]"])


def test_a_citation_regex_replaces_bracket_markers() -> None:
    markers = regex_markers(r"\(source (?P<id>[\w, ]+)\)")
    claims = split_cited_claims(
        "Tokens expire after 15 minutes (source S1). Keys rotate monthly (source S2, S3). See [S4].", markers
    )
    assert [(c.text, c.cites) for c in claims] == [
        ("Tokens expire after 15 minutes.", ["S1"]),
        ("Keys rotate monthly.", ["S2", "S3"]),
        ("See [S4].", []),
    ]
    assert split_cited_claims("Tokens expire. (source S1)", markers)[0].cites == ["S1"]


@pytest.mark.parametrize(
    ("regex", "message"), [(r"\[(S\d+)\]", "needs a group named id"), (r"\[(?P<id>S\d+", "is not a regular expression")]
)
def test_a_citation_regex_without_an_id_group_is_refused(regex: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        regex_markers(regex)


def test_markers_default_to_span_ids() -> None:
    assert split_cited_claims("A fact [S0].", Markers(read=span_ids()))[0].cites == ["S0"]
