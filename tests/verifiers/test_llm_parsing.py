"""Reading answers of every prompt kind, structured and unstructured; labels back to sentence ids."""

from __future__ import annotations

import json

import pytest

from veritrail_graphrag.llm.json_text import extract_json, merged
from veritrail_graphrag.models import Sentence, Verdict
from veritrail_graphrag.verifiers.llm.labels import SentenceLabels
from veritrail_graphrag.verifiers.llm.parsing import (
    AnswerParseError,
    normalize_verdict,
    parse_claim_extraction,
    parse_decomposition,
    parse_evidence,
    parse_verdict,
)

VERDICT_JSON = {
    "interpretation": "one reading",
    "relevant_evidence": "excerpt 1 says so",
    "conflicting_evidence": "none",
    "debatable_evidence": "none",
    "clear_evidence": "excerpt 1",
    "reasoning": "All parts hold.",
    "verdict": "Fully Supported",
}


def sentences(n: int, node: str = "node-with-a-long-hash-id") -> list[Sentence]:
    return [Sentence(id=f"{node}#{i}", node_id=node, index=i, text=f"sentence {i}") for i in range(n)]


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "b": [1, 2]}',
        'Here you go:\n```json\n{"a": 1, "b": [1, 2]}\n```\nHope it helps.',
        "```\n{'a': 1, 'b': [1, 2,],}\n```",
        'Reasoning {not json} first. Then {"a": 1, "b": [1, 2],}',
        "{'a': 1, 'b': [1, 2], 'c': true, 'd': null}",
    ],
)
def test_extract_json_tolerates_fences_prose_trailing_commas_single_quotes(text: str) -> None:
    data = extract_json(text)
    assert data["a"] == 1 and data["b"] == [1, 2]


def test_raw_line_breaks_inside_strings_are_read() -> None:
    """SmolLM2-135M under llama.cpp's grammar wrote answers like this one (trimmed): a line break
    and a tab inside the summary, which strict JSON refuses."""
    answer = (
        '{ "sub_claims": [ "S1"] , "review": "[S8]" ,"selected": ["S2"] ,"context":[ ],'
        ' "summary": "The claim is true.]}\n\nThe clerk\twas paid poorly.\n" ,"gaps" :"none" } '
    )
    parsed = parse_evidence(answer)
    assert parsed.selected == ["S2"] and parsed.summary == "The claim is true.]}\n\nThe clerk\twas paid poorly.\n"


def test_extract_json_keeps_braces_and_literals_inside_strings() -> None:
    data = extract_json('{"summary": "uses {braces} and the word true", "ok": true}')
    assert data == {"summary": "uses {braces} and the word true", "ok": True}


def test_extract_json_returns_none_without_an_object() -> None:
    assert extract_json("no json here") is None
    assert extract_json('{"unterminated": ') is None


def test_a_repair_reply_is_read_with_the_fields_the_answer_kept() -> None:
    assert json.loads(merged({"a": 1, "b": "kept"}, '```json\n{"b": "new"}\n```')) == {"a": 1, "b": "new"}
    assert merged({"a": 1}, "no json here") == "no json here"


class TestVerdict:
    def test_structured(self) -> None:
        answer = parse_verdict(json.dumps(VERDICT_JSON))
        assert answer.verdict == "Fully Supported" and answer.reasoning == "All parts hold."

    def test_fenced_with_odd_casing(self) -> None:
        answer = parse_verdict("```json\n" + json.dumps({**VERDICT_JSON, "verdict": "not_fully supported."}) + "\n```")
        assert answer.verdict == "Not Fully Supported"

    def test_missing_reasoning_fields_default_to_empty(self) -> None:
        answer = parse_verdict('{"verdict": "Inconclusive"}')
        assert answer.verdict == "Inconclusive" and answer.reasoning == ""

    def test_plain_text_verdict_line(self) -> None:
        answer = parse_verdict("The excerpts say X.\nThey do not say Y.\n\n**Verdict:** Not Fully Supported")
        assert answer.verdict == "Not Fully Supported"
        assert "They do not say Y." in answer.reasoning

    @pytest.mark.parametrize(
        "text",
        ["Verdict: Mostly Supported", '{"verdict": "supported"}', "I think it is fine.", ""],
    )
    def test_unknown_or_missing_verdict_is_never_guessed(self, text: str) -> None:
        with pytest.raises(AnswerParseError):
            parse_verdict(text)

    @pytest.mark.parametrize("verdict", [{}, {"verdict": "supported"}])
    def test_an_unreadable_verdict_is_missing_and_the_reasoning_kept(self, verdict: dict[str, str]) -> None:
        reasoning = {k: v for k, v in VERDICT_JSON.items() if k != "verdict"}
        with pytest.raises(AnswerParseError) as info:
            parse_verdict(json.dumps({**reasoning, **verdict}))
        assert info.value.missing == ("verdict",) and info.value.kept == reasoning
        repaired = parse_verdict(merged(info.value.kept, 'Here: {"verdict": "Fully Supported"}'))
        assert repaired.verdict == "Fully Supported" and repaired.reasoning == "All parts hold."

    def test_normalize_accepts_only_the_three_labels(self) -> None:
        assert normalize_verdict("FULLY SUPPORTED") is Verdict.FULLY_SUPPORTED
        assert normalize_verdict("inconclusive") is Verdict.INCONCLUSIVE
        with pytest.raises(AnswerParseError):
            normalize_verdict("partially supported")


class TestEvidence:
    def test_structured(self) -> None:
        text = json.dumps(
            {
                "sub_claims": ["a"],
                "review": "r",
                "selected": ["S1", "S3-S4"],
                "context": ["S2"],
                "summary": "Acme Corp reported X.",
                "gaps": "N/A",
            }
        )
        answer = parse_evidence(text)
        assert answer.selected == ["S1", "S3-S4"] and answer.context == ["S2"]

    def test_labels_as_a_string_and_integers(self) -> None:
        answer = parse_evidence('{"selected": "S1, S3-S4", "context": [2], "summary": "s"}')
        assert answer.selected == ["S1", "S3-S4"] and answer.context == ["2"]

    def test_plain_text_fields(self) -> None:
        answer = parse_evidence("Selected: S2, S5-S6\nContext: none\nSummary: Acme Corp reported X.")
        assert answer.selected == ["S2", "S5-S6"] and answer.context == []
        assert answer.summary == "Acme Corp reported X."

    def test_nothing_selected(self) -> None:
        answer = parse_evidence('{"selected": [], "context": [], "summary": ""}')
        assert answer.selected == [] and answer.summary == ""

    @pytest.mark.parametrize(
        "text",
        [
            '{"selected": ["S1"], "context": [], "summary": ""}',
            '{"selected": ["S1"]}',
            '{"selected": ["S1"], "summary": null, "gaps": 3}',  # invalid optional fields: their defaults
            "Selected: S1",
        ],
    )
    def test_a_selection_without_a_summary_is_kept(self, text: str) -> None:
        answer = parse_evidence(text)
        assert answer.selected == ["S1"] and answer.summary == "" and answer.context == []

    def test_missing_selection_names_the_field_and_keeps_the_rest(self) -> None:
        with pytest.raises(AnswerParseError, match="selected") as info:
            parse_evidence('{"review": "S2 says so", "summary": "something", "unknown": 1}')
        assert info.value.missing == ("selected",)
        assert info.value.kept == {"review": "S2 says so", "summary": "something"}


class TestDecomposition:
    @pytest.mark.parametrize(
        "text",
        [
            '{"parts": ["A is B.", "C is D."]}',
            '```\n["A is B.", "C is D.", "A is B."]\n```',
            "{'items': ['A is B.', 'C is D.',]}",
        ],
    )
    def test_forms(self, text: str) -> None:
        assert parse_decomposition(text) == ["A is B.", "C is D."]

    def test_unreadable(self) -> None:
        with pytest.raises(AnswerParseError):
            parse_decomposition("A is B. C is D.")


class TestClaimExtraction:
    def test_claims_kept_when_verifiable_and_resolvable(self) -> None:
        text = json.dumps(
            {
                "selection": "",
                "has_verifiable_content": True,
                "disambiguation": "",
                "can_be_disambiguated": True,
                "claims": ["Acme Corp sells X.", " "],
            }
        )
        assert parse_claim_extraction(text) == ["Acme Corp sells X."]

    @pytest.mark.parametrize("flag", ["has_verifiable_content", "can_be_disambiguated"])
    def test_dropped_sentence_yields_no_claims(self, flag: str) -> None:
        data = {
            "selection": "",
            "has_verifiable_content": True,
            "disambiguation": "",
            "can_be_disambiguated": True,
            "claims": ["Leftover."],
        }
        data[flag] = False
        assert parse_claim_extraction(json.dumps(data)) == []

    def test_unreadable(self) -> None:
        with pytest.raises(AnswerParseError) as info:
            parse_claim_extraction('{"selection": "x"}')
        assert info.value.missing == ("claims",) and info.value.kept == {"selection": "x"}

    def test_a_sentence_found_unverifiable_needs_no_claims_list(self) -> None:
        assert parse_claim_extraction('{"selection": "advice", "has_verifiable_content": false}') == []

    def test_claims_without_the_flags_stand(self) -> None:
        assert parse_claim_extraction('{"claims": ["Acme Corp sells X."]}') == ["Acme Corp sells X."]


class TestLabels:
    def test_ranges_expand_and_map_to_ids(self) -> None:
        labels = SentenceLabels(sentences(8))
        ids, unknown = labels.resolve(["S1", "S3-S5", "[S8]", "s7", "6"])
        assert ids == [f"node-with-a-long-hash-id#{i}" for i in (0, 2, 3, 4, 7, 6, 5)]
        assert unknown == []

    def test_unknown_labels_are_dropped_not_guessed(self) -> None:
        labels = SentenceLabels(sentences(3))
        ids, unknown = labels.resolve(["S2", "S9", "S0", "node#1", "S3-S40", "S3-S1", "nonsense"])
        assert ids == ["node-with-a-long-hash-id#1"]
        assert {"S9", "S0", "node#1", "S3-S40", "S3-S1", "nonsense"} <= set(unknown)

    def test_range_spellings(self) -> None:
        labels = SentenceLabels(sentences(6))
        for spelling in ("S2-S4", "S2 - S4", "S2\u2013S4", "S2 to S4", "2-4", "S2..S4"):
            assert labels.resolve([spelling])[0] == [f"node-with-a-long-hash-id#{i}" for i in (1, 2, 3)]

    def test_several_labels_in_one_string(self) -> None:
        labels = SentenceLabels(sentences(6))
        assert labels.resolve(["S1, S2 and S6"])[0] == [f"node-with-a-long-hash-id#{i}" for i in (0, 1, 5)]
