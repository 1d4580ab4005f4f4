"""The offline lexical verifier: `verifier` (the `Verifier`), `select` (BM25 evidence selection),
`judge` (coverage-based verdicts), `decompose` (rule-based sub-claims), `text` (terms, stems,
numbers and negation), `antonyms` and `config`."""

from veritrail_graphrag.verifiers.lexical.config import LexicalConfig
from veritrail_graphrag.verifiers.lexical.verifier import LexicalVerifier

__all__ = ["LexicalConfig", "LexicalVerifier"]
