"""The offline lexical verifier: verdict figures, selection ids, decomposition rules (its speed is
`benchmarks/verifier_speed.py`'s)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import bm25s
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from samples import SHARED, require_shared

from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine import VeriTrail
from veritrail_graphrag.models import Claim, Excerpt, Sentence, TrailConfig, Verdict
from veritrail_graphrag.sentences import split_sentences
from veritrail_graphrag.verifiers.lexical import LexicalConfig, LexicalVerifier
from veritrail_graphrag.verifiers.lexical.decompose import decompose_claim
from veritrail_graphrag.verifiers.lexical.select import overlap, sentence_keys
from veritrail_graphrag.verifiers.lexical.text import analyze, fuzzy_equal, term_spans

SUMMEDITS = SHARED / "benchmarks" / "summedits-subset"

SOURCE = (
    "The acquisition of GitHub, a company that hosts code, was completed by Microsoft in 2018. "
    "The deal was worth $7.5 billion. "
    "Analysts did not expect regulators to block the merger."
)


@pytest.fixture
def verifier() -> LexicalVerifier:
    return LexicalVerifier()


async def judge(verifier: LexicalVerifier, claim: str, *texts: str):
    excerpts = [Excerpt(node_id=f"n{i}", text=t, is_root=True) for i, t in enumerate(texts)]
    return await verifier.judge(Claim(id="c1", text=claim), excerpts)


def batch(*texts: str, node: str = "n1", start: int = 0) -> list[Sentence]:
    return [
        Sentence(id=f"{node}:{start + i}", node_id=node, index=start + i, text=text) for i, text in enumerate(texts)
    ]


def test_traces_a_claim_through_the_engine_to_the_stage_of_its_error(verifier: LexicalVerifier) -> None:
    dag = DAG.from_json(Path(__file__).resolve().parents[2] / "sample_runs" / "handwritten-hierarchical" / "dag.json")
    claim = Claim(id="c1", text="The ferry was paid for by a grant from the county town.")
    result = VeriTrail(verifier, TrailConfig()).verify(dag, claim)
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED and result.error_stages == [3]
    assert result.iterations[0].nodes_with_evidence  # the first iteration found the claim's words


# --- verdicts -------------------------------------------------------------------------------


async def test_supported_paraphrase_is_fully_supported(verifier: LexicalVerifier) -> None:
    result = await judge(verifier, "In 2018, Microsoft acquired GitHub, a code hosting company.", SOURCE)
    assert result.verdict is Verdict.FULLY_SUPPORTED
    assert result.score == pytest.approx(1.0)
    assert "covers 7/7 content terms" in result.reasoning


async def test_changed_number_is_not_supported_and_named(verifier: LexicalVerifier) -> None:
    result = await judge(verifier, "Microsoft acquired GitHub in 2020.", SOURCE)
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert "missing: '2020'" in result.reasoning
    assert "number mismatch: claim 2020 vs evidence 2018" in result.reasoning


async def test_changed_amount_with_scale_words_is_a_number_mismatch(
    verifier: LexicalVerifier,
) -> None:
    supported = await judge(verifier, "The deal was worth 7.5 billion dollars.", SOURCE)
    changed = await judge(verifier, "The deal was worth $9 billion.", SOURCE)
    assert supported.verdict is Verdict.FULLY_SUPPORTED
    assert changed.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert "claim 9 billion vs evidence 7.5 billion" in changed.reasoning


async def test_negation_flip_is_not_supported_both_ways(verifier: LexicalVerifier) -> None:
    added = await judge(verifier, "Microsoft did not acquire GitHub.", SOURCE)
    dropped = await judge(verifier, "Analysts expected regulators to block the merger.", SOURCE)
    kept = await judge(verifier, "Analysts did not expect regulators to block the merger.", SOURCE)
    assert added.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert "claim says 'not acquire'" in added.reasoning
    assert dropped.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert "evidence negates 'expected'" in dropped.reasoning
    assert kept.verdict is Verdict.FULLY_SUPPORTED


async def test_a_lack_or_absence_describes_a_state_and_denies_no_fact(verifier: LexicalVerifier) -> None:
    """ "A lack of X", like "without X", names a state the source words in its own way; it is no
    denial of the source's X ("the miser's want of charity" is about charity too)."""
    source = "Scrooge spoke of charity only to mock it, and gave nothing to the gentlemen."
    lack = await judge(verifier, "Scrooge's lack of charity shows when he mocks the gentlemen.", source)
    denial = await judge(verifier, "Scrooge never spoke of charity.", source)
    assert "claim says" not in lack.reasoning
    assert "claim says 'never spoke'" in denial.reasoning


async def test_missing_entity_is_not_fully_supported(verifier: LexicalVerifier) -> None:
    supported = await judge(verifier, "Microsoft acquired GitHub in 2018.", SOURCE)
    swapped = await judge(verifier, "Google acquired GitHub in 2018.", SOURCE)
    assert swapped.verdict is not Verdict.FULLY_SUPPORTED
    assert "missing: 'Google'" in swapped.reasoning
    assert swapped.score is not None and supported.score is not None
    assert swapped.score < supported.score


async def test_supported_scores_above_every_corruption(verifier: LexicalVerifier) -> None:
    supported = await judge(verifier, "Microsoft acquired GitHub in 2018.", SOURCE)
    corrupted = [
        await judge(verifier, claim, SOURCE)
        for claim in (
            "Microsoft acquired GitHub in 2020.",
            "Microsoft did not acquire GitHub in 2018.",
            "Google acquired GitHub in 2018.",
            "Microsoft acquired GitLab in 2018.",
        )
    ]
    assert all(result.score < supported.score for result in corrupted)


async def test_abbreviations_match_their_expansions(verifier: LexicalVerifier) -> None:
    pairs = [
        ("Acme Corp. hired Dr. Smith in Jan. 2001.", "Acme Corporation hired Doctor Smith in January 2001."),
        ("The U.S. imposed new tariffs.", "The United States imposed new tariffs."),
        ("The United Nations was founded in 1945.", "The UN was founded in 1945."),
        ("Revenue rose 12% to $2.5 million.", "Revenue rose twelve percent to 2,500,000 dollars."),
    ]
    for claim, evidence in pairs:
        result = await judge(verifier, claim, evidence)
        assert result.verdict is Verdict.FULLY_SUPPORTED, (claim, result.reasoning)


async def test_opposite_words_are_a_mismatch(verifier: LexicalVerifier) -> None:
    evidence = "The new remote is easy to use for novice users. Its battery lasts two weeks."
    swapped = await judge(verifier, "The new remote is difficult to use for novice users.", evidence)
    kept = await judge(verifier, "The new remote is easy to use for novice users.", evidence)
    assert swapped.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert "opposite words: claim 'difficult' vs evidence 'easy'" in swapped.reasoning
    assert kept.verdict is Verdict.FULLY_SUPPORTED


async def test_opposites_only_count_in_the_sentences_the_claim_aligns_with(verifier: LexicalVerifier) -> None:
    evidence = (
        "The remote has a difficult menu for experts. Nobody liked the colour. The box is blue. "
        "The price was discussed at length. The novice buttons are large and easy to press."
    )
    result = await judge(verifier, "The novice buttons are large and easy to press.", evidence)
    assert result.verdict is Verdict.FULLY_SUPPORTED
    assert "opposite" not in result.reasoning


async def test_spelled_out_compound_numbers(verifier: LexicalVerifier) -> None:
    evidence = "Marketing: we agreed on twenty five Euros for the selling price."
    same = await judge(verifier, "The selling price is 25 Euros.", evidence)
    other = await judge(verifier, "The selling price is 20 Euros.", evidence)
    assert same.verdict is Verdict.FULLY_SUPPORTED, same.reasoning
    assert other.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert "number mismatch: claim 20 vs evidence twenty five" in other.reasoning


async def test_negated_number_phrase_is_checked_on_its_first_word(verifier: LexicalVerifier) -> None:
    evidence = "The package includes monitoring sensors and 24/7 expert support."
    result = await judge(verifier, "The package includes monitoring sensors and no 24/7 expert support.", evidence)
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED
    assert "claim says 'no expert'" in result.reasoning


def _denied(text: str) -> set[str]:
    terms = analyze(text)
    return {t.key for t in terms.terms if t.negation is not None}


def test_a_negation_in_a_condition_or_a_quantifier_or_a_title_denies_nothing() -> None:
    """Found in the fixture index's denial flags: "if he does not change" supposes, "not all
    works" counts, and "the Game of Yes and No" names. None states that something is not so; a
    denial in the main clause still is."""
    assert _denied("He will be remembered badly if he does not change.") == set()
    assert _denied("The fund helps families even if the support is not given openly.") == set()
    assert _denied("Whether or not the spirit returns, Scrooge waits.") == set()
    unpunctuated = "Knowing whether the miller grinds rye or wheat for the bakery is not important to the council."
    assert "important" in _denied(unpunctuated)  # the clause ended before the denial
    assert _denied("If the ghost returns, Scrooge does not sleep.") == {"sleep"}
    assert _denied("Scrooge does not sleep if the ghost returns.") == {"sleep"}
    assert _denied("Not all works can be freely distributed.") == set()
    assert _denied("The clerk is not always paid on time.") == set()
    assert "paid" in _denied("The clerk is not paid on time.")
    assert _denied("The Game of Yes and No is a party game.") == set()
    assert "no" in {t.key for t in analyze("The Game of Yes and No is a party game.").terms if t.kind == "name"}
    assert _denied("No party was held.") == {"party", "held"}
    assert "go" in _denied("He did NOT go to the party.")  # capitals for stress still deny


async def test_abbreviation_periods_do_not_end_a_negation(verifier: LexicalVerifier) -> None:
    result = await judge(verifier, "Dr. Smith did not sign the contract.", "Dr. Smith signed the contract.")
    assert result.verdict is Verdict.NOT_FULLY_SUPPORTED


async def test_evidence_is_pooled_across_excerpts(verifier: LexicalVerifier) -> None:
    result = await judge(
        verifier,
        "Microsoft acquired GitHub and paid $7.5 billion.",
        "Microsoft acquired GitHub.",
        "The price paid was $7.5 billion.",
    )
    assert result.verdict is Verdict.FULLY_SUPPORTED


async def test_empty_excerpts_are_not_supported(verifier: LexicalVerifier) -> None:
    for excerpts in ([], [Excerpt(node_id="n1", text="  ", is_root=False)]):
        result = await verifier.judge(Claim(id="c1", text="Microsoft acquired GitHub."), excerpts)
        assert result.verdict is Verdict.NOT_FULLY_SUPPORTED
        assert result.score == 0.0


async def test_claim_without_content_is_inconclusive(verifier: LexicalVerifier) -> None:
    result = await judge(verifier, "It is what it is.", SOURCE)
    assert result.verdict is Verdict.INCONCLUSIVE


async def test_thresholds_drive_the_verdict() -> None:
    lenient = LexicalVerifier(LexicalConfig(supported_threshold=0.3, unsupported_threshold=0.1))
    result = await judge(lenient, "Google acquired GitHub in 2018.", SOURCE)
    assert result.verdict is Verdict.FULLY_SUPPORTED


def test_config_rejects_crossed_thresholds() -> None:
    with pytest.raises(ValidationError):
        LexicalConfig(supported_threshold=0.4, unsupported_threshold=0.6)


# --- evidence selection ---------------------------------------------------------------------


async def test_empty_batch_selects_nothing(verifier: LexicalVerifier) -> None:
    selection = await verifier.select_evidence(Claim(id="c1", text="Anything at all."), [])
    assert selection.selected == [] and selection.context == [] and selection.summary == ""


async def test_selects_matching_sentences_only(verifier: LexicalVerifier) -> None:
    sentences = batch(
        "The weather in Lisbon was mild that week.",
        "Microsoft completed its acquisition of GitHub in 2018.",
        "GitHub hosts code for millions of developers.",
        "Lunch was served at noon.",
    )
    claim = Claim(id="c1", text="Microsoft acquired GitHub in 2018.")
    selection = await verifier.select_evidence(claim, sentences)
    assert selection.selected == ["n1:1"]
    assert selection.summary == sentences[1].text


async def test_pronoun_sentence_brings_its_antecedent_as_context(verifier: LexicalVerifier) -> None:
    sentences = batch("Microsoft is a software company.", "It acquired GitHub in 2018 for $7.5 billion.")
    claim = Claim(id="c1", text="Microsoft acquired GitHub in 2018.")
    selection = await verifier.select_evidence(claim, sentences)
    assert selection.selected == ["n1:1"]
    assert selection.context == ["n1:0"]
    assert selection.summary == "Microsoft is a software company. It acquired GitHub in 2018 for $7.5 billion."


async def test_context_never_reaches_outside_the_batch(verifier: LexicalVerifier) -> None:
    sentences = batch("It acquired GitHub in 2018 for $7.5 billion.", start=5)
    selection = await verifier.select_evidence(Claim(id="c1", text="Microsoft acquired GitHub in 2018."), sentences)
    assert selection.selected == ["n1:5"]
    assert selection.context == []


async def test_sub_claims_find_evidence_for_one_part(verifier: LexicalVerifier) -> None:
    text = (
        "Microsoft acquired GitHub in 2018 for $7.5 billion, kept its chief executive, "
        "and moved the developer platform to Azure data centers in Virginia."
    )
    sentences = batch(
        "Analysts praised the purchase.",
        "Engineers moved everything to Azure last spring.",
        "The cafeteria reopened.",
    )
    alone = await verifier.select_evidence(Claim(id="c1", text=text), sentences)
    parts = await verifier.decompose(text)
    helped = await verifier.select_evidence(Claim(id="c1", text=text, sub_claims=parts), sentences)
    assert "n1:1" not in alone.selected
    assert helped.selected == ["n1:1"]


async def test_batch_without_content_words_selects_nothing(verifier: LexicalVerifier) -> None:
    selection = await verifier.select_evidence(
        Claim(id="c1", text="Microsoft acquired GitHub."), batch("Yes.", "Okay, okay.", "Hmm?")
    )
    assert selection.selected == []


async def test_a_batch_shown_to_many_claims_is_indexed_once(
    verifier: LexicalVerifier, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claims of one report start at the same nodes, so their first batches are the same: BM25's
    index of a batch is built once and scored for each claim."""
    built: list[int] = []
    real = bm25s.BM25.index
    monkeypatch.setattr(bm25s.BM25, "index", lambda self, corpus, **kw: built.append(1) or real(self, corpus, **kw))
    sentences = batch("Scrooge kept his clerk Bob Cratchit in a cold office.", "Marley had died seven years before.")
    first = await verifier.select_evidence(Claim(id="c1", text="Bob Cratchit worked in a cold office."), sentences)
    second = await verifier.select_evidence(Claim(id="c2", text="Marley died seven years before."), sentences)
    assert (first.selected, second.selected) == (["n1:0"], ["n1:1"])
    assert len(built) == 1


KEYS = st.text(alphabet="acqiuisrt0", min_size=1, max_size=9)


@settings(max_examples=200, deadline=None)
@given(query=st.lists(KEYS, max_size=6), sentence=st.frozensets(KEYS, max_size=8))
def test_overlap_counts_exact_keys_and_close_derivations(query: list[str], sentence: frozenset[str]) -> None:
    """`overlap` looks close derivations up by their first five letters; it counts what comparing
    each query key with every key of the sentence counts."""
    expected = sum(
        key in sentence or (len(key) >= 5 and not key.isdigit() and any(fuzzy_equal(key, k) for k in sentence))
        for key in query
    )
    assert overlap(query, sentence) == expected


WORDS = st.sampled_from(
    "Microsoft GitHub acquired acquisition 2018 2020 it It the deal was worth not no "
    "billion $7.5 They this code hosts company , . ; and".split()
)


@settings(max_examples=60, deadline=None)
@given(
    claim=st.lists(WORDS, min_size=1, max_size=12).map(" ".join),
    sub_claims=st.lists(st.lists(WORDS, min_size=1, max_size=6).map(" ".join), max_size=3),
    texts=st.lists(st.lists(WORDS, min_size=0, max_size=15).map(" ".join), max_size=8),
)
async def test_ids_are_never_invented(claim: str, sub_claims: list[str], texts: list[str]) -> None:
    verifier = LexicalVerifier()
    sentences = batch(*texts, node="n7", start=3)
    selection = await verifier.select_evidence(Claim(id="c1", text=claim, sub_claims=sub_claims), sentences)
    ids = [s.id for s in sentences]
    assert set(selection.selected) <= set(ids)
    assert set(selection.context) <= set(ids)
    assert not set(selection.selected) & set(selection.context)
    for context_id in selection.context:
        assert ids[ids.index(context_id) + 1] in selection.selected
    result = await verifier.judge(
        Claim(id="c1", text=claim), [Excerpt(node_id="n7", text=t, is_root=True) for t in texts]
    )
    assert result.score is not None and 0.0 <= result.score <= 1.0


# --- decomposition --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "parts"),
    [
        (
            "Revenue rose 5%; costs fell 3%.",
            ["Revenue rose 5%.", "Costs fell 3%."],
        ),
        (
            "The board approved the merger and the CEO resigned.",
            ["The board approved the merger.", "The CEO resigned."],
        ),
        (
            "Microsoft acquired GitHub in 2018, and it paid 7.5 billion dollars.",
            ["Microsoft acquired GitHub in 2018.", "Microsoft paid 7.5 billion dollars."],
        ),
        (
            "The CEO met investors in March and announced a buyback in April.",
            ["The CEO met investors in March.", "The CEO announced a buyback in April."],
        ),
        (
            "The plan covers theft and costs 20 dollars a month.",
            ["The plan covers theft.", "The plan costs 20 dollars a month."],
        ),
        (
            "The plan covers property damage, medical expenses, theft and vandalism.",
            [
                "The plan covers property damage.",
                "The plan covers medical expenses.",
                "The plan covers theft.",
                "The plan covers vandalism.",
            ],
        ),
        (
            "Alice, Bob and Carol founded the firm in 2001.",
            ["Alice founded the firm in 2001.", "Bob founded the firm in 2001.", "Carol founded the firm in 2001."],
        ),
        (
            "The plan covers theft as well as fire damage.",
            ["The plan covers theft.", "The plan covers fire damage."],
        ),
        (
            "Dr. Smith and Mr. Jones founded Acme Inc. in 2001.",
            ["Dr. Smith founded Acme Inc. in 2001.", "Mr. Jones founded Acme Inc. in 2001."],
        ),
    ],
)
async def test_decomposition_examples(verifier: LexicalVerifier, claim: str, parts: list[str]) -> None:
    assert await verifier.decompose(claim) == parts


@pytest.mark.parametrize(
    "claim",
    [
        "Microsoft acquired GitHub in 2018.",
        "The deal is between Acme and Bolt.",
        "Tom and Jerry.",
        "The U.S. Dept. of Energy funded the study in Jan. 2020.",
        "",
    ],
)
async def test_unsplittable_claims_come_back_whole(verifier: LexicalVerifier, claim: str) -> None:
    assert await verifier.decompose(claim) == [claim]


@settings(max_examples=60, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=20).map(" ".join))
async def test_decomposition_is_deterministic_and_shrinks(claim: str) -> None:
    verifier = LexicalVerifier()
    parts = await verifier.decompose(claim)
    assert parts == await verifier.decompose(claim)
    assert parts
    if len(parts) > 1:
        assert all(part and len(part.split()) < len(claim.split()) + 1 for part in parts)


# --- a real benchmark -----------------------------------------------------------------------


def _item_score(verifier: LexicalVerifier, record: dict) -> float:
    """A summary is several claims; its score is its weakest sentence's against the document."""
    import asyncio

    excerpt = [Excerpt(node_id="doc", text=record["doc"], is_root=True)]

    async def scores() -> list[float]:
        results = [
            await verifier.judge(Claim(id=f"s{i}", text=sentence), excerpt)
            for i, sentence in enumerate(split_sentences(record["summary"]))
        ]
        return [r.score for r in results if r.score is not None]

    return min(asyncio.run(scores()))


@pytest.mark.parametrize("domain", ["sales_call", "sales_email"])
def test_summedits_consistent_summaries_score_higher(domain: str) -> None:
    path = SUMMEDITS / f"summedits_{domain}.json"
    require_shared(path)
    records = json.loads(path.read_text(encoding="utf-8"))[:100]
    verifier = LexicalVerifier()
    by_label: dict[int, list[float]] = {0: [], 1: []}
    for record in records:
        by_label[record["label"]].append(_item_score(verifier, record))
    assert statistics.mean(by_label[1]) > statistics.mean(by_label[0])


def test_a_part_made_only_of_punctuation_is_not_a_sub_claim() -> None:
    """Found by the property test above: 'Microsoft Microsoft ; , ,' gave an empty sub-claim."""
    assert decompose_claim("Microsoft Microsoft ; , ,") == ["Microsoft Microsoft ; , ,"]


@pytest.mark.parametrize(
    ("opening", "repeated"),
    [
        # no verb the rules know: each "and" rescanned the words before it
        ("Scrooge pays", "the surgeon and the clerk and"),
        # a verb: each "and" copied the words around it and sought a list item to the end
        ("Scrooge paid", "the surgeon and the clerk and"),
        ("Scrooge pays", "the clerk and paid the ghost and"),
    ],
)
def test_a_long_sentence_costs_work_linear_in_its_length(
    opening: str, repeated: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted in words looked at, not timed: twice the sentence, at most about twice the work."""
    from veritrail_graphrag.verifiers.lexical import decompose

    looked_at = 0
    bare = decompose._bare

    def counted(token: str) -> str:
        nonlocal looked_at
        looked_at += 1
        return bare(token)

    monkeypatch.setattr(decompose, "_bare", counted)
    work = []
    for copies in (200, 400):
        looked_at = 0
        decompose_claim(f"{opening} {' '.join([repeated] * copies)} the spirit.")
        work.append(looked_at)
    assert work[1] < 2.5 * work[0]


def test_a_batchs_sentence_keys_are_the_keys_its_index_holds() -> None:
    """What a verifier reads of a batch besides the selection (facts: the terms of each node shown)
    comes from the selection's own analysis, one key set per sentence, empty for a sentence
    without a content word."""
    texts = ("Scrooge kept his clerk Bob Cratchit in a cold office.", "And so it was.", "SimpleDocumentIndexer runs.")
    assert sentence_keys(texts) == [analyze(text).key_set for text in texts]
    assert sentence_keys(("and so", "it is")) == [frozenset(), frozenset()]


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.sampled_from(["Tiny", "Tim", "is", "not", "ill", "5", "million", "Scrooge's", "IDs"])))
def test_each_term_span_holds_its_surface_in_order(words: list[str]) -> None:
    """`term_spans` finds each term where it is written, in order, and answers as a dict of
    (start, end) pairs would: `in`, indexing, `get` with a default, `items`."""
    text = " ".join(words)
    terms = analyze(text)
    spans = term_spans(text, terms)
    pairs = dict(spans.items())
    assert list(pairs) == sorted(pairs)
    for term in terms.terms:
        if term.position in spans:
            start, end = spans[term.position]
            assert text[start:end].lower() == term.surface.lower()
            assert spans.get(term.position) == pairs[term.position] == (start, end)
        else:
            assert spans.get(term.position) is None and spans.get(term.position, (0, 0)) == (0, 0)
    starts = [start for start, _ in pairs.values()]
    assert starts == sorted(starts)
