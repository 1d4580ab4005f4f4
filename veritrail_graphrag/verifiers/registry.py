"""Verifiers by name, for the CLI. Heavy backends are imported only when asked for."""

from __future__ import annotations

from veritrail_graphrag.verifiers.base import Verifier

VERIFIERS = ("lexical",)


def make_verifier(name: str) -> Verifier:
    if name == "lexical":
        from veritrail_graphrag.verifiers.lexical import LexicalVerifier

        return LexicalVerifier()
    raise ValueError(f"unknown verifier {name!r}; choose one of: {', '.join(VERIFIERS)}")
