"""The verdict-input budget at its limits (the paper's section 3.1.3), and terminals that cannot
be traced. Each case is a deviation found in review, reproduced with the scripted verifier."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripted import ScriptedVerifier
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag import DAG, Claim, StopReason, TrailConfig, Verdict, VeriTrail
from veritrail_graphrag.audit.targets import file_target
from veritrail_graphrag.errors import TerminalError
from veritrail_graphrag.models import Excerpt, Sentence
from veritrail_graphrag.verifiers import EvidenceSelection

FS, NFS = Verdict.FULLY_SUPPORTED, Verdict.NOT_FULLY_SUPPORTED
SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "handwritten-hierarchical" / "dag.json"


def root_and_long_summary() -> DAG:
    """The issue's example: terminal T fed by root R and by summary A (5 marked sentences), A0 feeding A."""
    nodes = [
        {"id": "R", "stage": 1, "text": "MARK in the root."},
        {"id": "A0", "stage": 1, "text": "MARK in the source of A."},
        {"id": "A", "stage": 2, "text": " ".join(f"Point {i} MARK." for i in range(5))},
        {"id": "T", "stage": 3, "text": "Final."},
    ]
    return DAG.from_records(nodes, [("R", "T"), ("A", "T"), ("A0", "A")])


def selection_calls_reading(verifier: ScriptedVerifier, node_id: str) -> int:
    return sum(any(s.node_id == node_id for s in call) for call in verifier.selection_calls)


def test_a_node_left_out_of_the_verdict_input_is_still_expanded() -> None:
    verifier = ScriptedVerifier("MARK")
    result = VeriTrail(verifier, TrailConfig(max_verdict_sentences=2)).verify(
        root_and_long_summary(), Claim(id="c", text="MARK")
    )
    first, second = result.iterations
    assert first.nodes_with_evidence == ["R", "A"]
    assert [n for e in first.excerpts for n in e.nodes] == ["R"]
    assert first.omitted_from_verdict == ["A"]
    assert second.checked == ["A0"] and second.carried_roots == ["R"]
    assert result.verdict is FS and result.stop_reason is StopReason.ROOTS_REACHED
    assert selection_calls_reading(verifier, "R") == 1


def test_a_node_left_out_of_the_verdict_input_is_blamed() -> None:
    """Supported while A's summary was cut for size; A's own source does not support: stage 2 is blamed."""
    verifier = ScriptedVerifier("MARK", rule=lambda ex: NFS if any("A0" in e.nodes for e in ex) else FS)
    result = VeriTrail(verifier, TrailConfig(max_verdict_sentences=2)).verify(
        root_and_long_summary(), Claim(id="c", text="MARK")
    )
    assert result.interim_verdicts == [FS, NFS]
    assert result.verdict is NFS and result.error_stages == [2]


class ReselectsFirstSentences(ScriptedVerifier):
    """First reading: the marked sentences, with the sentence before the first as context.
    Shown sentences it has seen before (a re-selection): keeps each node's first one, and
    names the second as context."""

    def __init__(self, marker: str) -> None:
        super().__init__(marker)
        self.seen: set[str] = set()

    async def select_evidence(self, claim: Claim, sentences: list[Sentence]) -> EvidenceSelection:
        if not all(s.id in self.seen for s in sentences):
            self.seen.update(s.id for s in sentences)
            answer = await super().select_evidence(claim, sentences)
            first = next((s for s in sentences if s.id in answer.selected), None)
            before = [s.id for s in sentences if first and s.node_id == first.node_id and s.index == first.index - 1]
            return answer.model_copy(update={"context": before})
        self.selection_calls.append(list(sentences))
        by_node: dict[str, list[Sentence]] = {}
        for sentence in sentences:
            by_node.setdefault(sentence.node_id, []).append(sentence)
        keep = [group[0] for group in by_node.values()]
        context = [group[1].id for group in by_node.values() if len(group) > 1]
        return EvidenceSelection(selected=[s.id for s in keep], context=context, summary=" ".join(s.text for s in keep))


def test_reselection_never_shows_a_root_again_nor_drops_it() -> None:
    # The root's marked sentence is its second: a re-selection that saw it would drop it.
    nodes = [
        {"id": "R", "stage": 1, "text": "An opening line. The root says MARK."},
        {"id": "T", "stage": 3, "text": "Final."},
    ]
    edges = [("R", "T")]
    for i in range(3):
        nodes += [
            {"id": f"s{i}", "stage": 2, "text": " ".join(f"Summary {i} point {j} MARK." for j in range(4))},
            {"id": f"c{i}", "stage": 1, "text": f"Chunk {i} MARK."},
        ]
        edges += [(f"c{i}", f"s{i}"), (f"s{i}", "T")]
    verifier = ReselectsFirstSentences("MARK")
    config = TrailConfig(max_sentences_per_prompt=4, max_verdict_sentences=5)
    result = VeriTrail(verifier, config).verify(DAG.from_records(nodes, edges), Claim(id="c", text="MARK"))

    first = result.iterations[0]
    assert first.reselections == 1
    assert [b.node_ids for b in first.batches if b.reselection] == [["s0"], ["s1"], ["s2"]]
    assert selection_calls_reading(verifier, "R") == 1
    assert first.nodes_with_evidence == ["R", "s0", "s1", "s2"]
    assert [e.id for e in first.evidence if e.node_id == "R"] == ["R#1"]
    assert [e.node_id for e in first.excerpts] == ["R", "s0", "s1", "s2"]
    assert first.omitted_from_verdict == []
    assert result.iterations[1].carried_roots == ["R"]


def test_context_is_that_of_the_evidence_the_verdict_saw() -> None:
    nodes = [
        {"id": "s", "stage": 2, "text": "An opening line. First MARK. Second MARK. Third MARK."},
        {"id": "c", "stage": 1, "text": "The chunk, MARK."},
        {"id": "T", "stage": 3, "text": "Final."},
    ]
    dag = DAG.from_records(nodes, [("c", "s"), ("s", "T")])
    result = VeriTrail(ReselectsFirstSentences("MARK"), TrailConfig(max_verdict_sentences=2)).verify(
        dag, Claim(id="c", text="MARK")
    )
    first = result.iterations[0]
    assert first.reselections == 1
    assert [e.id for e in first.evidence] == ["s#1"]
    assert [c.id for c in first.context] == ["s#2"]  # from the re-selection, not the first reading's "s#0"


def test_a_terminal_without_inputs_is_refused_naming_it() -> None:
    dag = root_and_long_summary()
    engine = VeriTrail(ScriptedVerifier("MARK"))
    with pytest.raises(TerminalError, match="'R'") as info:
        engine.verify(dag, Claim(id="c", text="MARK"), terminal="R")
    assert info.value.node_id == "R"
    alone = DAG.from_records([{"id": "only", "stage": 1, "text": "MARK."}], [])
    with pytest.raises(TerminalError, match="'only'"):
        engine.verify(alone, Claim(id="c", text="MARK"))


def test_verify_refuses_a_root_as_terminal_with_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    args = ["verify", str(SAMPLE), "--terminal", "chunk-1", "--claim", "Mara rowed.", "--out", str(out)]
    result = CliRunner().invoke(cli.app, args)
    assert result.exit_code == 2, result.output
    assert "'chunk-1'" in result.output and "no inputs" in result.output
    assert "Traceback" not in result.output and not out.exists()


def test_audit_of_a_dag_whose_only_node_is_source_text_is_refused_before_any_claim(tmp_path: Path) -> None:
    path = tmp_path / "alone.json"
    DAG.from_records([{"id": "only", "stage": 1, "text": "MARK."}], []).to_json(path)
    with pytest.raises(TerminalError, match="'only'"):
        file_target(path)  # the target is refused before a verifier exists, so no extraction is paid for
    result = CliRunner().invoke(cli.app, ["audit", str(path), "--verifier", "lexical"])
    assert result.exit_code == 2, result.output
    assert "'only'" in result.output and "Traceback" not in result.output


def test_excerpts_shown_are_the_ones_recorded() -> None:
    verifier = ScriptedVerifier("MARK")
    result = VeriTrail(verifier, TrailConfig(max_verdict_sentences=2)).verify(
        root_and_long_summary(), Claim(id="c", text="MARK")
    )
    recorded: list[list[Excerpt]] = [it.excerpts for it in result.iterations]
    assert verifier.judge_calls == recorded
