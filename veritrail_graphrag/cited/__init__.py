"""Cited answers (METHOD.md section 7): an answer with bracket citations checked claim by claim.

The spans are the roots of a one-step process, the answer its terminal and each claim's
citations its edges. `budget` holds the pure math and the status rules, `belief` reads P(YES)
from log-probabilities or samples, `claims` cuts the answer into cited claims, `spans` reads the
evidence, `non_evidence` removes what asserts nothing from it, `context` decides what a claim's
questions show (or that none is asked), `prompts` and `probe` ask the model, `check` puts it
together, `report` is its shape, `inputs` is what the command line checks.
"""
