"""The four prompts of the compact profile, written for this project (see the paper's appendix C.2
for what each must do), and what every profile shares: the decomposition and claim-extraction
prompts, the rule on languages, and how a prompt is put together (`paper_prompts.py` holds the
paper profile's Evidence Selection and verdict; `profiles.py` picks them).

Text that did not come from us (the claim, sentences, excerpts, the answer being audited) goes in
data blocks (`veritrail_graphrag.llm.request`), which the system prompts declare material, never
instructions. Prompts are pure functions of their inputs, so an unchanged batch gives an
unchanged prompt and a cache hit.

Each prompt is laid out for the prompt caches of OpenAI, Azure, vLLM and llama.cpp, which compute
(and bill) a repeated prefix once: the fixed instructions, then the texts that many calls share
(a batch's node texts, the excerpts, the question), then what differs (the claim, its sub-claims,
the target sentence). The shared blocks' tag is derived from the shared texts alone, so two
Evidence Selection calls over one batch (the claims of an answer all start from the same nodes)
agree byte for byte up to the claim.
"""

from __future__ import annotations

from collections.abc import Sequence

from veritrail_graphrag.llm.config import PromptProfile
from veritrail_graphrag.llm.kinds import CallKind
from veritrail_graphrag.llm.request import DATA_RULE, ChatMessage, DataBlocks, Prompt
from veritrail_graphrag.models import Claim, Excerpt
from veritrail_graphrag.verifiers.llm.labels import SentenceLabels
from veritrail_graphrag.verifiers.llm.schemas import answer_schema, max_tokens_for

LANGUAGE_RULE = (
    "The excerpts may be written in another language than the claim (a report in English over "
    "sources in Chinese, or the other way round). Judge them by what they mean, not by their "
    "wording: a sentence that says the same thing in another language counts exactly as one in the "
    "claim's language, and a sentence that shares the claim's names but says something else is no "
    "support."
)
"""The method is language-agnostic: both profiles tell Evidence Selection and the verdict so."""

DECOMPOSITION_SYSTEM = f"""Task: sub-claim decomposition.

You split a claim into simpler statements so that each one can be checked on its own against \
source documents.

Rules:
- Each part is a complete, self-contained statement: replace pronouns and vague references with \
the names they stand for in the claim.
- Together the parts say everything the claim says and nothing more. Do not add facts, causes or \
qualifications the claim does not state.
- Keep attributions: when the claim says that someone reported, found, argued or stressed \
something, every part derived from it keeps that attribution.
- Split lists and conjunctions into one part per item when each item can be true or false on \
its own.
- When the claim is already one simple statement, return it unchanged as the only part.

{DATA_RULE}

Reply with only a JSON object: {{"parts": ["...", "..."]}}."""

CLAIM_EXTRACTION_SYSTEM = f"""Task: claim extraction.

You read one target sentence of an answer that a system wrote in reply to a question, and turn \
it into factual claims that can be checked against the documents the answer was based on. The \
question and the sentences around the target are context only: extract claims from the target \
sentence alone.

Work in three steps.
1. Selection. Decide whether the target sentence contains verifiable content: a statement about \
what is, was or will be the case, or about what someone said or did. Opinions, advice, \
speculation, headings, transitions and remarks about the answer itself are not verifiable. When \
only part of the sentence is verifiable, keep only that part.
2. Disambiguation. Look for references a reader could not resolve from the sentence alone \
(pronouns, "this approach", "the company") and for wording that allows several readings. Resolve \
them with the question and the surrounding sentences. If a careful reader still could not tell \
which reading is meant, the sentence cannot be disambiguated and yields no claims.
3. Decomposition. Rewrite the kept, disambiguated content as a list of claims. Each claim states \
one fact, names its entities in full and can be understood without the answer, the question or \
the other claims. Keep attributions ("According to the report, ...") and hedges that change the \
meaning ("may", "about"). Leave out citation markers such as "[Data: Reports (2, 7)]". Add nothing \
the sentence does not say.

{DATA_RULE}

Reply with only a JSON object with these keys, in this order: "selection" (your reasoning for \
step 1), "has_verifiable_content" (true or false), "disambiguation" (your reasoning for step 2), \
"can_be_disambiguated" (true or false), "claims" (the claims from step 3; an empty list when \
either answer above is false)."""

EVIDENCE_SELECTION_SYSTEM = f"""Task: evidence selection.

You are given a claim, possibly with sub-claims it breaks into, and sentences from one or more \
excerpts. Each sentence starts with a label in square brackets, such as [S4]. Find every \
sentence that strongly implies that the claim, or at least one of its sub-claims, is true, or \
that it is false.

Standards:
- Strong implication: a careful reader who takes the excerpt as a whole, including what it \
clearly conveys without spelling it out, would conclude that the (sub-)claim is true, or that it \
is false. Weak hints and shared topics do not count. When you are unsure whether an implication \
is strong or weak, include the sentence.
- A claim of the form "X says / reports / found / emphasizes / argues Y" is a claim about what X \
said or did. A sentence stating Y without tying it to X does not strongly imply it; a sentence \
in which X states or does Y does.
- Use only what the excerpts say. Do not use your own knowledge of the world, even when you are \
sure it is right.
- Cite labels exactly as they appear; consecutive labels may be given as a range such as \
"S3-S7". Citing the wrong sentence is worse than missing one.
- Some selected sentences can only be understood together with another sentence (one that says \
who "he" is, or which region a table row is about). List those other sentences as context.
- {LANGUAGE_RULE}

Method: first break the claim into the smallest independent sub-claims, leaving out vague \
qualifiers such as "significant" or "extensive" that cannot be checked. Then go through the \
sentences, note what each relevant one says about which sub-claim, and decide whether the \
implication is strong.

The summary describes, accurately and without speculation, everything the selected and context \
sentences say that bears on the claim, and how it bears on it. It will be read without the \
sentences, so always give people, organisations and places their full names when the sentences \
provide them. Do not just quote the sentences and do not state a conclusion about the claim.

{DATA_RULE}

Reply with only a JSON object with these keys, in this order: "sub_claims" (the sub-claims you \
checked), "review" (your notes on the relevant sentences), "selected" (labels of sentences with a \
strong implication; an empty list if none), "context" (labels of sentences needed to understand \
the selected ones; may be empty), "summary" (the summary described above; an empty string when \
nothing is selected), "gaps" (what is missing or unclear, or "N/A")."""

VERDICT_SYSTEM = f"""Task: verdict generation.

You are given a claim and numbered excerpts from one or more sources. An excerpt is either \
original source text or a summary of evidence found in an intermediate document. Decide whether \
the excerpts justify the entire claim.

They justify the entire claim only when they strongly imply that every part of it is true: a \
careful reader would arrive at the whole claim from the excerpts alone, without assumptions and \
without outside information. Strong implication is a lower bar than an explicit statement, but a \
weak implication is not enough. The claim is not justified when the excerpts contradict a part \
of it, imply that a part is false, only weakly imply a part, or do not address a part.

Rules:
- The claim comes from an answer about a collection of documents, so "X is mentioned" or "X is \
discussed" means mentioned or discussed in those documents.
- "X says / reports / found / emphasizes Y" is a claim about what X said or did: evidence for Y \
that is not tied to X does not justify it.
- Use no knowledge beyond the excerpts.
- Read as a careful reader would, taking the text as a whole: what it clearly conveys counts even \
when it is not spelled out.
- Treat the excerpts as complete. Do not argue that another document might settle the question: \
if the excerpts support only part of the claim (one team where the claim says three), the claim \
is not justified. Combining facts from several excerpts is allowed.
- {LANGUAGE_RULE}

Before deciding, work through these steps:
1. Interpretation: list the plausible readings of the claim, pick the one most readers would \
agree with, and list the parts that must all hold. Note vague words that cannot be checked.
2. Relevant evidence: what the excerpts say that bears on the claim, citing excerpt numbers.
3. Conflicting evidence: where excerpts disagree, say whether they clearly favour one resolution; \
if they do not, set that point aside.
4. Debatable evidence: where people could reasonably read the evidence differently, say whether \
one reading is clearly more convincing; if none is, set that point aside.
5. Clear evidence: the remaining evidence, whose meaning is not in doubt.
6. Decision: reason step by step from the evidence you kept to the verdict.

Verdicts:
- "Fully Supported": the evidence you kept strongly implies the entire claim.
- "Not Fully Supported": some part of the claim is contradicted, implied false, only weakly \
implied or not addressed.
- "Inconclusive": only when every relevant piece of evidence had to be set aside in steps 3 and \
4, so the excerpts cannot settle the claim either way. Missing evidence is not a reason for \
"Inconclusive": it makes the claim "Not Fully Supported".

{DATA_RULE}

Reply with only a JSON object with these keys, in this order: "interpretation", \
"relevant_evidence", "conflicting_evidence", "debatable_evidence", "clear_evidence", \
"reasoning", "verdict" (exactly one of "Fully Supported", "Not Fully Supported", \
"Inconclusive")."""

SYSTEM_PROMPTS: dict[CallKind, str] = {
    CallKind.CLAIM_EXTRACTION: CLAIM_EXTRACTION_SYSTEM,
    CallKind.DECOMPOSITION: DECOMPOSITION_SYSTEM,
    CallKind.EVIDENCE_SELECTION: EVIDENCE_SELECTION_SYSTEM,
    CallKind.VERDICT: VERDICT_SYSTEM,
}


def one_line(text: str) -> str:
    return " ".join(text.split())


def make_prompt(
    kind: CallKind,
    blocks: DataBlocks,
    labels: int | None = None,
    *,
    system: str | None = None,
    profile: PromptProfile = PromptProfile.COMPACT,
) -> Prompt:
    """The system prompt (this kind's compact one unless given), the data blocks, and the answer
    schema of `profile` with its token cap."""
    schema = answer_schema(kind, labels=labels, profile=profile)
    return Prompt(
        kind=kind,
        messages=(
            ChatMessage(role="system", content=system or SYSTEM_PROMPTS[kind]),
            ChatMessage(role="user", content=blocks.render()),
        ),
        answer_schema=schema,
        max_tokens=max_tokens_for(schema),
    )


def decomposition_prompt(claim_text: str) -> Prompt:
    blocks = DataBlocks()
    blocks.text("Split this claim into simpler statements:")
    blocks.block("claim", claim_text)
    return make_prompt(CallKind.DECOMPOSITION, blocks)


def claim_extraction_prompt(
    target: str, preceding: Sequence[str], following: Sequence[str], question: str | None, answer: str = ""
) -> Prompt:
    """`answer`: the whole answer the target sentence comes from; its extraction prompts share the
    question's block byte for byte."""
    blocks = DataBlocks(seal="\x00".join([question or "", answer]))
    if question and question.strip():
        blocks.text("The question the answer replies to:")
        blocks.block("question", question)
    else:
        blocks.text("No question was given.")
    blocks.text("Sentences of the answer before the target sentence:")
    blocks.block("preceding", "\n".join(preceding) or "(none: the target is the first sentence)")
    blocks.text("The target sentence:")
    blocks.block("target", target)
    blocks.text("Sentences of the answer after the target sentence:")
    blocks.block("following", "\n".join(following) or "(none: the target is the last sentence)")
    blocks.text("Extract the claims of the target sentence.")
    return make_prompt(CallKind.CLAIM_EXTRACTION, blocks)


def excerpts_then_claim(excerpts: Sequence[str], claim: Claim, kinds: Sequence[str] | None = None) -> DataBlocks:
    """Each excerpt in its numbered block (with its kind, when given), then the claim: texts that
    many calls share come first, and the blocks' tag is derived from them alone (the layout prompt
    caches reuse)."""
    blocks = DataBlocks(seal="\x00".join(excerpts))
    blocks.text("The excerpts:")
    for number, excerpt in enumerate(excerpts, start=1):
        blocks.block(f"excerpt {number}", excerpt, kinds[number - 1] if kinds else None)
    blocks.text("The claim:")
    blocks.block("claim", claim.text)
    return blocks


def evidence_blocks(claim: Claim, labels: SentenceLabels, question: str) -> DataBlocks:
    """Sentences are grouped into one excerpt per node, in the order the engine gave them (the
    DAG's, the same for every claim that reads the batch), and come before the claim, its
    sub-claims and `question`."""
    groups: list[list[str]] = []
    last_node: str | None = None
    for label, sentence in labels.labelled():
        if sentence.node_id != last_node:
            groups.append([])
            last_node = sentence.node_id
        groups[-1].append(f"[{label}] {one_line(sentence.text)}")
    blocks = excerpts_then_claim(["\n".join(lines) for lines in groups], claim)
    if claim.sub_claims:
        blocks.text("Sub-claims it breaks into (some may be broken down further):")
        blocks.block("sub-claims", "\n".join(f"- {one_line(s)}" for s in claim.sub_claims))
    blocks.text(question)
    return blocks


def evidence_prompt(claim: Claim, labels: SentenceLabels) -> Prompt:
    blocks = evidence_blocks(
        claim, labels, "Which sentences strongly imply that the claim or one of its sub-claims is true, or false?"
    )
    return make_prompt(CallKind.EVIDENCE_SELECTION, blocks, labels=len(labels.labelled()))


def verdict_prompt(claim: Claim, excerpts: Sequence[Excerpt]) -> Prompt:
    """The excerpts come before the claim: roots shown in full are the same for every claim traced to them."""
    kinds = ["source text" if e.is_root else "summary of evidence from an intermediate document" for e in excerpts]
    blocks = excerpts_then_claim([excerpt.text for excerpt in excerpts], claim, kinds)
    blocks.text("Do the excerpts justify the entire claim?")
    return make_prompt(CallKind.VERDICT, blocks)
