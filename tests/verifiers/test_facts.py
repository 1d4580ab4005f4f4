"""The offline facts verifier (the default): what it lets pass, what it catches, what it names,
and its shipped weights (fitted by `benchmarks/fit_facts.py`; its benchmark figures are
`veritrail eval`'s)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag.dag import DAG, Node
from veritrail_graphrag.engine import VeriTrail
from veritrail_graphrag.errors import VerifierConfigError
from veritrail_graphrag.models import Claim, Excerpt, Sentence, TrailConfig, Verdict
from veritrail_graphrag.verifiers.facts import model as facts_model
from veritrail_graphrag.verifiers.facts.features import FEATURES, claim_facts
from veritrail_graphrag.verifiers.facts.judge import judge_facts, judge_without_evidence
from veritrail_graphrag.verifiers.facts.model import shipped_model
from veritrail_graphrag.verifiers.facts.verifier import FactsVerifier
from veritrail_graphrag.verifiers.lexical import LexicalConfig
from veritrail_graphrag.verifiers.lexical.text import analyze

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_runs" / "handwritten-hierarchical" / "dag.json"
CHUNK = (
    "Mara Voss, the miller's daughter, proposed a ferry to carry grain across the river. "
    "The parish council rejected her plan twice. Dr. Ellis, the council's chairman, argued that a "
    "ferry would be unsafe in the spring floods."
)
runner = CliRunner()


async def judge(claim: str, *texts: str, is_root: bool = True):
    excerpts = [Excerpt(node_id=f"n{i}", text=t, is_root=is_root) for i, t in enumerate(texts)]
    return await FactsVerifier().judge(Claim(id="c1", text=claim), excerpts)


def trace(text: str):
    return VeriTrail(FactsVerifier(), TrailConfig(q=1)).verify(DAG.from_json(SAMPLE), Claim(id="c1", text=text))


async def atrace(text: str):
    return await VeriTrail(FactsVerifier(), TrailConfig(q=1)).averify(DAG.from_json(SAMPLE), Claim(id="c1", text=text))


@pytest.mark.parametrize(
    "claim",
    [
        "After the bridge at Harwick fell in 1911, Mara Voss suggested running a ferry.",
        "Mara later donated her boat to the museum of the village.",
        "Within a month the ferry was carrying forty sacks of grain daily.",
    ],
)
def test_paraphrases_of_the_sample_are_fully_supported(claim: str) -> None:
    assert trace(claim).verdict is Verdict.FULLY_SUPPORTED


@pytest.mark.parametrize(
    ("claim", "named"),
    [
        ("In 1912 the old stone bridge collapsed.", "1912"),  # a number
        ("The parish council did not reject her plan.", None),  # a denial the source does not make
        ("Dr. Ellis, the council's chairman, said a ferry would be safe in the spring floods.", "safe"),
    ],
)
def test_a_changed_fact_is_not_fully_supported_and_named(claim: str, named: str | None) -> None:
    result = trace(claim)
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED, result.reasoning
    assert result.error_stages
    if named is not None:
        assert named in [gap.text for gap in result.gaps]
        gap = next(g for g in result.gaps if g.text == named)
        assert claim[gap.start : gap.end] == named


def test_a_name_its_evidence_lacks_asks_for_a_look_and_is_named() -> None:
    # a missing name no longer flags (issue 39): on real indexes most such flags were true claims
    # naming what the sentences read do not spell out; Inconclusive, with the name marked
    claim = "Mara Voss proposed a ferry to carry grain across the Severn."
    result = trace(claim)
    assert result.verdict is Verdict.INCONCLUSIVE, result.reasoning
    gap = next(g for g in result.gaps if g.text == "Severn")
    assert claim[gap.start : gap.end] == "Severn"


def test_a_name_and_the_word_it_qualifies_both_missing_flag() -> None:
    """ "the Severn river" where no node read names the Severn or any river: the whole phrase is
    the claim's own, not a name the sentences read happen not to spell out."""
    result = trace("Mara Voss proposed a ferry to carry grain across the Severn river.")
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED, result.reasoning
    assert "neither 'Severn' nor 'river' next to it is in the nodes read" in result.reasoning


def test_a_name_no_output_it_was_written_from_holds_flags_when_little_else_is_there() -> None:
    """Against the outputs a claim was written from, a name none of them holds flags when most of
    the claim is missing too (P below `UNNAMED_BELOW`); when the rest is there, it asks for a look.
    Against source text, which names people and places less, it never flags on its own."""
    selected = "Mara Voss ran a ferry after the bridge collapsed, and the council paid for a rope."
    read = analyze(selected).key_set

    def verdict(claim: str, source: bool):
        return judge_facts(claim, [selected], shipped_model(), LexicalConfig(), read, [source])

    invented = verdict("Mara Voss later opened a bakery for the orphaned children of Kettering.", source=False)
    assert invented.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert invented.reasoning.startswith("missing name check: the name 'Kettering' is not in the evidence")
    close = "Mara Voss ran the ferry to Kettering after the bridge collapsed."
    assert verdict(close, source=False).verdict is Verdict.INCONCLUSIVE
    assert verdict(close, source=True).verdict is Verdict.INCONCLUSIVE


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        ("Mara Voss argued that a ferry would be unsafe in the spring floods.", "'argued' of 'Ellis', not of 'Voss'"),
        ("Dr. Ellis, the miller's daughter, proposed a ferry to carry grain.", "'miller's' of 'Voss', not of 'Ellis'"),
    ],
)
async def test_a_word_said_of_another_name_asks_for_a_look(claim: str, said: str) -> None:
    """What the source says of one named person, credited to another, is never a flag: the source
    names the claim's subject by a pronoun or another name as often ("she arrives home late" of
    Martha). Against source text a reviewer looks, with the sentence quoted; against an output the
    claim was written from it raises no flag, so that the trail goes on to the source."""
    result = await judge(claim, CHUNK)
    assert result.verdict is Verdict.INCONCLUSIVE
    assert result.reasoning.startswith("a word of the claim is said of another name"), result.reasoning
    assert f'credited to another check: the evidence says {said}; the evidence says: "' in result.reasoning
    assert "credited to another" in {gap.check for gap in result.gaps}
    assert (await judge(claim, CHUNK, is_root=False)).verdict is not Verdict.NOT_FULLY_SUPPORTED
    assert await judge("Mara Voss proposed a ferry to carry grain.", CHUNK) == await judge(
        "Mara Voss proposed a ferry to carry grain.", CHUNK
    )
    assert (await judge("Mara Voss proposed a ferry to carry grain.", CHUNK)).verdict is Verdict.FULLY_SUPPORTED


async def test_one_word_swapped_is_inconclusive_with_both_words_named() -> None:
    """A word where the source has another is a changed fact as often as a synonym: a reviewer
    looks, and the reason says which words."""
    result = await judge("Mara Voss was the blacksmith's daughter.", CHUNK)
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "'miller's' where the claim says 'blacksmith's'" in result.reasoning
    assert [gap.text for gap in result.gaps] == ["blacksmith's"]


REPORT = (
    "Caroline is depicted as a mild and patient woman. "
    "Caroline's husband is portrayed as a young, careworn man who owes money to a merciless creditor."
)


@pytest.mark.parametrize(
    ("claim", "reversed_", "copied"),
    [
        ("Caroline's husband is portrayed as an old, careworn man.", "old", "young"),
        ("Caroline is depicted as a mild and impatient woman.", "impatient", "patient"),
    ],
)
async def test_an_opposite_put_into_a_copied_sentence_is_a_contradiction(
    claim: str, reversed_: str, copied: str
) -> None:
    """A claim that copies a sentence of an intermediate output with an opposite in it contradicts
    it; the gap is the claim's word and the reason names the copied one."""
    result = await judge(claim, REPORT, is_root=False)
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED, result.reasoning
    assert f"says '{copied}' where the claim says '{reversed_}'" in result.reasoning
    gap = result.gaps[0]
    assert gap.text == reversed_ and claim[gap.start : gap.end] == reversed_


@pytest.mark.parametrize(
    ("claim", "evidence", "said"),
    [
        (
            "In the last chapter of the novel, Caroline's gentle husband is an old man who lives quietly on "
            "the farm near the river.",
            "Caroline's husband was a young man, whom the neighbours met at the market every week and greeted "
            "warmly in the town square.",
            "says 'young' where the claim says 'old'",
        ),
        (
            "In the last chapter of the novel, Caroline is shown as a mild and impatient woman who lives "
            "quietly on the farm near the river.",
            "Caroline, whom the neighbours met at the market every week and greeted warmly, was then a mild and "
            "patient woman in her prime of life.",
            "says 'patient' where the claim says 'impatient'",
        ),
    ],
)
async def test_an_opposite_between_two_anchors_counts_in_a_sentence_the_claim_does_not_copy(
    claim: str, evidence: str, said: str
) -> None:
    """A long claim shares a few words with a long sentence, too few for a copy, and an opposite
    stands between two of them: listed ("young" / "old") or made by a prefix ("patient" /
    "impatient"). Such sentences are aligned although no copy is possible (issue 41 skips the
    others)."""
    result = await judge(claim, evidence, is_root=False)
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED, result.reasoning
    assert f"copied sentence turned around check: the sentence the claim copies {said}" in result.reasoning


async def test_a_synonym_in_a_copied_sentence_or_an_opposite_elsewhere_is_no_contradiction() -> None:
    """A synonym is how copies are reworded; an opposite in another sentence of a source, not in
    the place of the word the claim changed, is no contradiction by itself."""
    synonym = await judge("Caroline's husband is depicted as a young, careworn man.", REPORT, is_root=False)
    assert synonym.verdict is not Verdict.NOT_FULLY_SUPPORTED
    source = "The young clerk laughed at the door. Caroline's husband came home careworn, a man of few words."
    elsewhere = await judge("Caroline's husband is portrayed as an old, careworn man.", source, is_root=True)
    assert elsewhere.verdict is not Verdict.NOT_FULLY_SUPPORTED, elsewhere.reasoning


@pytest.mark.parametrize(
    ("claim", "copied", "said"),
    [
        (
            "Mara Voss carried the sacks from the mill before the flood.",
            "Mara Voss carried the sacks to the mill before the flood.",
            "says 'sacks to the mill' where the claim says 'sacks from the mill'",
        ),
        (
            "The school is quite deserted, with a solitary child left there in the holidays.",
            "It is not quite deserted, with a solitary child left there.",
            "says 'not deserted' where the claim says 'deserted'",
        ),
        (
            "Caroline's husband is portrayed as an old, carefree man.",
            "Caroline's husband is a young, careworn man who brings news of the creditor's death, which "
            "alleviates the family's financial distress.",
            "says 'young careworn' where the claim says 'old'",
        ),
        (
            "Tiny Tim is the eldest child of the Cratchit family.",
            "Tiny Tim is the youngest child of the Cratchit family.",
            "says 'youngest' where the claim says 'eldest'",
        ),
        (
            "Scrooge visits Marley on Christmas Eve.",
            "Marley visits Scrooge on Christmas Eve.",
            "says 'Marley visits Scrooge' where the claim says 'Scrooge visits Marley'",
        ),
    ],
)
async def test_a_copy_turned_around_is_a_contradiction(claim: str, copied: str, said: str) -> None:
    """A word of direction turned around, a denial dropped, an opposite between the same two words
    of a sentence the claim otherwise rewrites, a superlative reversed, who does what to whom."""
    result = await judge(claim, copied, is_root=False)
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED, result.reasoning
    assert said in result.reasoning


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        (  # an idiom turns "in" into "out" and reverses nothing
            "The Lippincott Company operates out of Philadelphia.",
            ["The Lippincott Company, a publisher based in Philadelphia, printed this edition."],
        ),
        (  # the denial is in another sentence, about another thing
            "Marley's haunting raised the potential for the Ward to indict Marley's ghost.",
            [
                "Marley's lamentations about not raising his eyes to the Star reinforce the themes.",
                "The potential for the Ward to indict Marley's ghost for its haunting highlights public order.",
            ],
        ),
        (  # "no" denies the sword, not the rust
            "The antique scabbard worn by the spirit is rusted.",
            ["The antique scabbard is worn by the spirit, as it contains no sword and is rusted."],
        ),
        (  # the passive voice turns the names around, not the meaning
            "Marley's ghost visits Scrooge on Christmas Eve.",
            ["Scrooge is visited by Marley's ghost on Christmas Eve."],
        ),
        (
            "Plenty's horn shapes the torch of the Ghost of Christmas Present.",
            ["The Ghost of Christmas Present's torch is shaped like Plenty's horn."],
        ),
        (  # the same names around the same word in another construction
            "Fred embodies the spirit of Christmas for Scrooge.",
            ["Scrooge sees the Christmas spirit in Fred."],
        ),
        (  # a denial with an exception asserts the exception
            "They always spent Christmas in Belgravia.",
            ["We never spent Christmas anywhere other than Belgravia."],
        ),
        (  # a name the claim shares with a sentence does not make it a copy of it
            "Tiny Tim cared deeply for his family.",
            ["Tiny Tim drank it last of all, but he didn't care twopence for it."],
        ),
        (  # a sentence as close to the claim says it plainly
            "Scrooge attended the second meeting of the council.",
            [
                "Scrooge did not attend the meeting of the council.",
                "Scrooge attended the second meeting of the council.",
            ],
        ),
    ],
)
async def test_a_turn_that_is_an_idiom_or_another_sentence_is_no_contradiction(claim: str, evidence: list[str]) -> None:
    result = await judge(claim, *evidence, is_root=False)
    assert result.verdict is not Verdict.NOT_FULLY_SUPPORTED, result.reasoning


async def test_a_claim_that_joins_two_sentences_and_drops_a_denial_is_a_contradiction() -> None:
    """A summary often joins two sentences of its input into one; a denial it drops there is
    dropped all the same. A word shared with the other sentence in another sense is not."""
    source = (
        "What good had it ever done to him? 'The school is not quite deserted,' said the Ghost. "
        "'A solitary child, neglected by his friends, is left there still.'"
    )
    claim = "The school is described as quite deserted, with a solitary child often left there during holidays."
    result = await judge(claim, source, is_root=True)
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED, result.reasoning
    assert "says 'not deserted' where the claim says 'deserted'" in result.reasoning
    other_sense = (
        "The Ghost of Jacob Marley laments not raising his eyes to the blessed Star. "
        "The Ghost made such a noise that the Ward could have indicted Marley's ghost for it."
    )
    raised = await judge("Marley's haunting raised the potential for the Ward to indict Marley's ghost.", other_sense)
    assert "the sentence the claim copies" not in raised.reasoning, raised.reasoning
    for claim, source in [  # a denial of more than the claim says, and "not ... until", which dates
        (
            "The company reported a loss in 2020 and cut jobs in March.",
            "The company did not report a profit in 2020. It cut jobs in March.",
        ),
        (
            "The bridge was rebuilt in 1920, and then the ferry stopped running.",
            "The bridge was not rebuilt until 1920. Then the ferry stopped running.",
        ),
        (  # a verb that denies says what "not" says
            "The team avoided relegation on the last day by beating Leeds 2-1.",
            "The team was not relegated. On the last day it beat Leeds 2-1.",
        ),
        (  # the claim denies the object instead
            "The ministry issued no statement on the leak, and the minister resigned the next morning.",
            "The ministry did not issue a statement on the leak, despite requests from reporters. The minister "
            "resigned the next morning.",
        ),
        (  # the denial is of someone else
            "United lifted the league title that season, with City second behind them on goal difference.",
            "City, despite spending heavily, did not lift the league title that season. They finished second to "
            "United on goal difference.",
        ),
    ]:
        result = await judge(claim, source, is_root=True)
        assert "the sentence the claim copies" not in result.reasoning, result.reasoning
    until_elsewhere = await judge(  # "until" in another clause dates nothing the denial says
        "The company reported a profit, and it froze hiring until March.",
        "The company did not report a profit, and it froze hiring until March.",
        is_root=True,
    )
    assert "says 'not report a profit'" in until_elsewhere.reasoning, until_elsewhere.reasoning
    dated = await judge(  # a year in the denial is the claim's year too
        "The band toured in 2005, and they recorded an album in Berlin.",
        "The band did not tour in 2005. They recorded an album in Berlin.",
        is_root=True,
    )
    assert "says 'not tour" in dated.reasoning, dated.reasoning


@pytest.mark.parametrize(
    ("claim", "copied", "found"),
    [
        (
            "Marley's ghost is burdened by the chain Scrooge forged for him.",
            "Marley's ghost is burdened by the chain he forged in life.",
            "says 'he (Marley)' where the claim says 'Scrooge'",
        ),
        ("There, Scrooge sees Tiny Tim at the table.", "Scrooge walks in. There, he sees Tiny Tim at the table.", None),
        (
            "Tonight Scrooge sees Tiny Tim at the table.",
            "Scrooge walks in. Tonight he sees Tiny Tim at the table.",
            None,
        ),
        ("Belle tells Scrooge that Scrooge has changed.", "Belle tells Scrooge that he has changed.", None),
        (  # two people before "he": which one is meant, words cannot tell
            "Belle releases Scrooge because Ebenezer loves gold more than her.",
            "Ebenezer Scrooge is a miser. Belle releases Scrooge because he loves gold more than her.",
            None,
        ),
        (  # another name of the same person
            "Marley's ghost is burdened by the chain Jacob forged in life.",
            "Jacob Marley died. Marley's ghost is burdened by the chain he forged in life.",
            None,
        ),
        (  # the sentence opens on a place: "he" is the man named before
            "At Microsoft, Sinofsky led the Windows team until 2012.",
            "Steven Sinofsky joined the company in 1989. At Microsoft, he led the Windows team until 2012.",
            None,
        ),
        (  # a kin before "he" may be whom it stands for
            "Fred invites his uncle, and Scrooge refuses.",
            "Scrooge is a miser. Fred invites his uncle, and he refuses.",
            None,
        ),
        (  # a new clause: "he" is the assistant
            "Marie Curie hired a young assistant, and Debierne later discovered actinium in her laboratory.",
            "Debierne was the assistant. Marie Curie hired a young assistant, and he later discovered actinium in her "
            "laboratory.",
            None,
        ),
        (
            "General Motors grew into the largest carmaker after Sloan took over as president in 1923.",
            "Alfred Sloan ran General Motors. General Motors grew into the largest carmaker after he took over as "
            "president in 1923.",
            None,
        ),
    ],
)
async def test_a_name_put_for_a_pronoun_of_someone_else_is_a_contradiction(
    claim: str, copied: str, found: str | None
) -> None:
    """Where a copied sentence says "he" of a name it gave before, a claim that puts another name
    there credits someone else; a pronoun with no name before it in its sentence points further
    back, and a name the sentence has is a restatement."""
    result = await judge(claim, copied, is_root=False)
    if found is None:
        assert result.verdict is Verdict.FULLY_SUPPORTED, result.reasoning
    else:
        assert result.verdict is Verdict.NOT_FULLY_SUPPORTED and found in result.reasoning, result.reasoning


@pytest.mark.parametrize(
    ("claim", "evidence", "found"),
    [
        (
            "Tiny Tim is depicted as the eldest and most vulnerable member of the Cratchit family.",
            "Tiny Tim is the youngest child of Bob and Mrs. Cratchit. He is loved by all the family.",
            "the evidence says 'youngest' of 'Tiny Tim' where the claim says 'eldest'",
        ),
        (
            "Fan is Scrooge's younger brother, who brings him home from school.",
            "Fan is the younger sister of Scrooge. She takes him home for Christmas.",
            "the evidence says 'sister' of 'Fan' where the claim says 'brother'",
        ),
        (  # the youngest is said of Tiny Tim, not of Martha
            "Martha Cratchit is depicted as the eldest daughter of Bob and Mrs. Cratchit.",
            "Tiny Tim is the youngest child of Bob and Mrs. Cratchit.",
            None,
        ),
        (  # the claim says both
            "Bob Cratchit is depicted as a devoted father and husband of his family.",
            "Bob Cratchit's wife and Tiny Tim, his son, are his family.",
            None,
        ),
        ("Scrooge is the uncle of Fred.", "Fred is the nephew of Scrooge and invites him to dinner.", None),
        ("The Queen is the mother of the Prince.", "The Prince is the son of the Queen.", None),
        ("Scrooge was Fezziwig's apprentice.", "Fezziwig was the master of young Scrooge.", None),
        (
            "Bob Cratchit is a devoted father.",
            "Bob Cratchit is the husband of Mrs. Cratchit and loves his children.",
            None,
        ),
        ("Scrooge is an old man.", "Young Scrooge sits alone reading.", None),  # the same man, years apart
        ("Tiny Tim is not the eldest.", "Tiny Tim is the youngest child of Bob.", None),
        (  # another person of the same family name
            "Venus Williams is the older sister of Serena Williams.",
            "Serena Williams is the younger sister of Venus Williams and has won 23 titles.",
            None,
        ),
        (
            "Pierre Curie and his wife Marie shared the prize.",
            "Marie Curie and her husband Pierre shared the prize.",
            None,
        ),
        ("Aristotle was a student of Plato.", "Aristotle, the teacher of Alexander, was taught by Plato.", None),
        (  # a verb is no kin
            "Cynthia Lennon is the mother of Julian Lennon.",
            "John Lennon fathered Julian Lennon with his first wife Cynthia.",
            None,
        ),
        (  # "sister" is said of Leia, whatever name stands nearest before it
            "Luke Skywalker is the son of Darth Vader and the brother of Leia.",
            "Leia is the daughter of Darth Vader and the twin sister of Luke Skywalker.",
            None,
        ),
        (  # the owner's whole name is the other end of the relation
            "Ebenezer Scrooge is the brother of Fan, who brings him home from school.",
            "Fan is Ebenezer Scrooge's younger sister. She brings him home from school for Christmas.",
            None,
        ),
        (  # "whose" makes the wife another's
            "Pierre Curie was the husband of Marie Curie and died in a street accident in 1906.",
            "Pierre Curie, whose wife Marie shared the prize, died in a street accident in 1906.",
            None,
        ),
        (  # a plural is a group
            "Branwell was the only Bronte brother and worked as a portrait painter.",
            "The Bronte sisters Charlotte, Emily and Anne wrote novels. Branwell worked as a portrait painter.",
            None,
        ),
        (  # a comparison depends on what it compares with
            "Harvard is older than Yale, which was founded in 1701.",
            "Harvard is younger than Oxford and Cambridge. Yale was founded in 1701, decades after it.",
            None,
        ),
    ],
)
async def test_another_age_or_kin_said_of_the_same_name_is_a_contradiction(
    claim: str, evidence: str, found: str | None
) -> None:
    """An intermediate output that says of the name a claim's word is said of another place in age
    or the other gender of a kin contradicts it, though it words the rest otherwise; said of
    someone else, of no name, or by a verb, it does not; nor roles, which one person holds at once."""
    result = await judge(claim, evidence, is_root=False)
    if found is None:
        assert result.verdict is not Verdict.NOT_FULLY_SUPPORTED, result.reasoning
    else:
        assert result.verdict is Verdict.NOT_FULLY_SUPPORTED and found in result.reasoning, result.reasoning


async def test_another_age_in_source_text_is_no_contradiction_on_its_own() -> None:
    """Source text tells of many people under one name ("the youngest Cratchits" at dinner)."""
    source = "Yet every one had had enough, and the youngest Cratchits were steeped in sage and onion."
    result = await judge("Peter Cratchit, the eldest son, wore his father's collar.", source, is_root=True)
    assert not result.reasoning.startswith("opposite said of the same person"), result.reasoning
    assert "'youngest' of" not in " ".join(gap.why for gap in result.gaps)


async def test_a_source_sentence_the_claim_copies_is_compared_too() -> None:
    """A summary lifts phrases of its source as a report copies a description."""
    source = "Sign up for a package with a minimum purchase of $3,000 and get 15% off."
    claim = "Customers who sign up for a package with a maximum purchase of $3,000 get 15% off."
    result = await judge(claim, source, is_root=True)
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert "says 'minimum' where the claim says 'maximum'" in result.reasoning
    supposing = "If you do not agree to the terms of the Project Gutenberg license, you must stop."
    agreed = await judge("Distributors follow the agreement of the Project Gutenberg license.", supposing, is_root=True)
    assert "the sentence the claim copies" not in agreed.reasoning  # a denial in an "if" clause supposes
    wrapped = (
        "If you paid a fee for a copy of a\nProject Gutenberg electronic work and you do not agree to be\nbound by it."
    )
    lines = await judge("Project Gutenberg electronic works are distributed under agreements.", wrapped, is_root=True)
    assert "the sentence the claim copies" not in lines.reasoning  # a wrapped line is no sentence


def test_an_opposite_in_a_final_answer_is_blamed_on_the_final_answer() -> None:
    nodes = [
        Node(id="chunk", text="Her husband was young, but his face was careworn and depressed.", stage=1),
        Node(id="report", text=REPORT, stage=2),
        Node(id="answer", text="Caroline's husband is portrayed as an old, careworn man.", stage=3),
    ]
    dag = DAG.from_records(nodes, [("chunk", "report"), ("report", "answer")])
    claim = Claim(id="c1", text=nodes[-1].text)
    result = VeriTrail(FactsVerifier(), TrailConfig(q=1)).verify(dag, claim, "answer")
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED and result.error_stages == [3]


def test_a_synonym_in_an_intermediate_output_leaves_the_error_stage_named() -> None:
    """ "manages" where the description says "runs" is a synonym as often as a changed fact; against
    an intermediate output it does not stop the trail from naming the stage whose number the
    source contradicts (an Inconclusive iteration would leave no stage to name)."""
    nodes = [
        Node(id="chunk", text="Mara Voss kept the mill by the river, and in 1850 the mill opened.", stage=1),
        Node(id="description", text="Mara Voss runs the mill, which opened in 1851.", stage=2),
        Node(id="report", text="Mara Voss manages the mill, which opened in 1851.", stage=3),
    ]
    dag = DAG.from_records(nodes, [("chunk", "description"), ("description", "report")])
    result = VeriTrail(FactsVerifier(), TrailConfig(q=1)).verify(dag, Claim(id="c1", text=nodes[-1].text), "report")
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED and result.error_stages == [2]
    assert "'runs' where the claim says 'manages'" in result.iterations[0].reasoning


RELATIONSHIP = "relationship:MARA VOSS->MILL"


def _copied_from_a_description(description: str, claim: str) -> DAG:
    """A relationship description (stage 2) written from a chunk, and two reports (stage 4)
    written from it, the second also from the first (a sub-community report)."""
    chunk = "Mara Voss kept the mill by the river for her father, and in 1850 the mill opened."
    nodes = [
        Node(id="text_unit:1", text=chunk, stage=1),
        Node(id=RELATIONSHIP, text=description, stage=2),
        Node(id="report:7", text=claim, stage=4),
        Node(id="report:9", text=claim, stage=4),
    ]
    edges = [("text_unit:1", RELATIONSHIP), (RELATIONSHIP, "report:7"), (RELATIONSHIP, "report:9")]
    return DAG.from_records(nodes, [*edges, ("report:7", "report:9")])


def test_the_error_stage_is_the_first_whose_text_holds_the_invention() -> None:
    """The description invented a cooperative and two reports copied it: the last Fully Supported
    iteration read the description and the sub-community report together (the paper's rule names
    stages 2 and 4), but the words the source lacks were first written at stage 2."""
    claim = "Mara Voss founded a shipping cooperative with merchants of three coastal provinces."
    dag = _copied_from_a_description(f"Mara Voss runs the mill, and she {claim[10:]}", claim)
    result = VeriTrail(FactsVerifier(), TrailConfig(q=1)).verify(dag, Claim(id="c1", text=claim), "report:9")
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert {n for it in result.iterations for n in it.nodes_with_evidence} >= {RELATIONSHIP, "report:7"}
    assert result.error_stages == [2]
    assert "'cooperative'" in result.error_note and f"first written at stage 2, in {RELATIONSHIP}" in result.error_note


def test_a_contradiction_keeps_the_papers_error_stage() -> None:
    """A year the source gives otherwise: the changed year is in the description and in both
    reports, and any earlier text may hold the same number for something else, so its words say
    nothing of which stage changed it; the last Fully Supported iteration names the stages."""
    claim = "Mara Voss runs the mill by the river, which opened in 1851."
    dag = _copied_from_a_description("Mara Voss runs the mill, which opened in 1851.", claim)
    result = VeriTrail(FactsVerifier(), TrailConfig(q=1)).verify(dag, Claim(id="c1", text=claim), "report:9")
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED and result.error_stages == [2, 4]
    assert "last Fully Supported" in result.error_note


def test_a_name_the_nodes_read_hold_is_missing_only_with_a_word_they_lack() -> None:
    """The nodes read hold "Cratchit" and "family", so "the Cratchit family" names nothing they
    lack, though the sentence selected says neither; they hold "London" but no surgeon, and the
    reason says so instead of calling London absent."""
    read = analyze("Mrs. Cratchit and her family made a pudding. London was cold that year.").key_set
    selected = ["The pudding was ready, and everyone was proud of it."]

    def verdict(claim: str):
        return judge_facts(claim, selected, shipped_model(), LexicalConfig(), read, [False])

    assert verdict("The Cratchit family made a pudding.").verdict is not Verdict.NOT_FULLY_SUPPORTED
    surgeon = verdict("A London surgeon made a pudding.")
    assert surgeon.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert "'London' is in the nodes read, but not 'surgeon' next to it" in surgeon.reasoning


def test_a_description_need_not_repeat_the_name_its_node_is_for() -> None:
    """GraphRAG's entity descriptions often leave out the entity's own name; the node id
    (`entity:<title>`) still says what they describe, so a claim naming it misses no name."""
    source = "The clerk went down a slide on Cornhill twenty times, in honour of its being Christmas Eve."
    nodes = [
        Node(id="text_unit:1", text=source, stage=1),
        Node(id="entity:CORNHILL", text="A street in the City where Bob Cratchit slides on Christmas Eve.", stage=2),
        Node(id="report:1", text="Bob Cratchit slides on Cornhill on Christmas Eve.", stage=4),
    ]
    dag = DAG.from_records(nodes, [("text_unit:1", "entity:CORNHILL"), ("entity:CORNHILL", "report:1")])
    claim = Claim(id="c1", text=nodes[-1].text)
    result = VeriTrail(FactsVerifier(), TrailConfig(q=1)).verify(dag, claim, "report:1")
    assert result.verdict is Verdict.FULLY_SUPPORTED, result.iterations[0].reasoning


MILL = (
    "Mara Voss kept the mill for her father for many years. In the spring floods the river rose over "
    "the lower fields, and the mill wheel broke."
)


def test_a_name_no_text_of_the_trail_holds_is_never_fully_supported() -> None:
    """The source holds the mill, the floods and Mara Voss but never names a buyer: the rest of
    the claim is near enough to pass, the buyer is who the claim is about. Such a name may stand
    for someone the source calls otherwise, so it asks for a look (Inconclusive), it does not flag."""
    nodes = [
        Node(id="text_unit:1", text=MILL, stage=1),
        Node(id="report:1", text="Mara Voss sold the broken mill to Tomas Keller after the spring floods.", stage=4),
    ]
    dag = DAG.from_records(nodes, [("text_unit:1", "report:1")])
    result = VeriTrail(FactsVerifier(), TrailConfig(q=1)).verify(dag, Claim(id="c1", text=nodes[-1].text), "report:1")
    assert result.verdict is Verdict.INCONCLUSIVE and result.error_stages == []
    assert result.reasoning.startswith("'Tomas Keller' in none of the texts the trail read")


def test_a_name_in_a_text_the_trail_read_is_no_invention() -> None:
    """The same claim, where a text the trail read (the source chunk, an entity) names the buyer
    in a sentence not selected: the check reads whole nodes, not the sentences kept."""
    claim = "Mara Voss sold the broken mill to Tomas Keller after the spring floods."
    chunk = analyze(MILL).key_set

    def verdict(trail: str) -> Verdict:
        return judge_facts(
            claim, [MILL], shipped_model(), LexicalConfig(), chunk, [True], analyze(trail).key_set
        ).verdict

    assert verdict(MILL) is Verdict.INCONCLUSIVE
    assert verdict(f"{MILL} The deed was signed by Tomas Keller.") is Verdict.FULLY_SUPPORTED
    assert verdict(f"{MILL} The deed was signed by TOMAS_KELLER.") is Verdict.FULLY_SUPPORTED


async def test_a_supposition_in_the_evidence_is_not_a_fact() -> None:
    evidence = "Scrooge said that if he stopped half-a-crown for the day the clerk would think himself ill-used."
    result = await judge("Scrooge stopped half a crown from the clerk's wages.", evidence, is_root=False)
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert "supposition" in result.reasoning


async def test_a_word_in_a_passing_supposition_is_no_contradiction() -> None:
    """A conditional clause that shares a word with the claim among many others mentions it in
    passing; only one that restates the claim (half of its words the claim's) makes it a fact the
    evidence merely supposes."""
    evidence = (
        "The city was merry at Christmas. If any gatherings of carol singers came to the door of the "
        "counting-house in the bitter fog of the evening, Scrooge drove them away with his ruler."
    )
    result = await judge("The city held merry gatherings at Christmas.", evidence)
    assert "supposition" not in result.reasoning and result.verdict is not Verdict.NOT_FULLY_SUPPORTED


async def test_a_capitalized_common_word_opening_the_claim_is_no_name_to_credit() -> None:
    """ "Acts of kindness ..." opens with a common word (the evidence writes it in lowercase), so an
    evidence sentence saying "kindness" of Scrooge credits nothing to someone else."""
    evidence = "Scrooge's kindness began at dawn on Christmas Day. His acts of charity surprised everyone."
    result = await judge("Acts of kindness began at dawn on Christmas Day.", evidence)
    assert "not of" not in result.reasoning and result.verdict is Verdict.FULLY_SUPPORTED


async def test_a_capital_that_only_opens_the_sentence_is_a_word_unless_it_owns_something() -> None:
    """ "Key" and "Although" open sentences without being names; "Harwick's" owns something."""
    for claim in (
        "Key figures include the miller's daughter and Dr. Ellis.",
        "Importantly, Mara Voss proposed a ferry.",
    ):
        opener = await judge(claim, CHUNK, is_root=False)
        assert opener.verdict is not Verdict.NOT_FULLY_SUPPORTED and "the name" not in opener.reasoning
    owner = await judge("Harwick's ferry would carry grain across the river.", CHUNK, is_root=False)
    assert owner.verdict is Verdict.INCONCLUSIVE and "the name 'Harwick's'" in owner.reasoning


async def test_a_word_said_of_someone_else_in_an_unrelated_sentence_credits_nothing() -> None:
    """Only a sentence that says more of the claim than the one word can show the claim credited
    it to the wrong name; a long source says "argued" of many people."""
    unrelated = await judge("Mara Voss argued for a new harbour wall.", CHUNK)
    assert "not of" not in unrelated.reasoning
    related = await judge("Mara Voss argued that a ferry would be unsafe in the spring floods.", CHUNK)
    assert "'argued' of 'Ellis', not of 'Voss'" in related.reasoning


async def test_wording_alone_raises_no_alarm() -> None:
    result = await judge(
        "Scrooge, a miserly businessman, is transformed by supernatural visits.",
        "Scrooge is a miser whose encounters with several ghosts change him.",
        is_root=False,
    )
    assert result.verdict is not Verdict.NOT_FULLY_SUPPORTED


@pytest.mark.parametrize(
    "claim",
    [
        "La mairie a refusé deux fois le projet de Mara Voss.",
        "Der Gemeinderat hat den Plan von Mara Voss zweimal abgelehnt.",
        "教区議会は彼女の計画を二度拒否した。",
    ],
)
async def test_claims_it_cannot_read_are_inconclusive_without_a_stage(claim: str) -> None:
    result = await judge(claim, CHUNK)
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "English" in result.reasoning
    traced = await atrace(claim)
    assert traced.verdict is Verdict.INCONCLUSIVE and traced.error_stages == []


async def test_a_claim_with_no_evidence_is_inconclusive_only_when_the_source_tells_of_all_it_names() -> None:
    """No sentence selected: a name or number of the claim missing from every node checked is Not
    Fully Supported, named. Source text that tells of all the claim names, in other words, leaves
    it Inconclusive (interpretation); so do outputs the claim was written from that hold nothing
    close to it, naming the words they lack as its gaps, flagged by no check. A claim naming
    nothing is Inconclusive. No stage is blamed for an Inconclusive claim."""
    verifier = FactsVerifier()
    source = [Excerpt(node_id="chunk", text=CHUNK, is_root=True)]
    output = [Excerpt(node_id="summary", text=CHUNK, is_root=False)]
    missing = await verifier.judge_without_evidence(
        Claim(id="c", text="The ferry was run by Mara Voss in 1911."), source
    )
    assert missing.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert missing.reasoning == "missing number check: '1911' in none of the nodes checked"
    assert [gap.text for gap in missing.gaps] == ["1911"]
    told = Claim(id="c", text="The story of Mara Voss underscores how much courage matters.")
    interpreted = await verifier.judge_without_evidence(told, source)
    assert interpreted.verdict is Verdict.INCONCLUSIVE and "'Mara', 'Voss'" in interpreted.reasoning
    new_here = await verifier.judge_without_evidence(told, output)
    assert new_here.verdict is Verdict.INCONCLUSIVE and "a fact added at this step" in new_here.reasoning
    assert "'underscores'" in new_here.reasoning and "courage" in [gap.text for gap in new_here.gaps]
    assert not any(gap.check for gap in new_here.gaps)
    vague = await verifier.judge_without_evidence(
        Claim(id="c", text="This underscores how much courage matters."), source
    )
    assert vague.verdict is Verdict.INCONCLUSIVE and not vague.gaps


def test_nothing_close_in_the_rest_of_checked_inputs_is_no_alarm() -> None:
    """Beside inputs checked before (`beside_checked`), the few nodes left holding nothing close to
    the claim flag nothing; a name that no node read for the claim has is still missing."""
    told = "The story of Mara Voss underscores how much courage matters."
    everything_read = analyze(CHUNK).key_set
    alone = judge_without_evidence(told, frozenset({"ferry"}), from_source=False)
    assert alone.verdict is Verdict.NOT_FULLY_SUPPORTED
    beside = judge_without_evidence(told, everything_read, from_source=False, beside_checked=True)
    assert beside.verdict is Verdict.INCONCLUSIVE and not beside.gaps
    assert "checked before" in beside.reasoning
    unnamed = judge_without_evidence(
        "Ivo Brandt ran the ferry in 1911.", everything_read, from_source=False, beside_checked=True
    )
    assert unnamed.verdict is Verdict.NOT_FULLY_SUPPORTED and "'Brandt'" in unnamed.reasoning


async def test_evidence_only_from_the_rest_of_checked_inputs_flags_only_a_contradiction() -> None:
    """Evidence selected only from nodes that are the rest of inputs checked before: a name they
    lack may be in the inputs judged before, so it asks for a look; another number is still a
    flag."""
    edge = Excerpt(
        node_id="relationship:VOSS->FERRY",
        text="Mara Voss proposed a ferry across the river in 1911, and the parish council rejected it.",
        is_root=False,
    )
    rest = edge.model_copy(update={"beside_checked": True})
    unnamed = Claim(
        id="c", text="Mara Voss emerges as a pivotal trade diplomat who tied the river towns to Kinai networks."
    )
    assert (await FactsVerifier().judge(unnamed, [edge])).verdict is Verdict.NOT_FULLY_SUPPORTED
    looked = await FactsVerifier().judge(unnamed, [rest])
    assert looked.verdict is Verdict.INCONCLUSIVE
    assert looked.reasoning.startswith("judged only against the rest of inputs checked before")
    assert "missing name check: the name 'Kinai'" in looked.reasoning and looked.gaps
    renumbered = Claim(id="c", text="Mara Voss proposed a ferry across the river in 1915.")
    assert (await FactsVerifier().judge(renumbered, [rest])).verdict is Verdict.NOT_FULLY_SUPPORTED


async def test_source_checked_beside_the_rest_of_checked_inputs_is_still_source() -> None:
    """A source chunk checked with a node that is only the rest of inputs checked before: the
    claim is judged as against the chunk alone (the source tells of all it names), not as against
    outputs it was written from (which name the words they lack)."""
    told = Claim(id="c", text="The story of Mara Voss underscores how much courage matters.")
    chunk = Excerpt(node_id="chunk", text=CHUNK, is_root=True)
    edge = Excerpt(node_id="relationship:VOSS->FERRY", text="Mara Voss proposed the ferry.", is_root=False)
    mixed = await FactsVerifier().judge_without_evidence(told, [chunk, edge])
    assert mixed.verdict is Verdict.INCONCLUSIVE and "outputs it was written from" in mixed.reasoning and mixed.gaps
    rest = edge.model_copy(update={"beside_checked": True})
    apart = await FactsVerifier().judge_without_evidence(told, [chunk, rest])
    assert apart.verdict is Verdict.INCONCLUSIVE and "'Mara', 'Voss'" in apart.reasoning
    assert apart.reasoning.startswith("the source checked tells of") and not apart.gaps


def test_node_terms_do_not_leak_between_dags_sharing_node_ids() -> None:
    """One verifier serves many DAGs at once in `veritrail eval`; a name read in one DAG's node
    must not excuse a claim of another DAG whose node has the same id."""
    verifier = FactsVerifier()
    first = DAG.from_records(
        [{"id": "doc", "stage": 1, "text": "Boston is large. " + CHUNK}, {"id": "sum", "stage": 2, "text": "x."}],
        [("doc", "sum")],
    )
    second = DAG.from_records(
        [{"id": "doc", "stage": 1, "text": CHUNK}, {"id": "sum", "stage": 2, "text": "y."}], [("doc", "sum")]
    )
    engine = VeriTrail(verifier, TrailConfig())
    engine.verify(first, Claim(id="s#0", text="Mara Voss proposed a ferry in Boston."), "sum")
    result = engine.verify(second, Claim(id="s#0", text="Mara Voss proposed a ferry for Boston."), "sum")
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "Boston" in [gap.text for gap in result.gaps]


def test_features_only_ever_speak_against_a_claim() -> None:
    facts = claim_facts("Mara Voss proposed a ferry.", [CHUNK], LexicalConfig())
    assert facts is not None and set(facts.values) == set(FEATURES)
    assert all(value >= 0 for value in facts.values.values())
    model = facts_model.shipped_model()
    assert all(weight >= 0 for weight in model.weights.values())
    assert "dev" in model.fitted_on and "test" not in model.fitted_on


def test_shipped_weights_load_with_the_network_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("the facts verifier reached for the network")

    facts_model.shipped_model.cache_clear()
    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    model = facts_model.shipped_model()
    assert set(model.weights) == set(FEATURES)
    facts_model.shipped_model.cache_clear()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "are missing"),
        ("{not json", "cannot be read"),
        (json.dumps({"bias": 1.0, "weights": {"missing_name": -1.0}}), "cannot be read"),
    ],
)
def test_missing_or_damaged_weights_are_one_clear_error_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str | None, message: str
) -> None:
    package = tmp_path / "facts"
    package.mkdir()
    if content is not None:
        (package / facts_model.WEIGHTS_FILE).write_text(content, encoding="utf-8")
    monkeypatch.setattr(facts_model, "files", lambda _: package)
    facts_model.shipped_model.cache_clear()
    try:
        with pytest.raises(VerifierConfigError, match=message):
            facts_model.shipped_model()
        result = runner.invoke(cli.app, ["verify", str(SAMPLE), "--out", str(tmp_path / "report.json")])
    finally:
        facts_model.shipped_model.cache_clear()
    assert result.exit_code == 2, result.output
    assert "weights" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "report.json").exists()


def test_a_claims_node_terms_are_let_go_when_its_trail_ends() -> None:
    """The terms of the nodes shown for a claim serve its verdicts while its trail runs; kept for
    every claim of the fixture index they held 150 MB after the audit. Two trails of one claim at
    once (one verifier, several DAGs) keep them until the last ends."""
    verifier = FactsVerifier()
    claim = Claim(id="c1", text="Scrooge keeps a counting-house.")
    result = VeriTrail(verifier, TrailConfig(q=1)).verify(DAG.from_json(SAMPLE), claim)
    assert result.iterations and verifier.read.trail(claim) == frozenset()
    shown = [Sentence(id="doc#0", node_id="doc", index=0, text="Scrooge keeps a counting-house.")]
    with verifier.reading(claim):
        with verifier.reading(claim):
            verifier.read.add(claim, shown)
        assert analyze("Scrooge counting-house").key_set <= verifier.read.trail(claim)
    assert verifier.read.trail(claim) == frozenset()
