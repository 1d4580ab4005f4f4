"""The offline facts verifier, the default: VeriTrail's three steps with no model and no network.

Decomposition and Evidence Selection are the lexical verifier's (rules, BM25); the verdict checks
the claim's facts in its evidence (`features.py`) and weighs them with a fitted, monotone model
(`model.py`), so that a paraphrase passes, a changed name, number, negation or relation is caught,
and what it cannot judge is Inconclusive, never a confident verdict with a blamed stage. Its
verdicts are an estimate: it cannot follow reasoning, and abstractive claims (a book's summary
against scattered passages) need the LLM verifier.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from functools import lru_cache
from typing import Any

from veritrail_graphrag.models import Claim, EvidenceSelection, Excerpt, Sentence, SupportGap, VerdictResult
from veritrail_graphrag.verifiers.facts.judge import CONTRADICTING, judge_facts, judge_without_evidence
from veritrail_graphrag.verifiers.facts.model import FactsModel, shipped_model
from veritrail_graphrag.verifiers.lexical import LexicalConfig, LexicalVerifier
from veritrail_graphrag.verifiers.lexical.select import sentence_keys
from veritrail_graphrag.verifiers.lexical.text import analyze
from veritrail_graphrag.verifiers.registry import PreparedVerifier, VerifierSpec

__all__ = ["FactsVerifier", "NodeTerms", "prepare"]


@lru_cache(maxsize=1024)
def _key_set(text: str) -> frozenset[str]:
    """A node's terms, read once however many claims are shown the node (1,024 nodes find as many
    hits as 4,096 in the fixture index's audit)."""
    return analyze(text).key_set


_NAMED_ID = re.compile(r"[^:@]+:([^@]*)")
_LETTERS = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=4096)
def _id_keys(node_id: str) -> frozenset[str]:
    """The words of what a node id of the form `<kind>:<name>` names ("entity:MAIN STREET",
    "relationship:SCROOGE->BOB CRATCHIT"). A description need not repeat the name of what it
    describes ("A street in the City where laborers ..."), and a claim naming that is not naming
    someone the node lacks. Numbers are left out: "text_unit:12" names no twelve."""
    named = _NAMED_ID.match(node_id)
    return _key_set(" ".join(_LETTERS.findall(named.group(1)))) if named else frozenset()


@lru_cache(maxsize=1024)
def _shown_keys(batch: tuple[tuple[str, str], ...]) -> dict[str, frozenset[str]]:
    """Per node of an Evidence Selection batch ((node id, sentence) pairs), the terms of what the
    batch shows of it: once per batch, however many claims are shown it, from the sentences' keys
    the selection's index already holds rather than a second analysis of the node's sentences
    joined (the same keys but where one sentence's case or a word across two reads otherwise:
    on 15 reports of the fixture index, every result the same)."""
    by_node: dict[str, list[frozenset[str]]] = {}
    for (node_id, _), keys in zip(batch, sentence_keys(tuple(text for _, text in batch)), strict=True):
        by_node.setdefault(node_id, []).append(keys)
    return {node_id: frozenset().union(*sets) for node_id, sets in by_node.items()}


def checked_text(claim: Claim) -> str:
    """The claim's text as its facts are checked: its references to the pipeline's own records
    ("entity 438", `Claim.references`) blanked, a space for each character, so that every other
    word keeps its place (a verdict's gaps are characters of the claim). A record's id counts
    nothing, and no description holds its own id."""
    text = claim.text
    for start, end in claim.references:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _node_keys(node_id: str, text: str) -> frozenset[str]:
    return _key_set(text) | _id_keys(node_id)


class NodeTerms:
    """The terms of every node shown to Evidence Selection for a claim. The verdict sees only the
    sentences kept, but a name elsewhere in the same node is in the source all the same; and so
    is the name of any node read for the claim, which its id gives (`_id_keys`): a description
    that leaves out its entity's name is not picked for that name.

    Kept per claim (its id and text) as well as per node: one verifier can serve several DAGs at
    once (`veritrail eval`, the Python API), whose node ids repeat with other texts."""

    def __init__(self) -> None:
        self._keys: dict[tuple[str, str], dict[str, frozenset[str]]] = {}
        self._named: dict[tuple[str, str], set[str]] = {}
        self._trails: Counter[tuple[str, str]] = Counter()

    @contextmanager
    def reading(self, claim: Claim) -> Iterator[None]:
        """A trail of the claim: its terms are let go when the last trail of it open ends (one
        verifier can trace the same claim in several DAGs at once)."""
        key = (claim.id, claim.text)
        self._trails[key] += 1
        try:
            yield
        finally:
            self._trails[key] -= 1
            if not self._trails[key]:
                del self._trails[key]
                self._keys.pop(key, None)
                self._named.pop(key, None)

    def add(self, claim: Claim, sentences: list[Sentence]) -> None:
        nodes = self._keys.setdefault((claim.id, claim.text), {})
        named = self._named.setdefault((claim.id, claim.text), set())
        for node_id, keys in _shown_keys(tuple((s.node_id, s.text) for s in sentences)).items():
            previous = nodes.get(node_id)
            # the batch's own set when the node is new to the claim: one set per node shown,
            # shared by every claim shown it, not a copy per claim
            nodes[node_id] = keys if previous is None else previous | keys
            named.update(_id_keys(node_id))

    def of(self, claim: Claim, excerpts: list[Excerpt]) -> frozenset[str]:
        nodes = self._keys.get((claim.id, claim.text), {})
        named = self._named.get((claim.id, claim.text), set())
        return frozenset(named).union(
            *(nodes.get(n, frozenset()) for excerpt in excerpts for n in (excerpt.node_id, *excerpt.covers))
        )

    def trail(self, claim: Claim) -> frozenset[str]:
        """Every term of every node read for the claim so far, whole (not only the sentences
        selected), and the names their ids give: what the trail has seen anywhere."""
        named = self._named.get((claim.id, claim.text), set())
        return frozenset(named).union(*self._keys.get((claim.id, claim.text), {}).values())


class FactsVerifier(LexicalVerifier):
    """A `Verifier` that judges a claim by its checkable facts; see the module's docstring."""

    estimate_note = (
        "offline verdicts are an estimate: they check the claim's names, numbers and negations in "
        "its evidence, not its reasoning or wording; abstractive claims need --verifier llm"
    )
    keeps_untraced_inconclusive = True
    """Its Inconclusive says "nothing checkable is wrong, nothing checkable confirms it" (an
    interpretation, a paraphrase), which running out of nodes does not change: such claims stay
    Inconclusive, "not traced to the source", rather than flagged (`KeepsUntracedInconclusive`)."""

    def __init__(self, model: FactsModel | None = None, config: LexicalConfig | None = None) -> None:
        super().__init__(config)
        self.model = model or shipped_model()
        self.read = NodeTerms()

    def reading(self, claim: Claim) -> AbstractContextManager[None]:
        return self.read.reading(claim)

    async def select_evidence(self, claim: Claim, sentences: list[Sentence]) -> EvidenceSelection:
        self.read.add(claim, sentences)
        return await super().select_evidence(claim, sentences)

    async def judge(self, claim: Claim, excerpts: list[Excerpt]) -> VerdictResult:
        """Evidence only from nodes that are the rest of inputs checked before
        (`Excerpt.beside_checked`) is read with every node read for the claim, and flags only what
        it contradicts (`judge_facts`)."""
        texts = [excerpt.text for excerpt in excerpts]
        roots = [excerpt.is_root for excerpt in excerpts]
        trail = self.read.trail(claim)
        beside = bool(excerpts) and all(excerpt.beside_checked for excerpt in excerpts)
        read = trail if beside else self.read.of(claim, excerpts)
        return judge_facts(checked_text(claim), texts, self.model, self.config, read, roots, trail, beside)

    async def judge_without_evidence(self, claim: Claim, checked: list[Excerpt]) -> VerdictResult:
        """The nodes that are only the rest of inputs checked before (`Excerpt.beside_checked`) are
        read for names but judged apart: source text checked with one of them is still source
        text, and when only they are left, a name is missing only when no node read for the claim
        has it (`NodeTerms.trail`), and their holding nothing close to the claim flags nothing."""
        read = frozenset().union(*(_node_keys(node.node_id, node.text) for node in checked))
        own = [node for node in checked if not node.beside_checked]
        if checked and not own:
            read |= self.read.trail(claim)
        from_source = bool(own) and all(n.is_root for n in own)
        records = [_id_keys(node.node_id) for node in checked]
        return judge_without_evidence(
            checked_text(claim),
            read,
            from_source=from_source,
            records=records,
            beside_checked=bool(checked) and not own,
        )

    def holds(self, gaps: Sequence[SupportGap], node_id: str, text: str) -> bool:
        """Whether every word of the gaps is in the node (its id's name included), in any of the
        forms `analyze` gives one key: the text that wrote down what the source lacks. Never for
        a claim the source contradicts (another number, a denial, a copied sentence turned
        around): its words are in the source and in every stage that copied it, so holding them
        says nothing of who turned them (on the planted benchmark, reading them so blamed an
        earlier stage than the planted one for 9 of 42 flags); the paper's rule names the stage."""
        if any(gap.check in CONTRADICTING for gap in gaps):
            return False
        wanted = frozenset().union(*(analyze(gap.text).key_set for gap in gaps))
        return bool(wanted) and wanted <= _node_keys(node_id, text)

    def settings(self, *, after_run: bool = False) -> dict[str, Any]:
        return {
            "facts": {"model": self.model.model_dump(mode="json"), "selection": self.config.model_dump(mode="json")}
        }


def prepare(spec: VerifierSpec) -> PreparedVerifier:
    """The shipped weights are read here, once, so a missing or damaged file stops the run before
    any claim is extracted."""
    model = shipped_model()
    return PreparedVerifier(build=lambda: FactsVerifier(model))
