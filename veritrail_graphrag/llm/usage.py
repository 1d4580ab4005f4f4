"""Token and cost accounting: one record per model call (or cache hit), sums per claim and per run.

Tokens come from the API's `usage` when the endpoint reports it, else from chars/4 (flagged as
estimated: we ship no tokenizer, since tiktoken downloads its tables at run time). Of the prompt
tokens, those the endpoint served from its own prompt cache are counted apart when it says so
(`usage.prompt_tokens_details.cached_tokens`: OpenAI, vLLM, llama.cpp). Cost comes
from a small price table that users can extend in `veritrail.toml`; a model missing from it has
an unknown cost, never a cost of zero.

Attribution to a claim: an explicit `usage_key`, else the key set with `usage_scope(...)` (a
contextvar, so it follows asyncio tasks), else the claim the call served. Decomposition calls only
see a text, so the verifier links texts to claim ids once it learns them (`link`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from veritrail_graphrag.llm.kinds import CallKind

UNATTRIBUTED = "(unattributed)"
RetryReason = Literal["repair", "resample"]

current_usage_key: ContextVar[str | None] = ContextVar("veritrail_usage_key", default=None)


@contextmanager
def usage_scope(key: str) -> Iterator[None]:
    """Attribute every call made inside this block (and tasks it starts) to `key`, e.g. a claim id."""
    token = current_usage_key.set(key)
    try:
        yield
    finally:
        current_usage_key.reset(token)


class ModelPrice(BaseModel):
    """US dollars per million tokens."""

    model_config = ConfigDict(frozen=True)

    input_per_million: float = Field(ge=0)
    output_per_million: float = Field(ge=0)

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input_per_million + output_tokens * self.output_per_million) / 1e6


# List prices (USD per 1M tokens, standard tier) at the time of writing. Prices change: override
# or extend them under [llm.prices] in veritrail.toml rather than trusting this table blindly.
DEFAULT_PRICES: dict[str, ModelPrice] = {
    "gpt-4o": ModelPrice(input_per_million=2.50, output_per_million=10.00),
    "gpt-4o-mini": ModelPrice(input_per_million=0.15, output_per_million=0.60),
    "gpt-4.1": ModelPrice(input_per_million=2.00, output_per_million=8.00),
    "gpt-4.1-mini": ModelPrice(input_per_million=0.40, output_per_million=1.60),
    "gpt-4.1-nano": ModelPrice(input_per_million=0.10, output_per_million=0.40),
    "o3-mini": ModelPrice(input_per_million=1.10, output_per_million=4.40),
    "o4-mini": ModelPrice(input_per_million=1.10, output_per_million=4.40),
    "deepseek-chat": ModelPrice(input_per_million=0.27, output_per_million=1.10),
    "mistral-large": ModelPrice(input_per_million=2.00, output_per_million=6.00),
    "gemini-2.5-flash": ModelPrice(input_per_million=0.30, output_per_million=2.50),
}


def price_for(model: str, prices: Mapping[str, ModelPrice] | None = None) -> ModelPrice | None:
    """Exact name first, then the longest table entry the name starts with ("gpt-4o-2024-08-06")."""
    table = {k.lower(): v for k, v in {**DEFAULT_PRICES, **(prices or {})}.items()}
    name = model.lower().rsplit("/", 1)[-1]
    if name in table:
        return table[name]
    matches = [key for key in table if name.startswith(key + "-")]
    return table[max(matches, key=len)] if matches else None


def estimate_tokens(chars: int) -> int:
    return (chars + 3) // 4


class CallRecord(BaseModel):
    """One answered request, or one cache hit (`cached`: no tokens spent, no cost)."""

    kind: CallKind
    model: str
    usage_key: str | None = None
    subject: str | None = Field(default=None, description="text the call was about, for late attribution")
    input_tokens: int = 0
    cached_input_tokens: int = Field(default=0, description="prompt tokens the endpoint's prompt cache served")
    output_tokens: int = 0
    estimated: bool = False
    cached: bool = False
    parsed: bool = True
    truncated: bool = Field(default=False, description="cut at max_tokens (finish_reason 'length')")
    retry: RetryReason | None = Field(
        default=None, description="asked after an unreadable answer: a repair turn, or afresh with another seed"
    )
    cost_usd: float | None = 0.0


class Usage(BaseModel):
    """Sums over calls. `cost_usd` is None as soon as one paid call had an unknown price."""

    calls: int = 0
    cached_calls: int = 0
    unparsed_answers: int = 0
    truncated_answers: int = 0
    repair_calls: int = 0
    resample_calls: int = 0
    input_tokens: int = 0
    cached_input_tokens: int = Field(default=0, description="of input_tokens, those the endpoint's prompt cache served")
    output_tokens: int = 0
    estimated_tokens: bool = False
    cost_usd: float | None = 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def plus(self, record: CallRecord) -> Usage:
        cost = None if self.cost_usd is None or record.cost_usd is None else self.cost_usd + record.cost_usd
        return Usage(
            calls=self.calls + (0 if record.cached else 1),
            cached_calls=self.cached_calls + (1 if record.cached else 0),
            unparsed_answers=self.unparsed_answers + (0 if record.parsed else 1),
            truncated_answers=self.truncated_answers + int(record.truncated),
            repair_calls=self.repair_calls + int(record.retry == "repair"),
            resample_calls=self.resample_calls + int(record.retry == "resample"),
            input_tokens=self.input_tokens + record.input_tokens,
            cached_input_tokens=self.cached_input_tokens + record.cached_input_tokens,
            output_tokens=self.output_tokens + record.output_tokens,
            estimated_tokens=self.estimated_tokens or record.estimated,
            cost_usd=cost,
        )


class UsageReport(BaseModel):
    """A run's usage as the audit report keeps it: in total, per claim (or other key), per call kind."""

    total: Usage
    per_claim: dict[str, Usage]
    by_kind: dict[str, Usage]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def calls_by_kind(self) -> dict[str, int]:
        """Calls sent per kind, its repair and resample turns counted apart under those two names, so
        that one line says where the calls went; the figures add up to `total.calls`."""
        first = {kind: u.calls - u.repair_calls - u.resample_calls for kind, u in self.by_kind.items()}
        return {**first, "repair": self.total.repair_calls, "resample": self.total.resample_calls}


class UsageLedger:
    """All call records of a run. Thread-safe; cheap enough to keep every record."""

    def __init__(self, prices: Mapping[str, ModelPrice] | None = None) -> None:
        self.prices = dict(prices or {})
        self._records: list[CallRecord] = []
        self._links: dict[str, str] = {}
        self._lock = threading.Lock()

    @property
    def records(self) -> list[CallRecord]:
        with self._lock:
            return list(self._records)

    def record(
        self,
        kind: CallKind,
        model: str,
        *,
        usage_key: str | None,
        subject: str | None = None,
        input_tokens: int = 0,
        cached_input_tokens: int = 0,
        output_tokens: int = 0,
        estimated: bool = False,
        cached: bool = False,
        parsed: bool = True,
        truncated: bool = False,
        retry: RetryReason | None = None,
    ) -> CallRecord:
        if cached:
            cost: float | None = 0.0
        else:
            price = price_for(model, self.prices)
            cost = price.cost(input_tokens, output_tokens) if price else None
        record = CallRecord(
            kind=kind,
            model=model,
            usage_key=usage_key or current_usage_key.get(),
            subject=subject,
            input_tokens=input_tokens,
            cached_input_tokens=cached_input_tokens,
            output_tokens=output_tokens,
            estimated=estimated,
            cached=cached,
            parsed=parsed,
            truncated=truncated,
            retry=retry,
            cost_usd=cost,
        )
        with self._lock:
            self._records.append(record)
        return record

    def link(self, subject: str, key: str) -> None:
        """Calls about `subject` (e.g. a claim or sub-claim text) belong to `key` (its claim id)."""
        with self._lock:
            self._links.setdefault(subject, key)

    def key_of(self, subject: str) -> str | None:
        """The claim id that `subject` was linked to, if any."""
        with self._lock:
            return self._links.get(subject)

    def _key(self, record: CallRecord) -> str:
        if record.usage_key:
            return record.usage_key
        return self._links.get(record.subject or "", UNATTRIBUTED)

    def total(self) -> Usage:
        usage = Usage()
        for record in self.records:
            usage = usage.plus(record)
        return usage

    def by_key(self) -> dict[str, Usage]:
        """Usage per claim id (or whatever keys were used); calls never attributed are grouped."""
        with self._lock:
            records = list(self._records)
            keys = [self._key(r) for r in records]
        out: dict[str, Usage] = {}
        for key, record in zip(keys, records, strict=True):
            out[key] = out.get(key, Usage()).plus(record)
        return out

    def by_kind(self) -> dict[str, Usage]:
        out: dict[str, Usage] = {}
        for record in self.records:
            out[record.kind.value] = out.get(record.kind.value, Usage()).plus(record)
        return out

    def report(self) -> UsageReport:
        return UsageReport(total=self.total(), per_claim=self.by_key(), by_kind=self.by_kind())
