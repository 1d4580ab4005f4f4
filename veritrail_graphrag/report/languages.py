"""The languages an audit met, and what its verifier did about them, for every rendering.

The engine records each claim's language and, per iteration, the candidates its verifier could
not read for their language (`LanguageGate`); the audit adds the language of every node a result
names. Here they are counted: claims per language, nodes read per language, nodes left unread,
and the claims left Inconclusive for language by claim and evidence language, with one sentence
that the terminal, report.md and report.html all show.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field, computed_field

from veritrail_graphrag.engine.languages import ANY_LANGUAGE, UNKNOWN
from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.languages import language_list, language_name


def ranked(counts: Mapping[str, int]) -> dict[str, int]:
    """Counts the most first, equal counts by code: the same order in every run. Counted over sets
    of node ids, whose order changes from one process to the next (string hashing is seeded), a
    plain `Counter` would write report.json's keys in another order each time."""
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _counted(counts: Mapping[str, int]) -> str:
    """Counts as "English 40, Japanese 3", the most first."""
    return ", ".join(f"{_name(code)} {n:,}" for code, n in ranked(counts).items())


def _name(code: str) -> str:
    return language_name(None if code == UNKNOWN else code)


class LanguageSummary(BaseModel):
    """Languages of the claims and of the nodes read, and the claims not checked for language."""

    claims: dict[str, int] = Field(description="claims per language (ISO 639-1; 'und': not told)")
    nodes_read: dict[str, int] = Field(description="nodes read per language")
    nodes_not_read: dict[str, int] = Field(
        default_factory=dict, description="nodes the verifier was not shown for their language, per language"
    )
    verifier_reads: list[str] | None = Field(
        default=None, description="the languages the verifier compares a claim in (its own only); None: any"
    )
    not_checked: dict[str, int] = Field(
        default_factory=dict,
        description="claims left Inconclusive for language, by '<claim language>><evidence languages, +-joined>'",
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def note(self) -> str:
        """One paragraph: the languages found, then what the verifier did about them."""
        found = (
            f"Languages: claims {_counted(self.claims) or 'none'}; nodes read: {_counted(self.nodes_read) or 'none'}"
        )
        if self.nodes_not_read:
            found += f"; not read: {_counted(self.nodes_not_read)}"
        if self.verifier_reads is None:
            return f"{found}. The verifier reads every language."
        reads = language_list(set(self.verifier_reads))
        if not self.not_checked:
            return f"{found}. The verifier reads {reads}, a claim against evidence in its own language."
        parts = []
        for key, n in sorted(self.not_checked.items(), key=lambda kv: (-kv[1], kv[0])):
            claim, _, evidence = key.partition(">")
            if claim not in self.verifier_reads:
                parts.append(f"{n:,} in {_name(claim)}, which it does not read")
            else:
                parts.append(f"{n:,} in {_name(claim)} with evidence in {language_list(set(evidence.split('+')))}")
        total = sum(self.not_checked.values())
        return (
            f"{found}. {total:,} claim(s) were not checked and are Inconclusive for language: {'; '.join(parts)} "
            f"(the verifier reads {reads}, and compares a claim only with evidence in its own language); "
            f"{ANY_LANGUAGE}."
        )


def summarize_languages(
    results: Sequence[ClaimResult], node_languages: Mapping[str, str | None], verifier_reads: frozenset[str] | None
) -> LanguageSummary:
    """Counts over the results; `node_languages`: the language of every node they name."""

    def language_of(node_id: str) -> str:
        return node_languages.get(node_id) or UNKNOWN

    read = {n for r in results for it in r.iterations for n in it.checked}
    unread = {n for r in results for it in r.iterations for nodes in it.not_read.values() for n in nodes}
    not_checked: Counter[str] = Counter()
    for result in results:
        if result.not_checked_for_language:
            not_checked[f"{result.language or UNKNOWN}>{'+'.join(result.unread_languages)}"] += 1
    return LanguageSummary(
        claims=ranked(Counter(r.language or UNKNOWN for r in results)),
        nodes_read=ranked(Counter(language_of(n) for n in read)),
        nodes_not_read=ranked(Counter(language_of(n) for n in unread - read)),
        verifier_reads=None if verifier_reads is None else sorted(verifier_reads),
        not_checked=ranked(not_checked),
    )
