"""Token and cost accounting, attribution to claims, and the dry-run estimate."""

from __future__ import annotations

import asyncio
import json

import pytest

from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.llm.usage import UNATTRIBUTED, ModelPrice, UsageLedger, UsageReport, price_for, usage_scope
from veritrail_graphrag.verifiers.llm.estimate import CallVolume, estimate_cost


def test_price_lookup() -> None:
    assert price_for("gpt-4o") == ModelPrice(input_per_million=2.5, output_per_million=10.0)
    assert price_for("gpt-4o-2024-08-06") == price_for("gpt-4o")
    assert price_for("gpt-4o-mini-2024-07-18") == price_for("gpt-4o-mini")
    assert price_for("azure/GPT-4o") == price_for("gpt-4o")
    assert price_for("gpt-4o2") is None
    assert price_for("my-local-llama") is None
    custom = {"my-local-llama": ModelPrice(input_per_million=0, output_per_million=0)}
    assert price_for("my-local-llama", custom) is not None


def test_cost_per_call_and_unknown_model_is_unknown_not_free() -> None:
    ledger = UsageLedger()
    ledger.record(CallKind.VERDICT, "gpt-4o", usage_key="c1", input_tokens=1_000_000, output_tokens=100_000)
    assert ledger.total().cost_usd == pytest.approx(3.5)
    ledger.record(CallKind.VERDICT, "mystery-model", usage_key="c2", input_tokens=10, output_tokens=10)
    assert ledger.total().cost_usd is None
    assert ledger.by_key()["c1"].cost_usd == pytest.approx(3.5)
    assert ledger.by_key()["c2"].cost_usd is None


def test_the_report_model_writes_and_reads_what_reports_held_as_a_dict() -> None:
    ledger = UsageLedger()
    ledger.record(CallKind.VERDICT, "gpt-4o", usage_key="c1", input_tokens=1000, output_tokens=200)
    ledger.record(CallKind.DECOMPOSITION, "gpt-4o", usage_key="c2", cached=True)
    as_dict = {  # what report.json held under "usage" before it was a model
        "total": ledger.total().model_dump(),
        "per_claim": {k: u.model_dump() for k, u in ledger.by_key().items()},
        "by_kind": {k: u.model_dump() for k, u in ledger.by_kind().items()},
    }
    report = ledger.report()
    written = json.loads(report.model_dump_json())
    assert written.pop("calls_by_kind") == {"verdict": 1, "decomposition": 0, "repair": 0, "resample": 0}
    assert written == json.loads(json.dumps(as_dict))
    assert UsageReport.model_validate(json.loads(json.dumps(as_dict))) == report
    assert UsageReport.model_validate_json(report.model_dump_json()) == report
    assert report.total.total_tokens == 1200 and report.per_claim["c2"].cached_calls == 1


def test_cached_calls_cost_nothing_and_are_counted_apart() -> None:
    ledger = UsageLedger()
    ledger.record(CallKind.VERDICT, "mystery-model", usage_key="c1", cached=True)
    total = ledger.total()
    assert (total.calls, total.cached_calls, total.total_tokens, total.cost_usd) == (0, 1, 0, 0.0)


async def test_attribution_by_scope_explicit_key_and_links() -> None:
    ledger = UsageLedger()

    async def work(claim_id: str) -> None:
        with usage_scope(claim_id):
            await asyncio.sleep(0)
            ledger.record(CallKind.EVIDENCE_SELECTION, "gpt-4o", usage_key=None, input_tokens=5)

    await asyncio.gather(work("c1"), work("c2"))
    ledger.record(CallKind.VERDICT, "gpt-4o", usage_key="c1", input_tokens=7)
    ledger.record(CallKind.DECOMPOSITION, "gpt-4o", usage_key=None, subject="Claim three.", input_tokens=2)
    ledger.record(CallKind.DECOMPOSITION, "gpt-4o", usage_key=None, subject="never linked", input_tokens=1)
    ledger.link("Claim three.", "c3")
    by_key = ledger.by_key()
    assert {k: v.input_tokens for k, v in by_key.items()} == {"c1": 12, "c2": 5, "c3": 2, UNATTRIBUTED: 1}
    assert ledger.by_kind()["decomposition"].calls == 2


def test_estimate_scales_with_calls_text_and_samples() -> None:
    volumes = {
        "evidence_selection": CallVolume(calls=10, chars=40_000),
        CallKind.VERDICT: CallVolume(calls=4, chars=8_000),
        CallKind.DECOMPOSITION: CallVolume(calls=2, chars=200),
    }
    one = estimate_cost(volumes, "gpt-4o")
    three = estimate_cost(volumes, "gpt-4o", samples=3)
    kinds = {k.kind: k for k in three.kinds}
    assert kinds[CallKind.EVIDENCE_SELECTION].calls == 30 and kinds[CallKind.DECOMPOSITION].calls == 2
    assert three.input_tokens > 2.5 * one.input_tokens - 2 * 1000
    assert one.cost_usd is not None and 0 < one.cost_usd < three.cost_usd
    assert one.input_tokens > 48_000 / 4
    assert estimate_cost(volumes, "mystery-model").cost_usd is None
