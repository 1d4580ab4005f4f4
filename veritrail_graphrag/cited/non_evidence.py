"""Text that asserts nothing: questions, instructions and headings, removed from spans in code.

The entailment prompt tells the model that only declarative statements count as evidence, but a
weak model still answers YES to "Does the gateway retry failed requests three times?" for the claim
that it does. So the rule is applied before any call: a span's sentences that are questions,
instructions or headings are dropped from what the model sees. `kind` is the whole rule, a pure
function of one sentence; it errs on the side of keeping text, since dropping a statement that
was evidence would turn a supported claim into a flagged one.

- question: ends with "?" (closing quotes, brackets and citation markers aside), unless the
  question is quoted inside a sentence that reports it (`Scrooge asks, "Are there no prisons?"`
  asserts that he asked); or opens with a "Question:" / "Q:" label;
- instruction: opens with "Please", "Let's", "Do not", "Make sure", ..., a label such as "Task:"
  or "Instruction:", a verb that starts commands and seldom a statement (reply, choose, ignore,
  describe, explain, summarize, provide, ...), or a verb that is also a noun followed by a word
  a command takes ("Use the ...", "List all ...", "Answer with ...", but not "Use of force ...");
- heading: a markdown heading (`## Findings`), a line that is only bold text, or a short label
  ending in a colon (`Key points:`).
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from veritrail_graphrag.sentences import HEADING, split_sentences


class NonEvidence(StrEnum):
    QUESTION = "question"
    INSTRUCTION = "instruction"
    HEADING = "heading"


_MARKERS_BEHIND = re.compile(r"(?:\s*\[[^\[\]]*\])+\s*$")
_OPENING_QUOTES = "\"'\u201c\u2018"
_CLOSING_QUOTES = "\"'\u201d\u2019"
_CLOSERS = _CLOSING_QUOTES + ")]*_ "
_LIST_MARKER = re.compile(r"^\s*(?:[-*+>]|\d{1,3}[.)])\s+")
_QUOTED_QUESTION = re.compile(f"[{_OPENING_QUOTES}][^{_OPENING_QUOTES}{_CLOSING_QUOTES}]*\\?[{_CLOSING_QUOTES}]$")
_QUESTION_LABEL = re.compile(r"^(?:question|q)\s*\d*\s*[:.]\s", re.IGNORECASE)
_INSTRUCTION_LABEL = re.compile(r"^(?:task|instructions?|prompt|exercise)\s*\d*\s*:", re.IGNORECASE)
_COMMAND_OPENING = re.compile(r"^(?:please|let's|let us|do not|don't|make sure|be sure|remember to)\b", re.IGNORECASE)
_COMMAND_VERBS = frozenset(
    "reply respond choose ignore describe explain summarize summarise provide imagine suppose "
    "compare identify click avoid ensure consider discuss outline translate rewrite classify".split()
)
_NOT_A_COMMAND = frozenset("is are was were has have had of s".split())
_AMBIGUOUS_VERBS = frozenset("answer ask list give tell find check select use return output write".split())
"""Verbs that are also nouns ("Answer rates rose", "Use of force is rare", "Write access is
restricted"): a command only when the next word is one a command takes."""
_OBJECTS = frozenset("the a an all each every with me us your this these those only one two three".split())
_BOLD_ONLY = re.compile(r"^\s*(\*\*|__)[^*_]+\1\s*:?\s*$")
_WORD = re.compile(r"[A-Za-z']+")


def _is_question(bare: str) -> bool:
    """`bare`: the sentence without list or citation markers."""
    if _QUESTION_LABEL.match(bare):
        return True
    if not bare.rstrip(_CLOSERS).endswith("?"):
        return False
    quoted = _QUOTED_QUESTION.search(bare)
    return quoted is None or not bare[: quoted.start()].strip(" -\u2013\u2014")


def _is_instruction(bare: str) -> bool:
    if _INSTRUCTION_LABEL.match(bare) or _COMMAND_OPENING.match(bare):
        return True
    words = [w.lower() for w in _WORD.findall(bare)[:2]]
    if words[0] in _COMMAND_VERBS:
        return len(words) == 1 or words[1] not in _NOT_A_COMMAND
    return words[0] in _AMBIGUOUS_VERBS and len(words) == 2 and words[1] in _OBJECTS


def _is_heading(sentence: str, bare: str) -> bool:
    if HEADING.match(sentence) or _BOLD_ONLY.match(sentence):
        return True
    label = bare.rstrip(_CLOSERS)
    return label.endswith(":") and len(label.split()) <= 8


def kind(sentence: str) -> NonEvidence | None:
    """What makes a sentence non-evidence, or None when it may assert something."""
    bare = _MARKERS_BEHIND.sub("", _LIST_MARKER.sub("", sentence.strip())).strip()
    if not _WORD.search(bare):
        return None
    if _is_heading(sentence, bare):
        return NonEvidence.HEADING
    if _is_question(bare):
        return NonEvidence.QUESTION
    if _is_instruction(bare):
        return NonEvidence.INSTRUCTION
    return None


class EvidenceText(BaseModel):
    """A span's text with its non-evidence removed, and what was removed."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(description="the sentences kept, joined by spaces; empty when none is left")
    removed: list[str] = Field(default_factory=list, description="sentences dropped, as written")


def evidence_text(text: str) -> EvidenceText:
    """`text` sentence by sentence (markdown-aware), keeping only those that may assert something."""
    sentences = split_sentences(text)
    removed = [s for s in sentences if kind(s) is not None]
    if not removed:
        return EvidenceText(text=text)
    return EvidenceText(text=" ".join(s for s in sentences if kind(s) is None), removed=removed)
