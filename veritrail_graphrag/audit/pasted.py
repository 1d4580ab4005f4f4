"""Where a pasted answer's unsupported claim was introduced.

An answer saved from `graphrag query`'s output (`--answer` without `--map-answers`) is wired
straight to the records it cites: the map answers (global search) or the context window it was
written from are lost. Its claims' first iteration therefore reads records, which share words
with many a claim they do not hold, and an offline verifier can find "support" there for a
sentence the answer made up; the traversal then blames the records' stage (4), where a captured
run of the same search blames the answer. The verifier's own finding settles it: a word of the
claim that the source does not support (the final verdict's gaps) and that none of the records
the claim's sentence cites holds was not in what the answer drew on, so the answer introduced it.
"""

from __future__ import annotations

from collections.abc import Sequence

from veritrail_graphrag.citations import SentenceCitations
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.models import Verdict
from veritrail_graphrag.report.model import unsupported_words


def blame_the_answer(result: ClaimResult, dag: DAG, sentences: Sequence[SentenceCitations]) -> ClaimResult:
    """`result`, blamed on its terminal's stage when one of its unsupported words is in none of the
    records its sentence cites (every record the answer cites, when the sentence cites none of the
    index's or ends its list in +more)."""
    stage = dag.stage(result.terminal)
    if result.verdict is not Verdict.NOT_FULLY_SUPPORTED or not result.error_stages or stage in result.error_stages:
        return result
    index = result.claim.sentence
    cited = sentences[index] if index is not None and index < len(sentences) else None
    own = cited is not None and bool(cited.nodes) and not cited.incomplete
    records = cited.nodes if cited is not None and own else dag.src(result.terminal)
    texts = [dag.node(n).text for n in records]
    absent = list(dict.fromkeys(g.text for g in unsupported_words(result) if not any(g.found_in(t) for t in texts)))
    if not absent:
        return result
    which = f"the records its sentence cites ({', '.join(records)})" if own else "the records the answer cites"
    verb = "is" if len(absent) == 1 else "are"
    note = f"{', '.join(repr(w) for w in absent)} {verb} in none of {which}: the answer introduced it"
    return result.model_copy(update={"error_stages": [stage], "error_note": note})
