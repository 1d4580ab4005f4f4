"""The paper's worked examples, replayed with a scripted verifier."""

from __future__ import annotations

from scripted import ScriptedVerifier

from veritrail_graphrag import DAG, Claim, StopReason, TrailConfig, Verdict, VeriTrail

FS, NFS, INC = Verdict.FULLY_SUPPORTED, Verdict.NOT_FULLY_SUPPORTED, Verdict.INCONCLUSIVE


def graphrag_blog_dag(marked: set[str]) -> DAG:
    """The blog's GraphRAG figure: text units 1-3, stage-2 4-8, stage-3 9-11, reports 12-14,
    map answers 15-16, final answer 17. Nodes in `marked` carry the claim's marker."""
    stages = {
        **dict.fromkeys("123", 1),
        **dict.fromkeys("45678", 2),
        **dict.fromkeys(["9", "10", "11"], 3),
        **dict.fromkeys(["12", "13", "14"], 4),
        "15": 5,
        "16": 5,
        "17": 6,
    }
    edges = [
        ("1", "4"),
        ("2", "5"),
        ("3", "6"),
        ("2", "7"),
        ("3", "8"),
        ("5", "9"),
        ("6", "9"),
        ("7", "10"),
        ("8", "11"),
        ("9", "12"),
        ("4", "13"),
        ("10", "13"),
        ("11", "14"),
        ("12", "15"),
        ("13", "15"),
        ("14", "16"),
        ("15", "17"),
        ("16", "17"),
    ]
    nodes = [
        {
            "id": n,
            "stage": s,
            "text": f"Node {n} opens here. " + ("It says MARK clearly. " if n in marked else "") + "It ends here.",
        }
        for n, s in stages.items()
    ]
    return DAG.from_records(nodes, edges)


def test_case_study_1_fully_supported_trail_17_15_13_4_1() -> None:
    dag = graphrag_blog_dag({"15", "13", "4", "1"})
    verifier = ScriptedVerifier("MARK")
    result = VeriTrail(verifier).verify(dag, Claim(id="c", text="The claim MARK"))

    assert result.verdict is FS
    assert result.stop_reason is StopReason.ROOTS_REACHED
    assert [it.checked for it in result.iterations] == [["15", "16"], ["12", "13"], ["4", "10"], ["1"]]
    assert [it.nodes_with_evidence for it in result.iterations] == [["15"], ["13"], ["4"], ["1"]]
    assert result.interim_verdicts == [FS, FS, FS, FS]
    assert result.error_stages == []
    assert [e.node_id for it in result.iterations for e in it.evidence] == ["15", "13", "4", "1"]
    assert all(e.text == "It says MARK clearly." for it in result.iterations for e in it.evidence)


def test_case_study_2_not_fully_supported_with_q2_checks_12_13_14() -> None:
    dag = graphrag_blog_dag({"15"})
    verifier = ScriptedVerifier("MARK", rule=lambda _: NFS)
    result = VeriTrail(verifier, TrailConfig(q=2)).verify(dag, Claim(id="c", text="The claim MARK"))

    assert result.verdict is NFS
    assert result.stop_reason is StopReason.NOT_SUPPORTED_LIMIT
    assert [it.checked for it in result.iterations] == [["15", "16"], ["12", "13", "14"]]
    assert result.iterations[0].nodes_with_evidence == ["15"]
    assert result.interim_verdicts == [NFS, NFS]
    assert result.error_stages == [6]  # the final answer introduced it


def test_case_study_2_with_q1_stops_after_one_iteration() -> None:
    dag = graphrag_blog_dag({"15"})
    result = VeriTrail(ScriptedVerifier("MARK", rule=lambda _: NFS)).verify(dag, Claim(id="c", text="MARK"))
    assert [it.checked for it in result.iterations] == [["15", "16"]]
    assert result.error_stages == [6]


def hierarchical_figure_1() -> DAG:
    """Chunks 1-6 (stage 1), summaries 7-9 (stage 2), 10-11 (stage 3), final 12 (stage 4)."""
    stages = {**{str(i): 1 for i in range(1, 7)}, "7": 2, "8": 2, "9": 2, "10": 3, "11": 3, "12": 4}
    edges = [
        ("1", "7"),
        ("2", "7"),
        ("3", "8"),
        ("4", "8"),
        ("5", "9"),
        ("6", "9"),
        ("7", "10"),
        ("8", "10"),
        ("9", "11"),
        ("10", "12"),
        ("11", "12"),
    ]
    marked = {"10", "8", "4"}
    nodes = [
        {"id": n, "stage": s, "text": "A sentence. " + ("MARK here. " if n in marked else "") + "The end."}
        for n, s in stages.items()
    ]
    return DAG.from_records(nodes, edges)


def test_figure_1_error_introduced_at_stage_2() -> None:
    dag = hierarchical_figure_1()
    # Summaries support the claim; the source chunk (a root) does not.
    verifier = ScriptedVerifier("MARK", rule=lambda ex: NFS if any(e.is_root for e in ex) else FS)
    result = VeriTrail(verifier).verify(dag, Claim(id="c", text="MARK"))

    assert [it.nodes_with_evidence for it in result.iterations] == [["10"], ["8"], ["4"]]
    assert result.interim_verdicts == [FS, FS, NFS]
    assert result.verdict is NFS
    assert result.error_stages == [2]


def test_root_excerpts_carry_full_text_and_summaries_stand_for_other_nodes() -> None:
    dag = hierarchical_figure_1()
    verifier = ScriptedVerifier("MARK", rule=lambda ex: NFS if any(e.is_root for e in ex) else FS)
    VeriTrail(verifier).verify(dag, Claim(id="c", text="MARK"))
    first, _, last = verifier.judge_calls
    assert first[0].is_root is False and first[0].text == "MARK here."
    assert last[0].is_root is True and last[0].text == dag.node("4").text


def test_carried_root_is_not_reread_but_reaches_the_verdict() -> None:
    # Root r feeds the terminal directly and through summary s; s's own source is root t.
    nodes = [
        {"id": "r", "stage": 1, "text": "MARK one."},
        {"id": "t", "stage": 1, "text": "MARK two."},
        {"id": "s", "stage": 2, "text": "MARK summary."},
        {"id": "final", "stage": 3, "text": "Final."},
    ]
    dag = DAG.from_records(nodes, [("r", "final"), ("s", "final"), ("t", "s")])
    verifier = ScriptedVerifier("MARK")
    result = VeriTrail(verifier).verify(dag, Claim(id="c", text="MARK"))

    assert [it.checked for it in result.iterations] == [["r", "s"], ["t"]]
    assert result.iterations[1].carried_roots == ["r"]
    assert result.iterations[1].nodes_with_evidence == ["t", "r"]
    assert {e.node_id for e in verifier.judge_calls[1]} == {"t", "r"}
    assert result.verdict is FS and result.stop_reason is StopReason.ROOTS_REACHED
    assert verifier.nodes_read().count("r") == 1


def _invented_in_the_summary(*edges: tuple[str, str]) -> DAG:
    nodes = [
        {"id": "chunk", "stage": 1, "text": "Nothing relevant."},
        {"id": "summary", "stage": 2, "text": "MARK invented."},
        {"id": "final", "stage": 3, "text": "Final."},
    ]
    return DAG.from_records(nodes, [("chunk", "summary"), ("summary", "final"), *edges])


def test_supported_only_by_an_intermediate_node_is_not_fully_supported() -> None:
    # The paper's section 3.1.4: the summary supports the claim, its source never does -> NFS, stage of summary.
    dag = _invented_in_the_summary()
    result = VeriTrail(ScriptedVerifier("MARK"), TrailConfig(q=3)).verify(dag, Claim(id="c", text="MARK"))
    assert result.interim_verdicts == [FS, NFS]
    assert result.verdict is NFS
    assert result.stop_reason is StopReason.NO_CANDIDATES
    assert result.error_stages == [2]


def test_support_found_only_above_the_source_says_why_the_verdict_turns() -> None:
    # The chunk feeds the summary and the final answer: read in the first iteration without
    # evidence, it leaves nothing to check after the summary's Fully Supported.
    dag = _invented_in_the_summary(("chunk", "final"))
    result = VeriTrail(ScriptedVerifier("MARK"), TrailConfig(q=3)).verify(dag, Claim(id="c", text="MARK"))
    assert result.interim_verdicts == [FS] and result.verdict is NFS
    assert result.stop_reason is StopReason.NO_CANDIDATES and result.error_stages == [2]
    assert result.reasoning.startswith("The interim verdicts (Fully Supported) found support only in intermediate")
    assert "(stage 2)" in result.reasoning and "source was never reached" in result.reasoning


def test_inconclusive_mixed_with_not_supported_names_no_stage() -> None:
    dag = hierarchical_figure_1()
    verdicts = iter([INC, NFS, NFS])
    result = VeriTrail(ScriptedVerifier("MARK", rule=lambda _: next(verdicts)), TrailConfig(q=2)).verify(
        dag, Claim(id="c", text="MARK")
    )
    assert result.interim_verdicts == [INC, NFS, NFS]
    assert result.verdict is NFS
    assert result.error_stages is None
    assert "no stage" in result.error_note


def test_inconclusive_final_has_empty_error_stages() -> None:
    dag = hierarchical_figure_1()
    result = VeriTrail(ScriptedVerifier("MARK", rule=lambda _: INC)).verify(dag, Claim(id="c", text="MARK"))
    assert result.verdict is INC and result.error_stages == []


def test_decomposition_queue_dedupes_and_caps() -> None:
    parts = {
        "A and B": ["A", "B and C"],
        "B and C": ["B", "C", "A"],
    }
    paper = TrailConfig(decomposition_depth=None)
    verifier = ScriptedVerifier("MARK", parts=parts)
    result = VeriTrail(verifier, paper).verify(hierarchical_figure_1(), Claim(id="c", text="A and B"))
    assert result.claim.sub_claims == ["A", "B", "C"]
    assert verifier.decompose_calls == ["A and B", "A", "B and C", "B", "C"]

    capped = ScriptedVerifier("MARK", parts=parts)
    VeriTrail(capped, paper.model_copy(update={"max_decompositions": 1})).verify(
        hierarchical_figure_1(), Claim(id="c", text="A and B")
    )
    assert capped.decompose_calls == ["A and B"]

    once = ScriptedVerifier("MARK", parts=parts)  # the default: the claim is split once
    result = VeriTrail(once).verify(hierarchical_figure_1(), Claim(id="c", text="A and B"))
    assert once.decompose_calls == ["A and B"] and result.claim.sub_claims == ["A", "B and C"]


def test_given_sub_claims_skip_decomposition() -> None:
    verifier = ScriptedVerifier("MARK")
    result = VeriTrail(verifier).verify(hierarchical_figure_1(), Claim(id="c", text="X", sub_claims=["Y"]))
    assert verifier.decompose_calls == [] and result.claim.sub_claims == ["Y"]
