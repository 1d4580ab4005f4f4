"""The interface between the engine and whatever judges text (an LLM, or the offline lexical verifier).

A verifier knows prompts and models and nothing about traversal; the engine knows the DAG and
nothing about prompts. All three methods are async so that an LLM verifier can run many calls
concurrently; a verifier that does no I/O simply never awaits.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Protocol, runtime_checkable

from veritrail_graphrag.models import Claim, EvidenceSelection, Excerpt, Sentence, SupportGap, VerdictResult


@runtime_checkable
class Verifier(Protocol):
    async def decompose(self, claim_text: str) -> list[str]:
        """Split a claim into simpler parts; one part (or none) means it cannot be split further."""
        ...

    async def select_evidence(self, claim: Claim, sentences: list[Sentence]) -> EvidenceSelection:
        """Pick the ids of sentences that strongly imply the claim or a sub-claim true or false."""
        ...

    async def judge(self, claim: Claim, excerpts: list[Excerpt]) -> VerdictResult:
        """Decide whether the excerpts justify the entire claim."""
        ...


@runtime_checkable
class PromptLimited(Protocol):
    """A verifier whose prompts have a size limit (a model's context window). The engine packs
    Evidence Selection prompts and fits the verdict input to `max_prompt_chars` characters of node
    text, unless its own config sets a limit."""

    @property
    def max_prompt_chars(self) -> int: ...


@runtime_checkable
class Estimates(Protocol):
    """A verifier whose verdicts are an estimate, and which says so in one line that the report
    and the terminal show next to its verdicts (what it checks, what it cannot)."""

    @property
    def estimate_note(self) -> str: ...


@runtime_checkable
class AbstainsWithoutEvidence(Protocol):
    """A verifier that judges a claim none of whose nodes' sentences it selected, given those nodes
    (one excerpt each: what it was shown of the node). Without it, no evidence is Not Fully
    Supported (the paper's rule); with it, a claim about what a source tells in other words, or
    that states nothing checkable ("this underscores the importance of memory"), can be
    Inconclusive instead: a reviewer reads it, and no stage is blamed for what cannot be checked.
    A node that is only the rest of inputs checked before says so (`Excerpt.beside_checked`)."""

    async def judge_without_evidence(self, claim: Claim, checked: list[Excerpt]) -> VerdictResult: ...


@runtime_checkable
class KeepsUntracedInconclusive(Protocol):
    """A verifier whose Inconclusive verdict stands when the traversal runs out of nodes before any
    source text (root) yielded evidence.

    The paper's stop rule makes such a claim Not Fully Supported: no node left to check means the
    roots were never reached or none of them yielded evidence. That suits a verifier whose
    Inconclusive means conflicting evidence. A verifier that abstains on what it cannot check (an
    interpretation, a paraphrase: see `AbstainsWithoutEvidence`) would flag every such claim; with
    this capability (`keeps_untraced_inconclusive` true) the claim stays Inconclusive, as its own
    case, "not traced to the source" (`ClaimResult.not_traced`): the reports show it apart, since
    the paper's provenance (a trail down to the source) does not hold for it. The engine records
    the rule it applied in its config (`TrailConfig.untraced_inconclusive`).

    When such a verifier also abstains without evidence (`AbstainsWithoutEvidence`), a claim
    supported only by intermediate outputs whose inputs were all read before, none with evidence,
    is judged by `judge_without_evidence` against those inputs: a sub-community report repeating
    an interpretation would otherwise flag it, where the same claim repeated by no report stays
    Inconclusive."""

    @property
    def keeps_untraced_inconclusive(self) -> bool: ...


@runtime_checkable
class LocatesInventions(Protocol):
    """A verifier that can tell whether a node's text holds the words its verdict found without
    support in the source (the gaps of a Not Fully Supported claim). The engine then blames the
    earliest stage whose text read on the trail holds them, where the invention was first written
    down, rather than only the stage of the last Fully Supported iteration (the paper's rule, kept
    when no text read holds them): a relation a stage-2 description invented and a report copied is
    stage 2's error, even when the report was the last text that passed."""

    def holds(self, gaps: Sequence[SupportGap], node_id: str, text: str) -> bool: ...


@runtime_checkable
class Prefilters(Protocol):
    """A verifier that leaves out, before Evidence Selection and without a model call, the
    sentences of a node that cannot be evidence for a claim: its prompts get shorter, and the trail
    records what was left out. It answers for one node at a time (a node's length may decide)."""

    def may_be_evidence(self, claim: Claim, sentences: list[Sentence]) -> list[bool]:
        """One flag per sentence, in order: False leaves the sentence out."""
        ...


@runtime_checkable
class ReadsLanguages(Protocol):
    """A verifier that compares a claim only with evidence in the claim's own language, and only in
    the languages it names (ISO 639-1 codes): one that matches words (its stems, negation words
    and stopwords are a language's own). The engine shows it no node it cannot compare: a claim in
    a language it does not read, or whose candidates are in another language, ends Inconclusive
    before any Evidence Selection is paid for, with a reason naming both languages. A verifier
    without it (the LLM judges by meaning, in any language) is shown every node."""

    @property
    def languages(self) -> frozenset[str]: ...


@runtime_checkable
class KeepsClaimState(Protocol):
    """A verifier that keeps what it read for a claim from one call to the next (the facts
    verifier keeps the terms of every node shown for the claim: a name elsewhere in a node is in
    the source, if not in the sentences selected). The engine runs each claim's trail inside
    `reading(claim)`, which lets the claim's state go when the trail ends, however it ends: kept
    for every claim of an index it held 150 MB of the fixture index's audit after the last claim."""

    def reading(self, claim: Claim) -> AbstractContextManager[None]: ...
