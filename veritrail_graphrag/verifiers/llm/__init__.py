"""The LLM verifier and its conversation with the model: `prompts` (what each step asks),
`labels` (short sentence labels and reading them back), `schemas` (the bounded answer shapes),
`parsing` (reading answers, tolerant where the endpoint enforces no schema), `estimate` (what the
prompts would cost, for --dry-run) and `verifier` (the `Verifier` built from them). The transport
under it is `veritrail_graphrag.llm`.

Nothing is imported here, so that the dry run can price prompts without loading the openai SDK.
"""
