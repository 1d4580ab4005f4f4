"""`detect_hallucination` against the fake OpenAI server: statuses, context modes, budgets, fallbacks."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from cited_oracle import ANSWER, RULES, SPANS, entailment_oracle, rule, slow_for
from fake_openai import FakeOpenAI, PromptView

from veritrail_graphrag import CitedCheckReport, adetect_hallucination, detect_hallucination
from veritrail_graphrag.cited.budget import budget_gap, kl_bits
from veritrail_graphrag.cited.prompts import WITHHELD
from veritrail_graphrag.errors import EndpointError, LLMConfigError
from veritrail_graphrag.llm.config import LLMConfig

pytest_plugins = ["fake_openai"]


def config(server: FakeOpenAI, tmp_path: Path | None = None, **changes: Any) -> LLMConfig:
    settings: dict[str, Any] = {
        "model": "gpt-4o-mini",
        "base_url": server.url,
        "api_key": "test-key",
        "timeout": 5.0,
        "max_attempts": 2,
        "backoff_base": 0.0,
        "cache": tmp_path is not None,
        "cache_path": tmp_path / "cache.sqlite" if tmp_path else None,
    }
    return LLMConfig(**(settings | changes))


async def check(server: FakeOpenAI, tmp_path: Path | None = None, **options: Any) -> CitedCheckReport:
    return await adetect_hallucination(ANSWER, SPANS, llm=config(server, tmp_path), **options)


def statuses(report: CitedCheckReport) -> list[str]:
    return [d.status.value for d in report.details]


async def test_every_status_on_the_hand_made_example(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = entailment_oracle()
    report = await check(fake_openai, require_citations=True)
    assert statuses(report) == [
        "supported",  # S0 says it
        "contradicted",  # S1 says 15 minutes
        "not_entailed",  # cites S1, the support is in S2 (not shown in "cited" mode)
        "no_evidence_text",  # S3 is a question: no evidence, no call
        "prior_leak",  # the model believes it without its evidence: reported, not flagged
        "short_of_target",  # S1 raises belief to 0.7, short of 0.95
        "missing_citations",  # cites nothing while citations are required: no call
        "unknown_citations",  # cites S9, which does not exist: no call
    ]
    assert [d.flagged for d in report.details] == [False, True, True, True, False, True, True, True]
    assert report.flagged and report.under_budget
    s = report.summary
    assert (s.claims_scored, s.flagged_claims, s.flagged_idxs) == (8, 6, [1, 2, 3, 5, 6, 7])
    assert (s.units, s.verifier_model, s.backend) == ("bits", "gpt-4o-mini", "openai")
    unknown = report.details[7]
    assert unknown.cites == ["S9"] and unknown.unknown_cites == ["S9"] and unknown.has_any_citations
    uncited = report.details[6]
    assert uncited.missing_citations and not uncited.has_any_citations and uncited.cites == []
    question = report.details[3]
    assert question.cites_without_text == ["S3"] and question.post_yes is None
    assert s.non_evidence_removed == {"S3": ["How long do refresh tokens last?"]}
    assert fake_openai.count == 10  # 5 claims x 2 questions; the other 3 need no call


# Bits of the claims that are still asked, as the check computed them before the statuses above
# were added (min, max of required, observed and budget_gap): none of them moved.
BITS_BEFORE = {
    0: [(6.025991, 37.583583), (6.369829, 38.924434), (-1.340851, -0.343837)],
    1: [(6.025991, 37.583583), (0.005646, 0.655822), (6.020345, 36.927761)],
    2: [(6.025991, 37.583583), (0.0, 0.317838), (6.011492, 37.583583)],
    4: [(0.023485, 0.023485), (0.0, 0.0), (0.023485, 0.023485)],
    5: [(6.025991, 37.583583), (3.773758, 27.022905), (2.252233, 10.560678)],
}


async def test_the_bits_of_the_scored_claims_are_unchanged(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = entailment_oracle()
    report = await check(fake_openai, require_citations=True)
    for idx, expected in BITS_BEFORE.items():
        d = report.details[idx]
        got = [(round(b.min, 6), round(b.max, 6)) for b in (d.required, d.observed, d.budget_gap)]
        assert got == expected, idx


async def test_nats_scale_every_amount_and_the_minimum_gain(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = entailment_oracle()
    bits = (await check(fake_openai, max_claims=1)).details[0]
    report = await check(fake_openai, max_claims=1, units="nats")
    nats = report.details[0]
    assert report.summary.units == "nats" and nats.budget_gap.units == "nats"
    assert nats.budget_gap.min == pytest.approx(bits.budget_gap.min * math.log(2))
    assert nats.log_odds_gain.min == pytest.approx(bits.log_odds_gain.min * math.log(2))
    # the evidence adds at least logit(0.98) - logit(0.01) = 10.21 nats to the odds of YES
    assert nats.log_odds_gain.min == pytest.approx(math.log(49) + math.log(99))
    strict = await check(fake_openai, max_claims=1, units="nats", min_log_odds_gain=11.0)
    assert strict.details[0].status.value == "insufficient_evidence_gain" and strict.details[0].flagged
    assert (await check(fake_openai, max_claims=1, min_log_odds_gain=11.0)).details[0].status.value == "supported"


async def test_budget_numbers_follow_the_logprobs(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = entailment_oracle()
    supported = (await check(fake_openai)).details[0]
    # posterior: YES 0.97 + " YES" 0.01; prior: YES absent from the top 3, which leave 0.01 over
    assert (supported.post_yes.min, supported.post_yes.max) == (pytest.approx(0.98), pytest.approx(0.98))
    assert (supported.prior_yes.min, supported.prior_yes.max) == (0.0, pytest.approx(0.01))
    assert supported.required.min == pytest.approx(kl_bits(0.95, 0.01))
    assert supported.required.max == pytest.approx(kl_bits(0.95, 0.0))
    assert supported.budget_gap == budget_gap(0.95, supported.post_yes, supported.prior_yes)
    assert supported.budget_gap.max < 0 and supported.required.units == "bits"
    contradicted = (await check(fake_openai)).details[1]
    assert contradicted.post_no.min == pytest.approx(0.92)
    assert contradicted.post_yes.max == pytest.approx(0.02)


async def test_context_mode_all_turns_a_mis_citation_into_a_prior_leak(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = entailment_oracle()
    report = await check(fake_openai, context_mode="all")
    mis_cited = report.details[2]
    # All spans are shown; withholding the cited S1 leaves S2 visible, so the claim did not need S1.
    assert mis_cited.status.value == "prior_leak" and not mis_cited.flagged
    assert report.summary.context_mode == "all"
    views = [v for v in fake_openai.views() if v.claim == "Refresh tokens are stored in an HttpOnly cookie."]
    shown = sorted(sorted(name for name in v.blocks if name.startswith("span ")) for v in views)
    assert shown == [["span S0", "span S1", "span S2"]] * 2  # S3, a question, is never shown
    assert sorted(v.blocks["span S1"] == WITHHELD for v in views) == [False, True]
    flagged_leak = await check(fake_openai, context_mode="all", flag_prior_leak=True)
    assert flagged_leak.details[2].flagged and flagged_leak.details[4].flagged


async def test_cited_mode_shows_only_cited_spans_and_withholds_them_for_the_prior(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = entailment_oracle()
    await check(fake_openai)
    views = [v for v in fake_openai.views() if v.claim == "Auth validates the token issuer against JWT_ISSUER."]
    assert sorted(v.blocks["span S0"] for v in views) == sorted([SPANS[0]["text"], WITHHELD])
    assert all(not any(n.startswith("span S1") for n in v.blocks) for v in views)
    assert all(r.body["logprobs"] is True and r.body["top_logprobs"] == 10 for r in fake_openai.requests)
    assert all(r.body["temperature"] == 0 and "response_format" not in r.body for r in fake_openai.requests)


def _common(a: str, b: str) -> str:
    return a[: next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))]


async def test_prompts_share_their_start_for_the_endpoints_prompt_cache(fake_openai: FakeOpenAI) -> None:
    """Instructions, then evidence, the claim last, one data-block tag per check: a claim's prior
    differs from its posterior only from the cited span on, and claims citing the same span share
    their posterior up to the claim."""
    fake_openai.responder = entailment_oracle()
    fake_openai.prompt_cache = True
    report = await check(fake_openai, include_prompts=True)
    first = report.details[0].prompts
    assert first is not None
    shared = _common(first.posterior, first.prior)
    assert shared.endswith('name="span S0">\n') and first.prior.endswith(
        f"{WITHHELD}\n" + first.posterior.split(SPANS[0]["text"] + "\n", 1)[1]
    )
    one, other = report.details[1].prompts, report.details[5].prompts  # both cite S1 alone
    assert one is not None and other is not None
    assert 'name="claim">\nAccess tokens ' in _common(one.posterior, other.posterior)
    assert report.details[2].prompts is not None and report.details[3].prompts is None  # no call, no prompt
    usage = report.summary.usage
    assert usage is not None and 0 < usage.cached_input_tokens < usage.input_tokens
    # in context mode "all" the spans both questions show come first, the withheld ones last
    fake_openai.reset()
    await check(fake_openai, context_mode="all", max_claims=1)
    posterior, prior = (v.user for v in fake_openai.views())
    names = [name for name in PromptView.of(fake_openai.requests[0].body).blocks if name.startswith("span")]
    assert names == ["span S1", "span S2", "span S0"]
    assert len(_common(posterior, prior)) > posterior.index('name="span S0"') - 40


async def test_calls_and_cache_hits_on_a_re_run(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = entailment_oracle()
    first = await check(fake_openai, tmp_path)
    # 8 claims x 2 questions, except: the uncited one and the one citing only a question need
    # no call, and the one citing only an unknown span S9 neither
    assert fake_openai.count == 10
    assert first.summary.usage.calls == 10 and first.summary.usage.cached_calls == 0
    second = await check(fake_openai, tmp_path)
    assert fake_openai.count == 10
    assert second.summary.usage.calls == 0 and second.summary.usage.cached_calls == 10
    assert second.details == first.details


async def test_max_claims_checks_the_first_claims_only(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = entailment_oracle()
    report = await check(fake_openai, max_claims=3)
    assert [d.idx for d in report.details] == [0, 1, 2]
    assert report.summary.claims_in_answer == 8 and report.summary.claims_not_checked == 5
    assert fake_openai.count == 6
    # claim 0 is supported and claims 1, 2 are flagged; the five not checked flag the report alone
    first = await check(fake_openai, max_claims=1)
    assert not first.details[0].flagged and first.summary.flagged_idxs == []
    assert first.flagged and first.under_budget and first.summary.claims_not_checked == 7


async def test_timeout_reports_the_unfinished_claims(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = slow_for("Access tokens are short-lived.", entailment_oracle(), fake_openai._stopping)
    report = await check(fake_openai, timeout_s=3.0)
    slow = report.details[5]
    assert slow.status.value == "timed_out" and slow.flagged and slow.post_yes is None
    assert "timeout_s=3" in slow.note
    assert report.summary.unverified_idxs == [5]
    assert report.summary.claims_scored == 7
    assert statuses(report)[0] == "supported"


async def test_a_first_claim_past_the_deadline_leaves_the_others_timed_out(fake_openai: FakeOpenAI) -> None:
    """The first claim is asked alone (an endpoint that cannot be used then fails once, not once
    per claim); when it alone outlasts `timeout_s`, the claims that need a call all time out."""
    claim = "Auth validates the token issuer against JWT_ISSUER."
    fake_openai.responder = slow_for(claim, entailment_oracle(), fake_openai._stopping)
    report = await check(fake_openai, timeout_s=2.0)
    assert report.summary.unverified_idxs == [0, 1, 2, 4, 5]
    assert statuses(report)[3] == "no_evidence_text" and fake_openai.count == 2


async def test_sampling_when_the_endpoint_gives_no_logprobs(tmp_path: Path) -> None:
    with FakeOpenAI(entailment_oracle(certain=True), logprobs=False) as server:
        report = await check(server, tmp_path, max_claims=2)
        assert report.summary.backend == "openai+sampling"
        assert "no log-probabilities" in report.summary.probability
        supported, contradicted = report.details
        # 80 unanimous YES samples: Wilson 95% lower bound 80 / (80 + 1.96^2) = 0.954
        assert supported.status.value == "supported"
        assert supported.post_yes.min == pytest.approx(80 / (80 + 1.959964**2), abs=1e-4)
        # the prior stops after one round of 10: its interval is already below the target
        assert supported.prior_yes.max == pytest.approx(0.277533, abs=1e-6)
        assert contradicted.status.value == "contradicted"
        sampled = [r for r in server.requests if r.body["temperature"] == 1.0]
        # 2 probes answered with logprobs first (they came back without), then samples:
        # supported 80 + 10, contradicted 10 + 10
        assert len(sampled) == 110
        count = server.count
        again = await check(server, tmp_path, max_claims=2)
        assert server.count == count and again.details == report.details


async def test_sampling_with_few_samples_is_ambiguous(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = entailment_oracle(certain=True)
    report = await check(fake_openai, max_claims=1, probability="sampling", samples=10)
    [claim] = report.details
    # 10 of 10 YES: Wilson 95% [0.72, 1] holds the target, so the check cannot decide
    assert claim.status.value == "ambiguous_verifier" and claim.flagged
    assert claim.post_yes.min == pytest.approx(0.722467, abs=1e-6)
    assert report.summary.backend == "openai+sampling"
    assert all(r.body.get("logprobs") is None for r in fake_openai.requests)


async def test_an_endpoint_that_refuses_logprobs_falls_back_to_sampling(tmp_path: Path) -> None:
    with FakeOpenAI(entailment_oracle(certain=True), reject_logprobs=True) as server:
        report = await check(server, max_claims=1, samples=20)
        assert report.summary.backend == "openai+sampling"
        assert report.details[0].status.value == "ambiguous_verifier"
        refused = [r for r in server.requests if r.body.get("logprobs")]
        assert len(refused) <= 2  # only the claim's first two questions (sent together) ask for them


async def test_logprobs_only_refuses_an_endpoint_without_them() -> None:
    with FakeOpenAI(entailment_oracle(), logprobs=False) as server:
        report = await check(server, max_claims=1, probability="logprobs")
    [claim] = report.details
    assert claim.status.value == "error" and claim.flagged and "gives no log-probabilities" in claim.note
    assert report.summary.unverified_idxs == [0]


async def test_an_answer_that_is_not_a_label_is_asked_again(fake_openai: FakeOpenAI) -> None:
    oracle = entailment_oracle()
    chatty = ["The claim looks right to me."]

    def chatty_once(request: dict[str, Any]) -> Any:
        return chatty.pop() if chatty else oracle(request)

    fake_openai.responder = chatty_once
    report = await check(fake_openai, max_claims=1)
    assert report.details[0].status.value == "supported"
    assert report.summary.usage.unparsed_answers == 1 and fake_openai.count == 3
    [repair] = [r.body["messages"] for r in fake_openai.requests if len(r.body["messages"]) == 4]
    assert repair[2]["content"] == "The claim looks right to me."
    assert "exactly one word: YES, NO or UNSURE" in repair[3]["content"]


async def test_an_unusable_endpoint_raises_one_clear_error(fake_openai: FakeOpenAI) -> None:
    cfg = config(fake_openai).model_copy(update={"base_url": fake_openai.url.replace("/v1", "/nowhere")})
    with pytest.raises(EndpointError, match=r"nowhere \(model 'gpt-4o-mini'\) refused .*no such model or deployment"):
        await adetect_hallucination(ANSWER, SPANS, llm=cfg)


def test_the_seed_example_call_works_as_written(fake_openai: FakeOpenAI, tmp_path: Path, monkeypatch: Any) -> None:
    fake_openai.responder = entailment_oracle({"Auth validates issuer via JWT_ISSUER.": rule(support="S0")})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("VERITRAIL_BASE_URL", fake_openai.url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("VERITRAIL_CACHE_PATH", str(tmp_path / "cache.sqlite"))
    report = detect_hallucination(
        answer="Auth validates issuer via JWT_ISSUER. [S0]",
        spans=[{"sid": "S0", "text": "..."}],
        require_citations=True,
        context_mode="cited",
        default_target=0.95,
    )
    shape = json.loads(report.model_dump_json())
    assert list(shape)[:4] == ["flagged", "under_budget", "summary", "details"]
    assert {"claims_scored", "flagged_claims", "flagged_idxs", "units", "verifier_model", "backend"} <= set(
        shape["summary"]
    )
    detail = shape["details"][0]
    for key in ("idx", "claim", "cites", "flagged", "required", "observed", "budget_gap", "prior_yes", "post_yes",
                "has_any_citations", "missing_citations"):  # fmt: skip
        assert key in detail
    assert set(detail["required"]) == {"min", "max", "units"} and detail["required"]["units"] == "bits"
    assert shape["summary"]["verifier_model"] == "gpt-4o-mini" and detail["cites"] == ["S0"]
    assert shape["flagged"] is False and detail["post_yes"]["min"] == pytest.approx(0.98)
    assert math.isfinite(detail["required"]["max"])


async def test_the_sync_call_refuses_a_running_loop() -> None:
    with pytest.raises(RuntimeError, match="await adetect_hallucination"):
        detect_hallucination("x [S0]", [{"sid": "S0", "text": "x"}], verifier="lexical")


async def test_offline_check_reports_citations_and_no_bits() -> None:
    report = await adetect_hallucination(ANSWER, SPANS, verifier="lexical", require_citations=True)
    assert report.summary.backend == "lexical" and report.summary.usage is None
    assert all(d.required is None and d.post_yes is None for d in report.details)
    by_claim = {d.claim: d for d in report.details}
    assert by_claim["Auth validates the token issuer against JWT_ISSUER."].status.value == "unscored"
    mis = by_claim["Refresh tokens are stored in an HttpOnly cookie."]
    assert mis.status.value == "mis_cited" and mis.cites_without_evidence == ["S1"] and mis.flagged
    unknown = by_claim["Passwords are hashed with bcrypt."]
    assert unknown.status.value == "unknown_citations" and unknown.unknown_cites == ["S9"]
    assert by_claim["Refresh tokens last 30 days."].status.value == "no_evidence_text"
    assert by_claim["The service is written in Go."].status.value == "missing_citations"
    assert "bits need a model" in mis.note


def test_rules_cover_every_claim_of_the_example() -> None:
    from veritrail_graphrag.cited.claims import split_cited_claims

    assert [c.text for c in split_cited_claims(ANSWER)] == list(RULES)


async def test_claims_from_a_list_or_by_line_and_a_custom_citation_pattern(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = entailment_oracle()
    llm = config(fake_openai)
    claims = ["Auth validates the token issuer against JWT_ISSUER. [S0]", "Access tokens are short-lived [S1]."]
    listed = await adetect_hallucination("", SPANS, llm=llm, claim_split=claims)
    assert [d.status.value for d in listed.details] == ["supported", "short_of_target"]
    assert listed.summary.claim_split == "given"
    with pytest.raises(ValueError, match="answer must be empty"):
        await adetect_hallucination(ANSWER, SPANS, llm=llm, claim_split=claims)
    lines = "Auth validates the token issuer against JWT_ISSUER <S0>\nAccess tokens are short-lived <S1>"
    by_line = await adetect_hallucination(lines, SPANS, llm=llm, claim_split="lines", citation_regex=r"<(?P<id>S\d+)>")
    assert [(d.claim, d.cites) for d in by_line.details] == [
        ("Auth validates the token issuer against JWT_ISSUER", ["S0"]),
        ("Access tokens are short-lived", ["S1"]),
    ]
    assert by_line.summary.claim_split == "lines"


async def test_without_a_key_the_error_names_the_offline_check(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("OPENAI_API_KEY", "VERITRAIL_API_KEY", "VERITRAIL_BASE_URL", "VERITRAIL_MODEL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(LLMConfigError, match=r'no API key .*pass verifier="lexical"'):
        await adetect_hallucination(ANSWER, SPANS)


def test_the_manuals_first_example_runs_without_a_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "cited.md").read_text(encoding="utf-8")
    example = page.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    for name in ("OPENAI_API_KEY", "VERITRAIL_API_KEY", "VERITRAIL_BASE_URL", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    namespace: dict[str, object] = {}
    exec(compile(example, "docs/cited.md", "exec"), namespace)
    report = namespace["report"]
    assert isinstance(report, CitedCheckReport)
    assert (report.flagged, report.details[0].status.value) == (False, "unscored")
    assert "# False, Status.UNSCORED" in example
