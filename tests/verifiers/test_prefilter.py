"""The prefilter: what it leaves out of Evidence Selection, what it never does, and its model."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
import wordllama
from fake_openai import FakeOpenAI

from veritrail_graphrag import Claim
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.traversal import VeriTrail
from veritrail_graphrag.errors import VerifierConfigError
from veritrail_graphrag.llm.client import LLMClient
from veritrail_graphrag.llm.config import LLMConfig
from veritrail_graphrag.models import Sentence, TrailConfig
from veritrail_graphrag.report.records import to_record
from veritrail_graphrag.verifiers import prefilter
from veritrail_graphrag.verifiers.base import Prefilters
from veritrail_graphrag.verifiers.llm.verifier import LLMVerifier

pytest_plugins = ["fake_openai"]

CLAIM = Claim(id="c1", text="Mara Voss was the miller's daughter.")
UNRELATED = [
    "The harbour froze every winter.",
    "Taxes were collected in spring.",
    "Ships from the south brought salt.",
    "A storm broke the bridge in March.",
    "The council met in the old hall.",
    "Wool prices rose that year.",
    "Nobody kept records of the fairs.",
    "The road to the coast was long.",
]


def node(texts: list[str], node_id: str = "tu1") -> list[Sentence]:
    return [Sentence(id=f"{node_id}#{i}", node_id=node_id, index=i, text=t) for i, t in enumerate(texts)]


def kept(flags: list[bool], sentences: list[Sentence]) -> list[str]:
    return [s.text for s, keep in zip(sentences, flags, strict=True) if keep]


def test_a_long_node_keeps_what_shares_a_word_a_paraphrase_and_a_pointer_back() -> None:
    shared = "Mara grew up in a cottage by the river."
    paraphrase = "Her father ground the village's grain at the mill."  # no word of the claim in common
    pointer = "She never left the valley."  # follows a kept sentence and points back to it
    sentences = node([UNRELATED[0], shared, pointer, *UNRELATED[1:4], paraphrase, *UNRELATED[4:]])
    assert len(sentences) > prefilter.LONG_NODE
    assert kept(prefilter.may_be_evidence(CLAIM, sentences), sentences) == [shared, pointer, paraphrase]


def test_a_number_or_a_sub_claim_is_enough_to_keep_a_sentence() -> None:
    claim = Claim(id="c", text="The mill burned in 1843.", sub_claims=["Mara Voss inherited it."])
    sentences = node([*UNRELATED, "In 1843 the harvest failed.", "Voss sold the land."])
    assert kept(prefilter.may_be_evidence(claim, sentences), sentences) == [
        "In 1843 the harvest failed.",
        "Voss sold the land.",
    ]


def test_a_short_node_is_kept_or_left_out_whole() -> None:
    related = node(["Mara's family ran the mill.", "The roof leaked."], "entity:MARA")
    unrelated = node(UNRELATED[:3], "entity:HARBOUR")
    assert prefilter.may_be_evidence(CLAIM, related) == [True, True]
    assert prefilter.may_be_evidence(CLAIM, unrelated) == [False, False, False]


def test_a_claim_with_nothing_to_compare_is_never_filtered() -> None:
    sentences = node([*UNRELATED, "One more line."])
    assert all(prefilter.may_be_evidence(Claim(id="c", text="It was so."), sentences))


def test_the_model_loads_with_the_network_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError("network blocked in this test")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    prefilter._model.cache_clear()
    prefilter._node_vectors.cache_clear()
    try:
        sentences = node([*UNRELATED, "Her father ground the village's grain at the mill."])
        assert prefilter.may_be_evidence(CLAIM, sentences)[-1] is True
    finally:
        prefilter._model.cache_clear()


def test_missing_weights_are_one_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "weights").mkdir()
    (tmp_path / "weights" / "l2_supercat_256.safetensors").write_bytes(b"not a safetensors file")
    monkeypatch.setattr(wordllama, "__file__", str(tmp_path / "__init__.py"))
    prefilter._model.cache_clear()
    prefilter._node_vectors.cache_clear()
    try:
        with pytest.raises(VerifierConfigError, match=r"could not be loaded.*--prefilter"):
            prefilter.may_be_evidence(CLAIM, node([*UNRELATED, "One more line."]))
    finally:
        prefilter._model.cache_clear()


def _dag() -> DAG:
    chunk = " ".join([*UNRELATED[:4], "Mara Voss was the miller's only daughter.", *UNRELATED[4:]])
    nodes = [
        {"id": "tu1", "stage": 1, "kind": "text_unit", "text": chunk},
        {"id": "tu2", "stage": 1, "kind": "text_unit", "text": " ".join(UNRELATED)},
        {"id": "ent1", "stage": 2, "kind": "entity", "text": "Mara Voss is the miller's daughter."},
        {"id": "ent2", "stage": 2, "kind": "entity", "text": "The harbour froze every winter."},
        {"id": "final", "stage": 3, "kind": "final_answer", "text": "Mara Voss was the miller's daughter."},
    ]
    edges = [("tu1", "ent1"), ("tu2", "ent1"), ("tu2", "ent2"), ("ent1", "final"), ("ent2", "final")]
    return DAG.from_records(nodes, edges)


async def _audit(server: FakeOpenAI, prefiltered: bool) -> tuple[Any, LLMVerifier]:
    config = LLMConfig(model="gpt-4o", base_url=server.url, api_key="k", cache=False)
    verifier = LLMVerifier(config, client=LLMClient(config), prefilter=prefiltered)
    result = await VeriTrail(verifier, TrailConfig()).averify(_dag(), CLAIM)
    await verifier.aclose()
    return result, verifier


async def test_prefiltered_prompts_leave_out_what_cannot_be_evidence_and_the_trail_says_so(
    fake_openai: FakeOpenAI,
) -> None:
    full, plain = await _audit(fake_openai, prefiltered=False)
    shown_full = [v.sentences for v in fake_openai.views() if v.task == "evidence selection"]
    fake_openai.reset()
    reduced, filtering = await _audit(fake_openai, prefiltered=True)
    shown_reduced = [v.sentences for v in fake_openai.views() if v.task == "evidence selection"]

    assert isinstance(filtering, Prefilters)
    assert full.verdict == reduced.verdict
    assert [s.id for it in full.iterations for s in it.evidence] == [
        s.id for it in reduced.iterations for s in it.evidence
    ]
    full_texts = {t for call in shown_full for t in call.values()}
    reduced_texts = {t for call in shown_reduced for t in call.values()}
    assert "The harbour froze every winter." in full_texts
    assert "The harbour froze every winter." not in reduced_texts
    assert "Mara Voss was the miller's only daughter." in reduced_texts
    assert reduced.iterations[0].skipped == ["ent2#0-0"]  # a short unrelated node, left out whole
    assert reduced.iterations[1].skipped == ["tu1#0-3", "tu1#5-8", "tu2#0-7"]
    assert all(not it.skipped for it in full.iterations)
    # kept in the checkpoint and with --full-trail, like the prompts' records; not in a plain report
    assert to_record(reduced).iterations[1].skipped == reduced.iterations[1].skipped
    assert not to_record(reduced, batches=False).iterations[1].skipped
    assert filtering.usage.total().input_tokens < plain.usage.total().input_tokens
    assert filtering.settings()["llm"]["prefilter"] == prefilter.MIN_SIMILARITY
    assert "prefilter" not in plain.settings()["llm"]
