"""Talking to language models through any OpenAI-compatible endpoint.

One module per concern, as graphrag-llm does: `config` (where settings come from), `client`
(retries, limits, cache, usage around the openai SDK), `completion` (an answer's text and
log-probabilities), `cache` (SQLite), `usage` (tokens and cost), `estimate` (dry-run cost),
`prompts`/`labels`/`schemas`/`parsing` (what we ask and how we read the answer). The verifier
that uses them is `veritrail_graphrag.verifiers.llm`.
"""

from veritrail_graphrag.llm.config import LLMConfig, resolve_llm_config
from veritrail_graphrag.llm.estimate import CallVolume, CostEstimate, estimate_cost
from veritrail_graphrag.llm.usage import ModelPrice, Usage, UsageLedger, usage_scope

__all__ = [
    "CallVolume",
    "CostEstimate",
    "LLMConfig",
    "ModelPrice",
    "Usage",
    "UsageLedger",
    "estimate_cost",
    "resolve_llm_config",
    "usage_scope",
]
