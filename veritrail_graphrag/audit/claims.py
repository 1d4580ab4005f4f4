"""Every source of claims: a claims file, claims typed on the command line, the verifier's own
extractor (the LLM's Claimify-style extraction), or the terminal's sentences."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from veritrail_graphrag import interruption
from veritrail_graphrag.adapters.graphrag.references import record_references
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.errors import ClaimsError, UsageError, excerpt, named, validation_problem
from veritrail_graphrag.files import read_text
from veritrail_graphrag.markers import strip_markers
from veritrail_graphrag.models import Claim, ClaimExtraction
from veritrail_graphrag.report.model import (
    HEADING_REASON,
    MIN_CLAIM_WORDS,
    SHORT_REASON,
    TABLE_REASON,
    ClaimFailure,
    SkippedSentence,
)
from veritrail_graphrag.sentences import HEADING, LIST_ITEM
from veritrail_graphrag.verifiers.base import Verifier
from veritrail_graphrag.verifiers.capabilities import ClaimExtractor


def clean_claim_text(sentence: str) -> str:
    """Drop list markers, markdown emphasis and citation markers (`[Data: Reports (..)]` and every
    other form `markers.py` knows): what a claim says, not what it cites."""
    text = strip_markers(sentence)
    text = LIST_ITEM.sub("", text)
    return text.replace("**", "").replace("__", "").strip()


def split_claims(dag: DAG, terminal: str) -> tuple[list[Claim], list[SkippedSentence]]:
    """One claim per sentence of the terminal; the sentences that are none (headings, table rows,
    fragments too short to check) come back with the reason, for the report to list.

    This is the no-LLM fallback; an LLM claim extractor (Claimify-style) gives better claims.
    """
    claims: list[Claim] = []
    skipped: list[SkippedSentence] = []
    for sentence in dag.sentences(terminal):
        text = clean_claim_text(sentence.text)
        if HEADING.match(sentence.text):
            reason = HEADING_REASON
        elif sentence.text.lstrip().startswith("|"):
            reason = TABLE_REASON
        elif len(re.findall(r"\w+", text)) < MIN_CLAIM_WORDS:
            reason = SHORT_REASON
        else:
            references = record_references(dag, text, terminal)
            claims.append(Claim(id=sentence.id, text=text, sentence=sentence.index, references=references))
            continue
        skipped.append(SkippedSentence(terminal=terminal, sentence=sentence.index, text=sentence.text, reason=reason))
    return claims, skipped


def sentence_claims(dag: DAG, terminal: str) -> list[Claim]:
    """One claim per sentence of the terminal that holds one (see `split_claims`)."""
    return split_claims(dag, terminal)[0]


def load_claims(path: Path) -> list[Claim]:
    """Read `[{"id", "text", "sub_claims"?}, ...]` or `{"claims": [...]}`, or JSONL of such objects."""
    raw = read_text(path, ClaimsError)
    lines: list[int] | None = None  # JSON lines: the file line of each entry, for the messages
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        texts = raw.splitlines()  # once: splitting again for each line made a long file quadratic
        lines = [number for number, line in enumerate(texts, 1) if line.strip()]
        data = []
        for number in lines:
            try:
                data.append(json.loads(texts[number - 1]))
            except json.JSONDecodeError as exc:
                raise ClaimsError(f"neither JSON nor JSON lines ({exc.msg})", file=path, line=number) from None
    if isinstance(data, dict):
        data = data.get("claims")
    if not isinstance(data, list) or not data:
        raise ClaimsError("expected a non-empty list of claims or {'claims': [...]}", file=path)
    claims: list[Claim] = []
    for position, entry in enumerate(data):
        try:
            claims.append(Claim.model_validate(entry))
        except ValidationError as exc:
            name = entry.get("id", f"#{position}") if isinstance(entry, dict) else f"#{position}"
            raise ClaimsError(
                f"claim {excerpt(name)} (entry {position}): {validation_problem(exc)}",
                file=path,
                line=None if lines is None else lines[position],
                row=position,
                ids=[str(name)],
            ) from None
    ids = [c.id for c in claims]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ClaimsError(f"duplicate claim ids {named(duplicates)}", file=path, ids=duplicates)
    return claims


def given_claims(texts: Sequence[str]) -> list[Claim]:
    """Claims typed on the command line (`--claim`), numbered in the order given."""
    empty = [number for number, text in enumerate(texts, 1) if not text.strip()]
    if empty:
        raise UsageError(f"--claim number {empty[0]} is empty: give the text of the claim to verify")
    return [Claim(id=f"claim-{number}", text=text) for number, text in enumerate(texts, 1)]


@dataclass
class ExtractedClaims:
    """The claims of an audit's terminals: each claim's terminal, the sentences an extractor could
    not read (failures, retried by a re-run) and the sentences no claim was made of (listed)."""

    claims: list[Claim]
    terminal_of: dict[str, str]
    failures: list[ClaimFailure] = field(default_factory=list)
    skipped: list[SkippedSentence] = field(default_factory=list)


async def extract_claims(verifier: Verifier, dag: DAG, terminals: list[str], question: str | None) -> ExtractedClaims:
    """Claims of each terminal: the verifier's own extractor when it has one (the LLM's
    Claimify-style extraction), else one claim per sentence. Ids are prefixed by the terminal
    when there are several, so they stay unique. Sentences the extractor could not read come back
    as failures (named `sentence-N`), so the audit goes on and a re-run retries them."""
    found = ExtractedClaims([], {})
    for terminal in terminals:
        interruption.check()  # an index audit splits hundreds of reports
        prefix = f"{terminal}/" if len(terminals) > 1 else ""
        if not isinstance(verifier, ClaimExtractor):
            claims, skipped = split_claims(dag, terminal)
            found.skipped += skipped
        else:
            extraction: ClaimExtraction = await verifier.extract_claims(dag.node(terminal).text, question)
            claims = [c.model_copy(update={"id": prefix + c.id}) for c in extraction.claims]
            found.failures += [
                ClaimFailure(
                    claim=Claim(id=f"{prefix}sentence-{f.sentence + 1}", text=f.text, sentence=f.sentence),
                    terminal=terminal,
                    error=f"claim extraction failed for this sentence: {f.error}",
                )
                for f in extraction.failed
            ]
        for claim in claims:
            found.claims.append(claim)
            found.terminal_of[claim.id] = terminal
    return found
