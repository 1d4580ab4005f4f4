"""The facts verdict: a claim is Not Fully Supported when a checkable fact of it is missing from
its evidence or contradicted there, Inconclusive when the evidence is too far from it to judge,
Fully Supported otherwise, and it always says which of its words had no support.

Claims the verifier cannot read (another language than English, nothing checkable) are
Inconclusive with that reason: its word lists are English, and a confident verdict there would be
noise with a blamed stage.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from veritrail_graphrag.models import SupportGap, Verdict, VerdictResult
from veritrail_graphrag.verifiers.facts.features import (
    CONTRADICTIONS,
    Facts,
    Finding,
    claim_facts,
    is_acronym,
    name_partners,
)
from veritrail_graphrag.verifiers.facts.model import FactsModel
from veritrail_graphrag.verifiers.lexical.config import LexicalConfig
from veritrail_graphrag.verifiers.lexical.text import Spans, Term, TextTerms, analyze, term_spans

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_ENGLISH = frozenset(
    "the a an of to and in is was are were be been it that this for on with as by at from his her their "
    "its he she they we you i not but or which who has have had will would can could".split()
)
_FOREIGN = frozenset(
    "le la les des une est et du dans pour qui que sur au aux ne pas der die das und ist nicht ein eine "
    "den dem mit von zu sich auf el los las del y en por con para una es".split()
)
_FINDINGS_SHOWN = 4
_NOT_ENGLISH = "the claim is not in English: the offline verifier checks English words only; use --verifier llm"


def _not_english(text: str) -> bool:
    """Whether a claim is written in a language whose words the verifier cannot check: mostly
    letters outside the Latin alphabet, or more French, German or Spanish function words than
    English ones."""
    letters = [ch for ch in text if ch.isalpha()]
    if letters and sum(ch.isascii() or "\u00c0" <= ch <= "\u024f" for ch in letters) < 0.7 * len(letters):
        return True
    words = [w.lower() for w in _WORD.findall(text)]
    english = sum(w in _ENGLISH for w in words)
    foreign = sum(w in _FOREIGN for w in words)
    return foreign >= 2 and foreign > english


def _undecided(reason: str) -> VerdictResult:
    """Inconclusive, with an even score: what the verifier cannot judge it does not lean on."""
    return VerdictResult(verdict=Verdict.INCONCLUSIVE, reasoning=reason, score=0.5)


CHECKS = {
    "reversed": "copied sentence turned around",
    "opposed": "opposite said of the same person",
    "number_conflict": "changed number",
    "negation_conflict": "denial",
    "swapped_name": "changed name",
    "credited_elsewhere": "credited to another",
    "supposed_only": "supposition stated as fact",
    "missing_name": "missing name",
    "missing_beside": "missing name",
    "missing_number": "missing number",
}
"""The checks, by the kind of finding they raise, in the words a reviewer reads. All but
`credited_elsewhere` can make a claim Not Fully Supported; that one asks for a look (`decide`)."""
CONTRADICTING = frozenset(CHECKS[kind] for kind in ("reversed", "opposed", *CONTRADICTIONS))
"""The checks that find the source saying otherwise rather than nothing: the words they mark are
in the source, so a stage that holds them need not be the one that wrote the error."""
ABSENT = "claim mostly absent"
"""The check that flags a claim almost none of whose words are in its evidence."""


def _gaps(findings: Sequence[Finding]) -> list[SupportGap]:
    """One gap per span of the claim, with the most specific reason (findings come most specific
    first, the plain missing words last) and the evidence sentence it was compared with."""
    spans = dict.fromkeys(f.span for f in findings if f.span)
    first = {span: next(f for f in findings if f.span == span) for span in spans}
    return [
        SupportGap(text=f.text, start=span[0], end=span[1], why=f.why, check=CHECKS.get(f.kind, ""), quote=f.quote)
        for span, f in first.items()
        if span
    ]


def raised_by(check: str, why: str, quote: str = "") -> str:
    """How a reason names the check that flagged a claim, and quotes what it compared:
    'changed number check: ...; the evidence says: "..."'."""
    said = f'; the evidence says: "{quote}"' if quote else ""
    return f"{check} check: {why}{said}"


def _reasoning(facts: Facts, p: float, verdict: Verdict, raised: Sequence[Finding], unread: Sequence[str] = ()) -> str:
    """For a flag, which check raised it and the evidence sentence it compared the claim with,
    first; for a claim naming what the trail never read, those names; then the other findings,
    the share of terms found and P(supported)."""
    shown = [f for f in facts.findings if f.kind != "missing_words" and f not in raised][:_FINDINGS_SHOWN]
    words = [f.text for f in facts.findings if f.kind == "missing_words"]
    parts = [f.why for f in shown]
    if words:
        parts.append("words not in the evidence: " + ", ".join(f"'{w}'" for w in words))
    covered = f"{facts.covered:.0%} of its terms found"
    if unread:
        lead = (
            f"{', '.join(repr(name) for name in unread)} in none of the texts the trail read (whole nodes, not only "
            "the sentences selected): a name the source never gives, or another name for one it does"
        )
    elif verdict is Verdict.FULLY_SUPPORTED and facts.missing_anchor:
        lead = (
            "nothing checkable is contradicted; a name or number is missing from source text that is far from the claim"
        )
    elif verdict is Verdict.FULLY_SUPPORTED:
        lead = "its names, numbers and denials are in the evidence"
    elif verdict is Verdict.INCONCLUSIVE and facts.one_word_changed:
        lead = "one word of the claim stands where its evidence has another: a changed fact or a synonym"
    elif verdict is Verdict.INCONCLUSIVE and raised:
        said = raised_by(CHECKS[raised[0].kind], raised[0].why, raised[0].quote)
        lead = f"a word of the claim is said of another name (someone else, or the same by a pronoun or alias): {said}"
    elif verdict is Verdict.INCONCLUSIVE:
        lead = "nothing checkable is contradicted, but the evidence is too far from the claim to judge it"
    elif raised:
        lead = "; ".join(raised_by(CHECKS[f.kind], f.why, f.quote) for f in raised[:_FINDINGS_SHOWN])
    else:
        lead = raised_by(ABSENT, f"only {facts.found_share:.0%} of its terms are in the evidence")
    return f"{lead}; {covered}" + ("; " + "; ".join(parts) if parts else "") + f"; P(supported) {p:.2f}"


SOURCE_ABSENT_BELOW = 0.3
"""A claim judged against source text that holds less than this share of its terms is Not
Fully Supported when it also states a name or number that no source node read holds (the claim
brings its own specifics: "Moses", "three coastal provinces"), else Inconclusive: too little of it
is there to judge it by. Flagging every such claim was tried (2026-11-27): on the wild dev set 9
of its 27 flags were unsupported claims, 13 commentary ("this highlights the importance of
..."); on the fixture index, a novel that report prose paraphrases and interprets, it added 323
flags, none right in a sample of 20. Commentary and paraphrase are for a reviewer (or
`--verifier llm`), not a flag. With the name-or-number condition the fixture index gains 8 flags
(5 name what the novel never mentions: Moses, King Solomon, Daniel Defoe)."""


UNNAMED_BELOW = 0.45
"""Judged against intermediate outputs (the descriptions, reports or summaries a claim was
written from), a claim naming what no node read holds anywhere is Not Fully Supported when its
P(supported) is below this too: little else of it is there either ("an orphanage for the poor
children of London" against descriptions of Scrooge). Set on the wild dev set (2026-11-27): below
0.45 such flags were 2 of 2 right, between it and `not_supported_below` 0 of 4, those names being
in an input of the report that the DAG does not link to it (a relationship with one end outside
the community)."""


def _decision(facts: Facts, model: FactsModel, from_source: bool) -> tuple[Verdict, list[Finding]]:
    """The verdict (see `decide`) and, for a flag, the findings of the checks that raised it (none
    when most of the claim is not in the evidence); for a look the credited-to-another check asks
    for, its finding."""
    p = model.probability(facts.values)
    changed = [f for f in facts.findings if f.kind in ("reversed", "opposed") or f.kind in CONTRADICTIONS]
    if changed:
        return Verdict.NOT_FULLY_SUPPORTED, changed
    close = facts.covered >= model.close_covered or not from_source
    beside = [f for f in facts.findings if f.kind == "missing_beside"]
    if beside and close and p < model.not_supported_below:
        return Verdict.NOT_FULLY_SUPPORTED, beside
    if facts.covered < model.min_covered:
        return Verdict.NOT_FULLY_SUPPORTED, []
    if from_source and facts.found_share < SOURCE_ABSENT_BELOW:
        return (Verdict.NOT_FULLY_SUPPORTED if facts.missing_anchor else Verdict.INCONCLUSIVE), []
    unnamed = [f for f in facts.findings if f.kind == "missing_name"]
    if unnamed and not from_source and p < UNNAMED_BELOW:
        return Verdict.NOT_FULLY_SUPPORTED, unnamed
    swapped = facts.one_word_changed and from_source
    credited = [f for f in facts.findings if f.kind == "credited_elsewhere"] if from_source and not swapped else []
    if credited:
        return Verdict.INCONCLUSIVE, credited[:1]
    missing = facts.missing_anchor and close and p < model.not_supported_below
    return (Verdict.INCONCLUSIVE if p < model.inconclusive_below or swapped or missing else Verdict.FULLY_SUPPORTED), []


def decide(facts: Facts, model: FactsModel, from_source: bool) -> Verdict:
    """Not Fully Supported when a checkable fact is contradicted (another number, a denial, a
    changed name, a supposition stated as fact); when the claim turns around a sentence of its
    evidence that it copies (`copies.py`); when an intermediate output says of the same person
    another place in age or kin (`relations.opposed_beside`; source text is left out, it tells of
    many people under one name, "the youngest Cratchits" against "Peter Cratchit, the eldest
    son"); when a name stands beside a word the nodes read lack, whether or not they hold the name
    ("a London surgeon"), and P(supported) is low; when a name is in none of the intermediate
    outputs read and P is below `UNNAMED_BELOW`; when almost nothing of the claim is in the
    evidence, or less than `SOURCE_ABSENT_BELOW` of it is in source text that lacks one of its
    names or numbers. Inconclusive when less than that share of it is in source text otherwise;
    when a name or number is missing otherwise and P is low (on the wild dev set such flags were true claims
    five times in seven: a class, a nationality, an acronym the selected sentences do not spell
    out), or when P is low otherwise.
    Wording the evidence does not share is never an alarm on its own, nor is one word standing
    where the evidence has another (an opposite somewhere in it, a swap): on the dev splits that is
    a synonym as often as a changed fact, so it lowers P and is named, nothing more. Against source
    text, which decides the final verdict, such a swap is Inconclusive (a reviewer looks); against
    an intermediate output it is Fully Supported, so that the trail goes on to the source and an
    error found there is blamed on the stage that made it (the last Fully Supported iteration
    names the stage), not left unnamed.
    Nor is a word the evidence says of another name an alarm ("the evidence says 'late' of
    'Cratchit', not of 'Martha'"): real text names the claim's subject by a pronoun ("she") or
    another name ("the Ghost" for "the Spirit") as often as it credits someone else. As flags
    (2026-11-28) they were right 2 times in 5 on the dev splits of real text (wild, FABLES) and in
    none of the 20 of the fixture index's audit; only SummEdits' made-up edits, which swap one
    name for another, were caught (13 of 15). Against source text it is Inconclusive with the
    sentence quoted (a reviewer looks; a benchmark's hard metrics still count it against the
    claim); against an intermediate output it lowers P, nothing more.
    """
    return _decision(facts, model, from_source)[0]


def _unread(facts: Facts, trail_keys: frozenset[str]) -> list[str]:
    """The claim's names (as `claim_facts` reports them missing) of which no word is in any text
    the trail read."""
    return [f.text for f in facts.findings if f.kind == "missing_name" and not analyze(f.text).key_set & trail_keys]


def judge_facts(
    claim_text: str,
    evidence_texts: Sequence[str],
    model: FactsModel,
    config: LexicalConfig,
    read_keys: frozenset[str] = frozenset(),
    roots: Sequence[bool] | None = None,
    trail_keys: frozenset[str] | None = None,
    beside_checked: bool = False,
) -> VerdictResult:
    """`roots`: per evidence text, whether it is source text (all of it when not given). Source
    text refers to people and places by pronoun as often as by name, so a name missing from it
    counts only when the evidence is otherwise close to the claim; an intermediate output the claim
    was written from (a description, a report, a summary) names what it is about.

    `trail_keys`: every term of every node the trail read for the claim, whole. Judged against
    source text, a claim one of whose names is in none of them is never Fully Supported but
    Inconclusive: the source never says who or what the claim speaks of ("sells his
    counting-house to Fred" where no text read names Fred), yet a name also stands for a
    pronoun or a description the source uses, so it asks for a look rather than flagging. A name
    that is in the source chunk, if not in the sentences selected, is no such name.

    `beside_checked`: every text is only the rest of inputs checked before (a sub-community
    report's cited edges, its other inputs read with its parent's). What the claim says beyond
    them may be in those others, judged in an earlier iteration, so only a contradiction flags;
    otherwise the claim is Inconclusive, its findings named. On a published index with Japanese
    sources, judging such edges as the outputs the claim was written from flagged 4 of its 143
    claims, for names the edges lack ("Japan", "Honshu", "Kinai") (2026-11-28)."""
    kept = [(text, root) for text, root in zip(evidence_texts, roots or [True] * len(evidence_texts), strict=True)]
    texts = [text for text, _ in kept if text.strip()]
    is_root = [root for text, root in kept if text.strip()]
    if not texts:
        return VerdictResult(verdict=Verdict.NOT_FULLY_SUPPORTED, reasoning="no evidence to check against", score=0.0)
    if _not_english(claim_text):
        return _undecided(_NOT_ENGLISH)
    facts = claim_facts(claim_text, texts, config, read_keys, is_root)
    if facts is None:
        return _undecided("the claim has no names, numbers or content words to check")
    verdict, raised = _decision(facts, model, from_source=any(is_root))
    if raised and verdict is not Verdict.FULLY_SUPPORTED and any(is_root) and not all(is_root):
        # A rule fired on the evidence pooled from source text and intermediate outputs read beside
        # it (a sub-community report): when the source text alone supports the claim, that is the
        # verdict, since the source is what a claim is traced to (the paper's traversal unchanged).
        source = [text for text, root in zip(texts, is_root, strict=True) if root]
        alone = claim_facts(claim_text, source, config, read_keys, [True] * len(source))
        if alone is not None and _decision(alone, model, from_source=True)[0] is Verdict.FULLY_SUPPORTED:
            facts, verdict, raised = alone, Verdict.FULLY_SUPPORTED, []
    unread = (
        _unread(facts, trail_keys)
        if verdict is Verdict.FULLY_SUPPORTED and any(is_root) and trail_keys is not None
        else []
    )
    if unread:
        verdict = Verdict.INCONCLUSIVE
    p = model.probability(facts.values)
    gaps = [] if verdict is Verdict.FULLY_SUPPORTED else _gaps(facts.findings)
    reasoning = _reasoning(facts, p, verdict, raised, unread)
    if verdict is Verdict.NOT_FULLY_SUPPORTED and raised and all(_acronym_missing(f) for f in raised):
        verdict = Verdict.INCONCLUSIVE
        reasoning = f"{ACRONYM_ONLY}: {reasoning}"
    if (
        beside_checked
        and verdict is Verdict.NOT_FULLY_SUPPORTED
        and not any(CHECKS[f.kind] in CONTRADICTING for f in raised)
    ):
        verdict = Verdict.INCONCLUSIVE
        reasoning = f"{_ONLY_THE_REST}: {reasoning}"
    return VerdictResult(verdict=verdict, reasoning=reasoning, score=round(p, 4), gaps=gaps)


ACRONYM_ONLY = (
    "an acronym may stand for words its sources spell out (a report defines \"photovoltaic (PV)\" once and "
    "uses PV after), so it is no flag by itself: a reviewer can judge"
)
"""Why a claim whose only missing names are acronyms is Inconclusive. No rule can tell offline
what an acronym stands for, and a report defines one once and uses it alone after while its
sources spell the words out: on the published indexes' top reports 9 of 39 flags were acronyms in
no node read ("PV", "AI", "NLP"), and on the wild dev set none of its 5 was right for that reason
(2026-11-28)."""


def _acronym_missing(finding: Finding) -> bool:
    """Whether the finding is a missing name that is one acronym ("the name 'PV' ...")."""
    if finding.kind != "missing_name":
        return False
    terms = analyze(finding.text).terms
    return len(terms) == 1 and is_acronym(terms[0])


_ONLY_THE_REST = (
    "judged only against the rest of inputs checked before (the others may hold what these lack), so "
    "nothing short of a contradiction flags"
)


def _quoted(terms: Sequence[Term]) -> str:
    return ", ".join(dict.fromkeys(f"'{t.surface}'" for t in terms))


def judge_without_evidence(
    claim_text: str,
    read_keys: frozenset[str],
    from_source: bool,
    records: Sequence[frozenset[str]] = (),
    beside_checked: bool = False,
) -> VerdictResult:
    """A claim none of whose nodes' sentences was selected (`read_keys`: the terms of the nodes
    checked; `from_source`: all of them are source text).

    Not Fully Supported when a name or number it states is in none of those nodes, naming them.
    Inconclusive when the nodes tell of everyone the claim names, in other words than the claim's
    (a report's "underscores the isolation of Scrooge" is nowhere in the novel, Scrooge is
    everywhere): interpretation, which a reviewer judges; likewise a claim that states nothing
    checkable, or one in a language the verifier does not read. Against intermediate outputs (the
    claim was written from them) the words they lack are named as its gaps, unflagged: a fact
    added at that step reads like commentary there. Flagging them was wrong on every such claim
    of real indexes read (2026-11-28: 39 of the fixture index's 112 flags, 4 of the 14 on the top
    10 reports of the published indexes outside the held-out five, the wild dev set's one); it
    caught only the bundled sample's planted orphanage, which `--verifier llm` judges.

    `records`: the names each node checked is the record of (its id's: a relationship's two ends).
    A record that joins two or more of the claim's names, all it names, is close to it whatever its
    words: an index that keeps names in its sources' language ("АСТМА") and describes them in
    English shares no word with a claim about them but those names.

    `beside_checked`: the nodes are the rest of inputs checked in part before (a sub-community
    report's own cited edges, its other inputs read with its parent's); `read_keys` then holds
    every node read for the claim. A name none of them has is still missing, but that the rest
    holds nothing close to the claim is no alarm: the part that may support it was judged before.
    Linking GraphRAG reports to the relationships they cite without this flagged 76 of 143
    claims of a published index whose sources are in Japanese (2026-11-28).

    Names missing that are all acronyms make the claim Inconclusive, not flagged (`ACRONYM_ONLY`)."""
    if _not_english(claim_text):
        return _undecided(_NOT_ENGLISH)
    terms = analyze(claim_text)
    spans = term_spans(claim_text, terms)
    partners = name_partners(terms, claim_text, spans)
    anchors = [t for t in terms.terms if t.kind in ("name", "number")]
    absent = [
        t
        for t in anchors
        if t.key not in read_keys and not any(terms.terms[p].key in read_keys for p in partners.get(t.position, ()))
    ]
    if anchors and not absent and from_source:
        return _undecided(
            f"the source checked tells of {_quoted(anchors)}, but none of its sentences is close enough to the "
            "claim to select: interpretation a reviewer can judge"
        )
    if absent and all(is_acronym(t) for t in absent):
        return _undecided(f"{_quoted(absent)} in none of the nodes checked, but {ACRONYM_ONLY}")
    if absent:
        missing, why = absent, "in no node checked"
        check = CHECKS["missing_number" if all(t.kind == "number" for t in absent) else "missing_name"]
        reasoning = raised_by(check, f"{_quoted(absent)} in none of the nodes checked")
    elif beside_checked:
        return _undecided(f"no sentence of them is close to the claim, but {_ONLY_THE_REST}: a reviewer can judge")
    elif anchors:
        names = {t.key for t in anchors if t.kind == "name"}
        if len(names) >= 2 and any(names <= record for record in records):
            return _undecided(
                f"no sentence is close to the claim, but a record read relates {_quoted(anchors)} in other words: "
                "a reviewer can judge"
            )
        return _written_apart(terms, spans, anchors, read_keys)
    else:
        return _undecided("it names no person, place or number to check: interpretation a reviewer can judge")
    gaps = [
        SupportGap(text=t.surface, start=spans[t.position][0], end=spans[t.position][1], why=why, check=check)
        for t in missing
        if t.position in spans
    ]
    return VerdictResult(verdict=Verdict.NOT_FULLY_SUPPORTED, reasoning=reasoning, score=0.0, gaps=gaps)


def _written_apart(terms: TextTerms, spans: Spans, anchors: Sequence[Term], read_keys: frozenset[str]) -> VerdictResult:
    """Inconclusive: a claim the intermediate outputs it was written from tell nothing close to,
    though they tell of every name it gives. Its words they lack are its gaps, for a reviewer to
    see at once what this step added, with no check named: nothing was flagged."""
    missing = [t for t in terms.terms if t.key not in read_keys]
    why = "in none of the outputs it was written from"
    reasoning = (
        f"the outputs it was written from tell of {_quoted(anchors)}, but no sentence of them is close to it"
        + (f" ({_quoted(missing)} in none of them)" if missing else "")
        + ": interpretation, or a fact added at this step, which a reviewer judges (or --verifier llm)"
    )
    gaps = [
        SupportGap(text=t.surface, start=spans[t.position][0], end=spans[t.position][1], why=why)
        for t in missing
        if t.position in spans
    ]
    return VerdictResult(verdict=Verdict.INCONCLUSIVE, reasoning=reasoning, score=0.5, gaps=gaps)
