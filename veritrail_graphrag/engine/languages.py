"""Which of a claim's candidate nodes its verifier can compare with it, by language.

A verifier that declares the languages it reads (`ReadsLanguages`) compares a claim only with
nodes in the claim's own language, and only in those languages. The decision is made per
iteration on the nodes the claim would be traced to next, before Evidence Selection, so nothing
is paid for what cannot be judged: a mixed corpus (some text units in English, some in Korean)
reads the English ones, and a claim whose candidates are all in another language ends
Inconclusive there. The claim's language is its own sentence's, or its output's when the sentence
is too short to tell; a node's is detected once per node (`DAG.language`), and only for nodes the
traversal reaches. Nodes in no language that can be told are read.
"""

from __future__ import annotations

from collections.abc import Sequence

from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.trail import ClaimResult, Iteration
from veritrail_graphrag.languages import detect_language, language_list, language_name
from veritrail_graphrag.models import Claim, Verdict
from veritrail_graphrag.verifiers.base import ReadsLanguages, Verifier

UNKNOWN = "und"
"""The language of a node that cannot be told (ISO 639-2 "undetermined"), where one is named."""
ANY_LANGUAGE = "the LLM verifier (--verifier llm) judges claims against evidence in any language"


def claim_language(dag: DAG, claim: Claim, terminal: str) -> str | None:
    """The claim's language: its own, else (a sentence too short to tell) its output's."""
    return detect_language(claim.text) or dag.language(terminal)


class LanguageGate:
    """For one claim: which candidates its verifier reads, and the iterations it could not."""

    def __init__(self, verifier: Verifier, dag: DAG, language: str | None) -> None:
        self.dag = dag
        self.language = language
        self.reads = verifier.languages if isinstance(verifier, ReadsLanguages) else None
        self.decided: set[int] = set()
        """The iterations whose verdict the gate decided (Inconclusive for language)."""

    def _readable(self, node_id: str) -> bool:
        if self.reads is None or self.language is None:
            return True
        if self.language not in self.reads:
            return False
        found = self.dag.language(node_id)
        return found is None or found == self.language

    def partition(self, nodes: list[str], carried: set[str]) -> tuple[list[str], dict[str, list[str]]]:
        """(the nodes to read, the others by language). Carried roots yielded evidence already."""
        readable: list[str] = []
        unread: dict[str, list[str]] = {}
        for node_id in nodes:
            if node_id in carried or self._readable(node_id):
                readable.append(node_id)
            else:
                unread.setdefault(self.dag.language(node_id) or UNKNOWN, []).append(node_id)
        return readable, unread

    def reason(self, unread: dict[str, list[str]], some_read: bool) -> str:
        """Why nodes were not read, naming the claim's language and theirs."""
        count = sum(map(len, unread.values()))
        evidence = f"{count} node(s) in {language_list(set(unread) - {UNKNOWN}) or language_name(None)}"
        claim = language_name(self.language)
        reads = language_list(set(self.reads or ()))
        if self.language not in (self.reads or ()):
            why = f"the claim is in {claim}, which this verifier does not read (it reads {reads})"
        else:
            why = f"the claim is in {claim}, and this verifier compares it only with evidence in {claim}"
        read = "What it could read did not fully support the claim; " if some_read else ""
        return f"{read}{evidence} were not read: {why}. Not checked; {ANY_LANGUAGE}."

    def unread_iteration(self, index: int, unread: dict[str, list[str]]) -> Iteration:
        """An iteration with nothing the verifier can read: Inconclusive, no call made."""
        self.decided.add(index)
        return Iteration(
            index=index,
            checked=[],
            nodes_with_evidence=[],
            evidence=[],
            not_read=unread,
            verdict=Verdict.INCONCLUSIVE,
            reasoning=self.reason(unread, some_read=False),
        )

    def settle(self, iteration: Iteration, unread: dict[str, list[str]]) -> Iteration:
        """An iteration that left nodes unread for their language: no support in what was read is
        no verdict, as the evidence may be in what was not; support found stands."""
        if not unread:
            return iteration
        if iteration.verdict is not Verdict.NOT_FULLY_SUPPORTED:
            return iteration.model_copy(update={"not_read": unread})
        reasoning = f"{self.reason(unread, some_read=True)} {iteration.reasoning}".strip()
        self.decided.add(iteration.index)
        return iteration.model_copy(
            update={"not_read": unread, "verdict": Verdict.INCONCLUSIVE, "reasoning": reasoning, "gaps": []}
        )

    def unread_sources(self, iterations: Sequence[Iteration]) -> dict[str, list[str]]:
        """Where the support led and the gate did not follow, by language: the unread nodes that
        were sources of the evidence. A source is left unread once, where the trail first met it:
        in the next iteration, or already beside the evidence when it is a source of the node
        checked before as well (a sub-report and its parent report made from the same text unit),
        and then never offered again."""
        not_read: dict[str, list[str]] = {}
        supporting = {node for iteration in iterations for node in iteration.nodes_with_evidence}
        sources = {source for node in supporting for source in self.dag.src(node)}
        for iteration in iterations:
            for language, nodes in iteration.not_read.items():
                not_read.setdefault(language, []).extend(n for n in nodes if n in sources)
        return {language: list(dict.fromkeys(nodes)) for language, nodes in not_read.items() if nodes}

    def finished(self, result: ClaimResult) -> ClaimResult:
        """The claim's result with what the gate decided. When its last iteration read nothing
        (`unread_iteration`) or found no support only where it could read (`settle`), the claim is
        Inconclusive for language whatever the stop rule made of it. When support was found but the
        trail stopped because the nodes it would be traced to were not read, nothing was found
        missing: Inconclusive, not Not Fully Supported, and no stage is blamed. Only the unread
        sources of evidence count: a node left unread beside the trail excuses nothing."""
        latest = result.iterations[-1]
        if latest.index in self.decided:
            return result.model_copy(
                update={
                    "verdict": Verdict.INCONCLUSIVE,
                    "reasoning": latest.reasoning,
                    "error_stages": [],
                    "error_note": "",
                    "gaps": [],
                    "unread_languages": sorted(latest.not_read),
                }
            )
        if result.verdict is not Verdict.NOT_FULLY_SUPPORTED or latest.verdict is not Verdict.FULLY_SUPPORTED:
            return result
        not_read = self.unread_sources(result.iterations)
        if not not_read:
            return result
        found = ", ".join(map(str, result.error_stages or [])) or "intermediate"
        reasoning = (
            f"Support was found in what could be read (stage {found}) but not traced to the source: "
            f"{self.reason(not_read, some_read=False)}"
        )
        return result.model_copy(
            update={
                "verdict": Verdict.INCONCLUSIVE,
                "reasoning": reasoning,
                "error_stages": [],
                "error_note": "",
                "gaps": [],
                "unread_languages": sorted(not_read),
            }
        )
