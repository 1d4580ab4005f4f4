"""The paper profile's Evidence Selection and verdict prompts: the steps of the paper's appendix C.2,
written for this project.

Evidence Selection breaks the claim into sub-claims in two rounds, gives an overview of the
relevant sentences (or says there are none, which ends the answer), tests each relevant sentence
against its sub-claim as a careful reader would, then submits the selection with a summary. The
verdict clarifies the claim, quotes the relevant sentences (or says there are none), sets aside
conflicting and debatable evidence that cannot be resolved, and reasons from what is left. The
verdict's excerpts carry no kind ("source text", "summary"): the paper shows them alike, each
sentence labelled. Data blocks, their order and the language rule are the compact profile's
(`prompts.py`).
"""

from __future__ import annotations

from collections.abc import Sequence

from veritrail_graphrag.llm.config import PromptProfile
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.llm.request import DATA_RULE, Prompt
from veritrail_graphrag.models import Claim, Excerpt
from veritrail_graphrag.sentences import split_sentences
from veritrail_graphrag.verifiers.llm.labels import SentenceLabels
from veritrail_graphrag.verifiers.llm.prompts import (
    LANGUAGE_RULE,
    evidence_blocks,
    excerpts_then_claim,
    make_prompt,
    one_line,
)
from veritrail_graphrag.verifiers.llm.schemas import MAX_TESTS

_READER = (
    "Read as a careful reader who takes the text as a whole: what it plainly conveys counts even "
    "when it is never said outright (a speaker who describes, with evident pride, the scheme she "
    "founded values it, though she never says so)."
)
_STATEMENTS = (
    'A claim that someone said, reported, found or stressed something ("the minister stressed that '
    'the budget is balanced") is a claim about what that person said or did: text stating the thing '
    "itself, not tied to them, does not establish it. Call this the rule of statements and actions."
)

PAPER_EVIDENCE_SYSTEM = f"""Task: evidence selection.

You are a careful, thorough and exact reader. You are given excerpts from one or more sources, \
each in its own numbered block, and every sentence in them starts with its label in square \
brackets, such as [S4]. You are also given a claim, possibly with sub-claims it breaks into. \
Answer this question: does anything in the excerpts indicate that the claim is true, or that it \
is false?

Rules:
- A claim can break into sub-claims: "the town built a school and a clinic" into "the town built \
a school" and "the town built a clinic". A sentence belongs in the answer when it strongly \
implies that at least one sub-claim is true, or that it is false.
- Only strong implications count, never weak ones. When you cannot tell whether an implication \
is strong or weak, count it.
- {_READER}
- {_STATEMENTS}
- Use nothing but the excerpts: none of your own knowledge, even where you are sure of it.
- Cite labels exactly. Tying information to the wrong sentence is the worst mistake you can make.
- {LANGUAGE_RULE}

Work in four steps, each in its own fields of the answer:
1. "sub_claims": break the claim into sub-claims that cannot be broken any further. Do it in two \
rounds (split the claim, then split each part again) and list the second round. Follow the rule \
of statements and actions, and drop words that cannot be checked ("significant", "extensive", \
"substantial").
2. "overview": go through the excerpts one by one and, in one point per sentence and without \
quoting, say what each sentence that bears on the question says, exactly as strongly as it says \
it (a sentence about a possible improvement is about a possible improvement, not an improvement). \
Add no interpretation and overlook no relevant sentence. Then "relevant": true, or false when no \
sentence bears on the question; when false, stop there: leave every later list empty and every \
later text empty.
3. "tests": for each relevant sentence, or each run of consecutive relevant sentences (at most \
{MAX_TESTS} entries: put neighbouring sentences together), fill in "sentences" (its label or range, \
such as "S4" or "S4-S6"), "sub_claim" (the sub-claim from step 1 it bears on most), "quote" (the \
words one might use to argue that it strongly implies, not necessarily states, that the \
sub-claim is true or false), "context_quote" (words from other sentences needed to understand \
it, or "N/A"), "reading" (how a careful reader who looks for strong implications, a lower bar \
than explicit statements, and takes the sentences as a whole would reason, step by step, ending \
with whether the implication is strong) and "strong" (true or false; true when unsure). Write \
"N/A" where no honest entry can be made: never say a sentence states what it does not.
4. The submission: "selected" (the labels of every sentence whose test found a strong implication; \
ranges of consecutive labels allowed, such as "S5-S10"; an empty list when there are none), \
"context" (the labels of the other sentences needed to understand the selected ones; empty when \
they stand on their own), "summary" (a complete and accurate account of everything the selected \
and context sentences say that bears on any sub-claim, and of how it bears on it; give people, \
organisations and places their full names when the excerpts do; do not quote the sentences, and \
do not say what they imply or whether the claim holds) and "gaps" (what is missing or unclear, \
or "N/A").

{DATA_RULE}

Reply with only a JSON object with these keys, in this order: "sub_claims", "overview", \
"relevant", "tests", "selected", "context", "summary", "gaps"."""

PAPER_VERDICT_SYSTEM = f"""Task: verdict generation.

You are a careful, thorough and exact reader. You are given excerpts from one or more sources, \
each in its own numbered block, and every sentence in them starts with its label in square \
brackets, such as [S4]. You are also given a claim. Answer this question: do the excerpts justify \
the entire claim?

The excerpts justify the entire claim only when they strongly imply that all of it is true: a \
reader who goes through the excerpts closely would reach the whole claim on their own, assuming \
nothing and bringing in nothing from elsewhere. Strong implication is a lower bar than an \
explicit statement, but a weak implication is not enough: that someone worked on several joint \
projects does not justify the claim that they stress how much cooperation matters.

The excerpts do not justify the entire claim in four cases: they contradict a part of it; they \
strongly imply that a part of it is false; a part of it is only weakly implied; or a part of it \
is not addressed at all.

Rules:
- The claim comes from an answer about a set of documents, so "X is mentioned" or "X is \
discussed" speaks of those documents.
- {_STATEMENTS}
- Use nothing but the excerpts: none of your own knowledge.
- {_READER}
- Take the excerpts to hold everything there is to know. Never argue that some other document \
might settle the question: if the claim says that someone led three teams and the excerpts name \
one, they do not justify it. Putting together facts from several excerpts (a list of teams in one, \
who led which in another) is right.
- {LANGUAGE_RULE}

Work through these steps, each in its own field of the answer:
1. "interpretation": whether the claim can be read in more than one way, and if so the readings \
and the one most people would agree with, which you use from then on; the distinct parts that \
must all hold for the claim to hold (such as "worked at (1) the bank and (2) the ministry"); and \
the words in it that cannot be checked ("significant", "extensive").
2. "clarified_claim": the claim as you read it.
3. "relevant_sentences": the sentences that bear on the clarified claim, quoted with their labels, \
without interpretation or judgement; never statements that something is missing; at most the ten \
that matter most. Then "relevant": true, or false when no sentence bears on the claim; when false, \
leave steps 4 to 7 empty and give the verdict "Not Fully Supported".
4. "conflicting_evidence": every conflict (one piece of evidence says that something is true, \
another that it is false), with labels: the possible resolutions, and whether the excerpts \
strongly imply that one is right. If they do, use it from then on; if not, set the conflict \
aside: it cannot decide anything.
5. "debatable_evidence": every piece of evidence that people could reasonably read differently \
(what it means, what it implies for the clarified claim, how strongly), with labels: the \
positions, and whether one is more convincing. If one is, use it; if not, set the point aside.
6. "clear_evidence": the labels of the relevant sentences that steps 4 and 5 did not take up, \
quoted: their meaning and bearing are not in doubt.
7. "reasoning": from the evidence not set aside, and bearing in mind that parts of the clarified \
claim may not be addressed at all, reason step by step, without jumping to the conclusion, about \
whether the excerpts strongly imply the entire claim.
Then "verdict": "Fully Supported" when they justify the entire claim, "Not Fully Supported" when \
they do not, and "Inconclusive" only when all the evidence had to be set aside in steps 4 and 5.

{DATA_RULE}

Reply with only a JSON object with these keys, in this order: "interpretation", \
"clarified_claim", "relevant_sentences", "relevant", "conflicting_evidence", \
"debatable_evidence", "clear_evidence", "reasoning", "verdict"."""


def paper_evidence_prompt(claim: Claim, labels: SentenceLabels) -> Prompt:
    """The compact profile's blocks (one excerpt per node, then the claim and its sub-claims), asked
    as the paper asks."""
    blocks = evidence_blocks(
        claim, labels, "Does anything in the excerpts indicate that the claim is true, or that it is false?"
    )
    return make_prompt(
        CallKind.EVIDENCE_SELECTION,
        blocks,
        labels=len(labels.labelled()),
        system=PAPER_EVIDENCE_SYSTEM,
        profile=PromptProfile.PAPER,
    )


def paper_verdict_prompt(claim: Claim, excerpts: Sequence[Excerpt]) -> Prompt:
    """Each excerpt's sentences labelled S1, S2, ... across the prompt, so that the steps can cite
    them; the excerpts come before the claim, as in the compact profile."""
    numbered: list[str] = []
    label = 0
    for excerpt in excerpts:
        lines = []
        for sentence in split_sentences(excerpt.text) or [excerpt.text]:
            label += 1
            lines.append(f"[S{label}] {one_line(sentence)}")
        numbered.append("\n".join(lines))
    blocks = excerpts_then_claim(numbered, claim)
    blocks.text("Do the excerpts justify the entire claim?")
    return make_prompt(CallKind.VERDICT, blocks, system=PAPER_VERDICT_SYSTEM, profile=PromptProfile.PAPER)
