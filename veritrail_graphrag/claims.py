"""Where claims come from when no LLM extracts them: a claims file, or the terminal's sentences."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import ValidationError

from veritrail_graphrag.dag import DAG
from veritrail_graphrag.errors import ClaimsError
from veritrail_graphrag.files import read_text
from veritrail_graphrag.models import Claim
from veritrail_graphrag.sentences import HEADING, LIST_ITEM

_CITATION = re.compile(r"\s*\[(?:Data|Sources?):[^\]]*\]", re.IGNORECASE)


def clean_claim_text(sentence: str) -> str:
    """Drop list markers, markdown emphasis and GraphRAG's `[Data: Reports (..)]` citations."""
    text = _CITATION.sub("", sentence)
    text = LIST_ITEM.sub("", text)
    return text.replace("**", "").replace("__", "").strip()


def sentence_claims(dag: DAG, terminal: str) -> list[Claim]:
    """One claim per sentence of the terminal, skipping headings and table rows.

    This is the no-LLM fallback; an LLM claim extractor (Claimify-style) gives better claims.
    """
    claims = []
    for sentence in dag.sentences(terminal):
        if HEADING.match(sentence.text) or sentence.text.lstrip().startswith("|"):
            continue
        text = clean_claim_text(sentence.text)
        if len(re.findall(r"\w+", text)) >= 3:
            claims.append(Claim(id=sentence.id, text=text, sentence=sentence.index))
    return claims


def load_claims(path: Path) -> list[Claim]:
    """Read `[{"id", "text", "sub_claims"?}, ...]` or `{"claims": [...]}`, or JSONL of such objects."""
    raw = read_text(path, ClaimsError)
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        try:
            data = [json.loads(line) for line in raw.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise ClaimsError(f"{path}: neither JSON nor JSON lines ({exc.msg} at line {exc.lineno})") from None
    if isinstance(data, dict):
        data = data.get("claims")
    if not isinstance(data, list) or not data:
        raise ClaimsError(f"{path}: expected a non-empty list of claims or {{'claims': [...]}}")
    claims: list[Claim] = []
    for position, entry in enumerate(data):
        try:
            claims.append(Claim.model_validate(entry))
        except ValidationError as exc:
            name = entry.get("id", f"#{position}") if isinstance(entry, dict) else f"#{position}"
            problem = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise ClaimsError(f"{path}: claim {name!r} (entry {position}): {problem}") from None
    ids = [c.id for c in claims]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ClaimsError(f"{path}: duplicate claim ids {', '.join(map(repr, duplicates))}")
    return claims
