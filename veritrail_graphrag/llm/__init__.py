"""Talking to language models through any OpenAI-compatible endpoint: transport only.

One module per concern, as graphrag-llm does: `config` (where settings come from), `client`
(retries, limits, cache, usage around the openai SDK), `request` (what one call sends),
`completion` (an answer's text and log-probabilities), `json_text` (the JSON object in a model's
text, however it was written), `structured` (the answer-format ladder), `cache` (SQLite), `usage`
(tokens and cost), `local_server` (a GGUF model served for the run). What is asked and how
answers are read belongs to the callers: the LLM verifier's conversation is
`veritrail_graphrag.verifiers.llm`, the cited-answer check's is `veritrail_graphrag.cited`.
"""

from veritrail_graphrag.llm.config import LLMConfig, resolve_llm_config
from veritrail_graphrag.llm.usage import ModelPrice, Usage, UsageLedger, usage_scope

__all__ = [
    "LLMConfig",
    "ModelPrice",
    "Usage",
    "UsageLedger",
    "resolve_llm_config",
    "usage_scope",
]
