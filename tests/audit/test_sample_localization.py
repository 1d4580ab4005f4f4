"""The planted errors of the bundled samples are localized to the stage they were planted at.

The verifier here is a key-phrase oracle (it selects and accepts only sentences carrying the
planted phrase), so these tests check the adapters' DAGs and the engine's localization together,
independently of any verifier's quality.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from scripted import ScriptedVerifier

from veritrail_graphrag import Claim, Verdict, VeriTrail
from veritrail_graphrag.adapters.graphrag import QueryRun, add_query_run, read_index
from veritrail_graphrag.adapters.summaries import load_summary_run
from veritrail_graphrag.audit import audit

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def graphrag_sample():  # type: ignore[no-untyped-def]
    root = SAMPLES / "graphrag-christmas-carol"
    run = QueryRun.load(root / "output" / "veritrail" / "queries" / "handwritten-1")
    return add_query_run(read_index(root), run)


def summary_sample():  # type: ignore[no-untyped-def]
    return load_summary_run(SAMPLES / "hierarchical-christmas-carol" / "summary-log.jsonl")


@pytest.mark.parametrize(
    ("load", "phrase", "stage"),
    [
        (graphrag_sample, "surgeon", 4),
        (graphrag_sample, "orphanage", 6),
        (summary_sample, "half a crown", 2),
        (summary_sample, "twenty years", 3),
    ],
)
def test_planted_error_is_blamed_on_its_stage(load, phrase: str, stage: int) -> None:  # type: ignore[no-untyped-def]
    dag = load()
    sentence = next(s for s in dag.sentences(dag.terminal) if phrase in s.text)
    result = VeriTrail(ScriptedVerifier(phrase)).verify(dag, Claim(id="planted", text=sentence.text))
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert result.error_stages == [stage]


@pytest.mark.parametrize(
    ("sample", "planted", "looked_at"),
    [
        ("graphrag-christmas-carol", {"surgeon": 4}, {"orphanage"}),
        ("hierarchical-christmas-carol/summary-log.jsonl", {"half a crown": 2, "twenty years": 3}, set()),
    ],
)
def test_the_default_verifier_flags_the_plants_at_their_stage_and_no_true_claim(
    tmp_path: Path, sample: str, planted: dict[str, int], looked_at: set[str]
) -> None:
    """What a new user sees first (README command 1, and the hierarchical sample), with the
    default offline verifier. The orphanage, which no map answer tells of, is left to a reviewer as
    commentary is (flagging such claims was wrong on every one read in real indexes), its words
    named."""
    report = audit(SAMPLES / sample, out=tmp_path)
    assert report.verifier == "facts"
    flagged = {r.claim.text: r.error_stages for r in report.results if r.verdict is Verdict.NOT_FULLY_SUPPORTED}
    expected = {next(t for t in flagged if phrase in t): [stage] for phrase, stage in planted.items()}
    assert flagged == expected
    inconclusive = {r.claim.text for r in report.results if r.verdict is Verdict.INCONCLUSIVE}
    assert {phrase for phrase in looked_at if any(phrase in t for t in inconclusive)} == looked_at
    plants = [r for r in report.results if any(phrase in r.claim.text for phrase in (*planted, *looked_at))]
    assert all(r.gaps for r in plants)  # each names what it could not find
