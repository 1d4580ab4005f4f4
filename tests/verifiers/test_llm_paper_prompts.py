"""The prompt profiles: the paper's steps (appendix C.2) for a configured endpoint, the compact
fields for a local model; what each sends, how its answers are read, and how a run records it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, PromptView
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.traversal import VeriTrail
from veritrail_graphrag.llm.config import LLMConfig, PromptProfile, resolve_llm_config
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.llm.structured import Rung, response_format_for
from veritrail_graphrag.models import Claim, Excerpt, Sentence, Verdict
from veritrail_graphrag.verifiers.llm.labels import SentenceLabels
from veritrail_graphrag.verifiers.llm.paper_prompts import paper_evidence_prompt, paper_verdict_prompt
from veritrail_graphrag.verifiers.llm.parsing import NO_RELEVANT_SENTENCES, parse_paper_evidence, parse_paper_verdict
from veritrail_graphrag.verifiers.llm.profiles import PROFILES
from veritrail_graphrag.verifiers.llm.prompts import LANGUAGE_RULE
from veritrail_graphrag.verifiers.llm.schemas import PROFILE_MODELS, answer_schema
from veritrail_graphrag.verifiers.llm.verifier import LLMVerifier
from veritrail_graphrag.verifiers.registry import VerifierSpec, prepare_verifier

pytest_plugins = ["fake_openai"]

CLAIM = Claim(id="c1", text="Acme Corp opened a plant in Lyon.", sub_claims=["Acme Corp opened a plant."])
SENTENCES = [
    Sentence(id="n1#0", node_id="n1", index=0, text="Acme Corp opened a plant in 2019."),
    Sentence(id="n1#1", node_id="n1", index=1, text="It stands in Lyon."),
    Sentence(id="n2#0", node_id="n2", index=0, text="Lyon is in France."),
]


def _blocks(user: str) -> dict[str, str]:
    found = re.findall(r'<(data-[0-9a-f]{12}) name="([^"]+)"[^>]*>\n(.*?)\n</\1>', user, re.DOTALL)
    return {name: body for _, name, body in found}


def _strings_and_lists(node: dict[str, Any], path: str = "") -> list[tuple[str, dict[str, Any]]]:
    found = []
    for name, prop in node.get("properties", {}).items():
        found.append((path + name, prop))
        if prop.get("type") == "array" and prop["items"].get("type") == "object":
            found += _strings_and_lists(prop["items"], f"{path}{name}[].")
    return found


@pytest.mark.parametrize("kind", [CallKind.EVIDENCE_SELECTION, CallKind.VERDICT])
def test_the_paper_answers_are_strict_bounded_and_inline(kind: CallKind) -> None:
    schema = answer_schema(kind, labels=40, profile=PromptProfile.PAPER)
    assert "$ref" not in json.dumps(schema) and "$defs" not in schema  # grammar servers need no references
    assert schema["required"] == list(PROFILE_MODELS[PromptProfile.PAPER][kind].model_fields)
    for name, prop in _strings_and_lists(schema):
        if prop.get("type") == "string" and "enum" not in prop:
            assert 0 < prop["maxLength"] <= 1000, name
        if prop.get("type") == "array":
            assert prop["maxItems"] > 0, name
            assert prop["items"].get("type") == "object" or prop["items"]["maxLength"] > 0, name
    strict = response_format_for(Rung.JSON_SCHEMA, kind.value, schema, strict_subset=True)
    assert strict is not None and "maxLength" not in json.dumps(strict) and "maxItems" not in json.dumps(strict)


def test_the_paper_evidence_prompt_keeps_the_blocks_and_asks_for_the_steps() -> None:
    prompt = paper_evidence_prompt(CLAIM, SentenceLabels(SENTENCES))
    system, user = (m.content for m in prompt.messages)
    assert system.startswith("Task: evidence selection.")
    for field in ('"sub_claims"', '"overview"', '"relevant"', '"tests"', '"selected"', '"summary"'):
        assert field in system
    found = _blocks(user)
    assert found["excerpt 1"].splitlines() == ["[S1] Acme Corp opened a plant in 2019.", "[S2] It stands in Lyon."]
    assert found["claim"] == CLAIM.text and found["sub-claims"] == "- Acme Corp opened a plant."
    assert prompt.answer_schema is not None and prompt.answer_schema["properties"]["selected"]["maxItems"] == 3


def test_the_paper_verdict_prompt_labels_sentences_and_no_kind_of_excerpt() -> None:
    excerpts = [
        Excerpt(node_id="r", text="Acme Corp opened a plant. It stands in Lyon.", is_root=True),
        Excerpt(node_id="i", text="The report says Acme is in France.", is_root=False),
    ]
    user = paper_verdict_prompt(CLAIM, excerpts).messages[1].content
    found = _blocks(user)
    assert found["excerpt 1"] == "[S1] Acme Corp opened a plant.\n[S2] It stands in Lyon."
    assert found["excerpt 2"] == "[S3] The report says Acme is in France."
    assert "type=" not in user and "source text" not in user and "summary" not in user


def test_the_no_relevant_sentences_exits_select_nothing_and_flag_the_claim() -> None:
    listed = {"overview": "none", "relevant": False, "selected": ["S1"], "summary": "x"}
    assert parse_paper_evidence(json.dumps(listed)).selected == []
    assert parse_paper_evidence(json.dumps({"relevant": False})).selected == []  # no selection needed
    kept = {"relevant": True, "selected": "S1-S2", "tests": [{"sentences": "S1", "strong": True}], "summary": "y"}
    assert parse_paper_evidence(json.dumps(kept)).selected == ["S1-S2"]
    exit_ = parse_paper_verdict(json.dumps({"relevant": False, "verdict": "Fully Supported"}))
    assert exit_.verdict == Verdict.NOT_FULLY_SUPPORTED.value and exit_.reasoning == NO_RELEVANT_SENTENCES
    assert parse_paper_verdict(json.dumps({"relevant": False})).verdict == Verdict.NOT_FULLY_SUPPORTED.value


def test_the_profile_defaults_to_paper_for_an_endpoint_and_compact_for_a_local_model(tmp_path: Path) -> None:
    endpoint = resolve_llm_config(tmp_path, {"model": "gpt-4o"}, environ={})
    assert endpoint.prompt_profile is PromptProfile.PAPER
    assert LLMConfig(model="m", local_model="smollm2").prompt_profile is PromptProfile.COMPACT
    from_env = resolve_llm_config(tmp_path, {"model": "m"}, environ={"VERITRAIL_PROMPTS": "compact"})
    assert from_env.prompt_profile is PromptProfile.COMPACT
    (tmp_path / "veritrail.toml").write_text('[llm]\nmodel = "m"\nprompts = "compact"\n')
    assert resolve_llm_config(tmp_path, {}, environ={}).prompt_profile is PromptProfile.COMPACT
    # The paper's recursive decomposition comes with its prompts, unless a depth is given.
    paper = prepare_verifier(VerifierSpec(name="llm", root=tmp_path, model="m", prompts=PromptProfile.PAPER))
    assert paper.decomposition_depth is None and PROFILES[PromptProfile.COMPACT].decomposition_depth == 1


@pytest.mark.parametrize("profile", list(PromptProfile))
async def test_both_profiles_tell_the_model_that_evidence_may_be_in_another_language(
    fake_openai: FakeOpenAI, profile: PromptProfile
) -> None:
    """The method is language-agnostic: the request the server receives says so, for Evidence
    Selection and the verdict alike (issue 37)."""
    config = LLMConfig(model="m", base_url=fake_openai.url, api_key="k", prompts=profile)
    dag = DAG.from_records(
        [
            {"id": "tu", "stage": 1, "text": "Acme Corp a ouvert une usine à Lyon."},
            {"id": "final", "stage": 2, "text": "Acme Corp opened a plant in Lyon."},
        ],
        [("tu", "final")],
    )
    verifier = LLMVerifier(config)
    await VeriTrail(verifier).averify(dag, Claim(id="c", text="Acme Corp opened a plant in Lyon."))
    await verifier.aclose()
    asked = {view.task: view for view in fake_openai.views()}
    for task in ("evidence selection", "verdict generation"):
        assert " ".join(LANGUAGE_RULE.split()) in " ".join(asked[task].system.split()), (profile, task)
        assert asked[task].paper is (profile is PromptProfile.PAPER)


def test_an_audit_records_its_profile_and_takes_the_option(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    from samples import llm_sample

    project = llm_sample(tmp_path / "carol", fake_openai.url)
    default = CliRunner().invoke(cli.app, ["audit", str(project), "--verifier", "llm"])
    assert default.exit_code == 0, default.output
    report = project / "veritrail" / "queries" / "handwritten-1" / "report.json"
    settings = json.loads(report.read_text())
    assert settings["verifier_settings"]["llm"]["prompts"] == "paper"
    assert settings["config"]["decomposition_depth"] is None  # the paper's recursion
    assert any(PromptView.of(r.body).paper for r in fake_openai.requests)

    fake_openai.reset()
    compact = CliRunner().invoke(cli.app, ["audit", str(project), "--verifier", "llm", "--prompts", "compact"])
    assert compact.exit_code == 0, compact.output
    settings = json.loads(report.read_text())
    assert settings["verifier_settings"]["llm"]["prompts"] == "compact"
    assert settings["config"]["decomposition_depth"] == 1
    assert fake_openai.requests and not any(PromptView.of(r.body).paper for r in fake_openai.requests)
    refused = CliRunner().invoke(cli.app, ["audit", str(project), "--prompts", "paper"])
    assert refused.exit_code == 2 and "--prompts applies to --verifier llm only" in refused.output
