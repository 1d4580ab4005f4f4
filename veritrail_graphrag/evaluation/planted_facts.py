"""The hand-written part of the planted benchmark: answer sentences and the facts changed in them.

Every answer sentence restates one sentence of a real community report of the *A Christmas Carol*
GraphRAG index (microsoft/graphrag test data), and every fact was checked against the novel's
text units, so an unchanged answer sentence is supported all the way down. A fact's change is
given once for the report, map and final answers (`old` -> `new`, inside the report sentence
and the answer) and per description node for the description stage, because descriptions word
the same fact differently. The loader refuses to build when a span is missing, so a changed
index cannot silently produce cases that plant nothing.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

EditKind = Literal["name", "number", "negation", "relation", "attribute"]


class NodeEdit(BaseModel):
    model_config = ConfigDict(frozen=True)

    node: str = Field(description="node id in the index DAG, e.g. 'entity:SCHOOL'")
    old: str
    new: str


class AnswerSentence(BaseModel):
    """A map/final answer sentence and the report sentence it was written from (verbatim; without its
    final period where a `[Data: ...]` citation follows)."""

    model_config = ConfigDict(frozen=True)

    id: str
    community: int
    report_sentence: str
    answer: str


class PlantedFact(AnswerSentence):
    """An answer sentence whose fact can be changed at any stage from its descriptions up."""

    kind: EditKind
    old: str
    new: str
    descriptions: list[NodeEdit] = Field(min_length=1, description="all at one stage (2 or 3)")


MAP_GROUPS: list[list[int]] = [[29, 8, 60], [49, 28], [107]]
"""Which community reports each map answer was written from (one map call per group)."""

FACTS: list[PlantedFact] = [
    PlantedFact(
        id="school-head",
        community=29,
        kind="relation",
        report_sentence="The Schoolmaster is depicted as the head of the boarding school, characterized by a "
        "stern and condescending demeanor.",
        answer="The Schoolmaster is depicted as the head of the boarding school, characterized by a stern and "
        "condescending demeanor.",
        old="the head of the boarding school",
        new="a pupil at the boarding school",
        descriptions=[
            NodeEdit(
                node="entity:SCHOOLMASTER", old="the head of the boarding school", new="a pupil at the boarding school"
            ),
            NodeEdit(
                node="relationship:SCHOOLMASTER->SCHOOL", old="the head of the school", new="a pupil at the school"
            ),
        ],
    ),
    PlantedFact(
        id="coach-father",
        community=29,
        kind="name",
        report_sentence="The coach, sent by Scrooge's father, represents a rare moment of familial connection and "
        "intervention in Scrooge's otherwise isolated school life.",
        answer="The coach that took Scrooge home from school was sent by Scrooge's father.",
        old="Scrooge's father",
        new="Mr. Fezziwig",
        descriptions=[NodeEdit(node="entity:CHAIR/COACH", old="Scrooge's father", new="Mr. Fezziwig")],
    ),
    PlantedFact(
        id="servant-drink",
        community=29,
        kind="relation",
        report_sentence="Specifically, the servant is sent to offer a drink to the postboy, illustrating the "
        "hierarchical structure and the delegation of duties within the school.",
        answer="At the school, the servant is sent to offer a drink to the postboy.",
        old="to offer a drink to the postboy",
        new="to take a drink from the postboy",
        descriptions=[
            NodeEdit(
                node="entity:SERVANT", old="to offer a drink to the postboy", new="to take a drink from the postboy"
            ),
            NodeEdit(
                node="relationship:SCHOOLMASTER->SERVANT",
                old="to offer a drink to the postboy",
                new="to take a drink from the postboy",
            ),
            NodeEdit(
                node="relationship:SERVANT->POSTBOY",
                old="offers a drink to the postboy",
                new="takes a drink from the postboy",
            ),
        ],
    ),
    PlantedFact(
        id="school-deserted",
        community=29,
        kind="negation",
        report_sentence="It is described as not quite deserted, with Scrooge often left as the solitary child "
        "during holidays, while other children departed to be with their families.",
        answer="The school is described as not quite deserted, with Scrooge often left as the solitary child "
        "during holidays.",
        old="not quite deserted",
        new="quite deserted",
        descriptions=[NodeEdit(node="entity:SCHOOL", old="not quite deserted", new="quite deserted")],
    ),
    PlantedFact(
        id="caroline-mild",
        community=8,
        kind="attribute",
        report_sentence="Caroline is depicted as a mild and patient woman, whose resilience has been tested by "
        "prolonged financial hardship due to her family's indebtedness to a merciless creditor.",
        answer="Caroline is depicted as a mild and patient woman whose family is indebted to a merciless creditor.",
        old="a mild and patient woman",
        new="a harsh and impatient woman",
        descriptions=[
            NodeEdit(node="entity:CAROLINE", old="a mild and patient woman", new="a harsh and impatient woman")
        ],
    ),
    PlantedFact(
        id="husband-young",
        community=8,
        kind="attribute",
        report_sentence="Caroline's husband is portrayed as a young, careworn man who has endured significant "
        "stress due to the family's indebtedness.",
        answer="Caroline's husband is portrayed as a young, careworn man.",
        old="a young, careworn man",
        new="an old, carefree man",
        descriptions=[
            NodeEdit(node="entity:CAROLINE'S HUSBAND", old="a young, careworn man", new="an old, carefree man")
        ],
    ),
    PlantedFact(
        id="half-drunken-woman",
        community=8,
        kind="name",
        report_sentence="The half-drunken woman plays a crucial role in the community by informing Caroline's "
        "husband about the creditor's illness and impending death.",
        answer="The half-drunken woman informed Caroline's husband about the creditor's illness and impending death.",
        old="The half-drunken woman",
        new="Mrs. Dilber",
        descriptions=[
            NodeEdit(node="entity:THE HALF-DRUNKEN WOMAN", old="The half-drunken woman", new="Mrs. Dilber"),
            NodeEdit(
                node="relationship:THE HALF-DRUNKEN WOMAN->CAROLINE'S HUSBAND",
                old="The half-drunken woman",
                new="Mrs. Dilber",
            ),
        ],
    ),
    PlantedFact(
        id="creditor-relief",
        community=8,
        kind="negation",
        report_sentence="The death of the merciless creditor is a defining event for the community, directly "
        "causing emotional relief and renewed hope for Caroline and her family.",
        answer="The death of the merciless creditor is a defining event, directly causing emotional relief and "
        "renewed hope for Caroline and her family.",
        old="directly causing emotional relief",
        new="causing no emotional relief",
        descriptions=[
            NodeEdit(
                node="entity:THE EVENT OF THE CREDITOR'S DEATH",
                old="brings emotional relief",
                new="brings no emotional relief",
            )
        ],
    ),
    PlantedFact(
        id="lippincott-city",
        community=60,
        kind="name",
        report_sentence="The company operates out of both Philadelphia and New York, indicating a significant "
        "presence in major American publishing hubs.",
        answer="J. B. Lippincott Company operates out of both Philadelphia and New York.",
        old="Philadelphia",
        new="Boston",
        descriptions=[
            NodeEdit(node="entity:J. B. LIPPINCOTT COMPANY", old="Philadelphia", new="Boston"),
            NodeEdit(node="relationship:J. B. LIPPINCOTT COMPANY->PHILADELPHIA", old="Philadelphia", new="Boston"),
        ],
    ),
    PlantedFact(
        id="marley-seven-years",
        community=49,
        kind="number",
        report_sentence="His appearance on Christmas Eve, seven years after his death, serves as a stark reminder "
        "of the importance of moral choices and the potential for redemption.",
        answer="Marley's ghost appears on Christmas Eve, seven years after his death.",
        old="seven years",
        new="twelve years",
        descriptions=[
            NodeEdit(
                node="relationship:THE GHOST OF JACOB MARLEY->CHRISTMAS EVE",
                old="seven Christmas Eves ago",
                new="twelve Christmas Eves ago",
            )
        ],
    ),
    PlantedFact(
        id="marley-star",
        community=49,
        kind="negation",
        report_sentence="Marley\u2019s lamentations about not raising his eyes to the Star and not visiting poor "
        "homes further reinforce the story\u2019s themes of social responsibility and empathy",
        answer="Marley\u2019s ghost laments not raising his eyes to the Star and not visiting poor homes.",
        old="not raising his eyes",
        new="raising his eyes",
        descriptions=[
            NodeEdit(
                node="relationship:THE GHOST OF JACOB MARLEY->THE STAR",
                old="not raising his eyes",
                new="raising his eyes",
            )
        ],
    ),
    PlantedFact(
        id="marley-chain",
        community=49,
        kind="relation",
        report_sentence="Marley\u2019s ghost is burdened by the chain he forged in life, symbolizing the weight of "
        "his misdeeds and missed opportunities for compassion.",
        answer="Marley\u2019s ghost is burdened by the chain he forged in life.",
        old="the chain he forged in life",
        new="the chain Scrooge forged for him",
        descriptions=[
            NodeEdit(
                node="relationship:THE GHOST OF JACOB MARLEY->CHRISTMAS EVE",
                old="the chain he forged in life",
                new="the chain Scrooge forged for him",
            )
        ],
    ),
    PlantedFact(
        id="ward-indict",
        community=49,
        kind="relation",
        report_sentence="The potential for the Ward to indict Marley\u2019s ghost for its disruptive behavior "
        "highlights the intersection of personal morality and public order within the narrative",
        answer="Marley\u2019s haunting raised the potential for the Ward to indict Marley\u2019s ghost for its "
        "disruptive behavior.",
        old="the Ward to indict Marley\u2019s ghost",
        new="Marley\u2019s ghost to indict the Ward",
        descriptions=[
            NodeEdit(
                node="relationship:THE GHOST OF JACOB MARLEY->THE WARD",
                old="the Ward could have indicted it",
                new="it could have indicted the Ward",
            )
        ],
    ),
    PlantedFact(
        id="spirit-brothers",
        community=28,
        kind="number",
        report_sentence="The Spirit's family, consisting of more than eighteen hundred brothers, represents the "
        "lineage of Christmas spirits from previous years.",
        answer="The Spirit's family consists of more than eighteen hundred brothers.",
        old="eighteen hundred",
        new="three hundred",
        descriptions=[
            NodeEdit(node="entity:SPIRIT'S FAMILY", old="eighteen hundred", new="three hundred"),
            NodeEdit(
                node="relationship:SPIRIT'S FAMILY->GHOST OF CHRISTMAS PRESENT",
                old="eighteen hundred",
                new="three hundred",
            ),
            NodeEdit(node="covariate:213", old="eighteen hundred", new="three hundred"),
        ],
    ),
    PlantedFact(
        id="scabbard-empty",
        community=28,
        kind="attribute",
        report_sentence="The antique scabbard, worn by the spirit and notably rusted and empty, symbolizes peace, "
        "suggesting a rejection of violence and an embrace of harmony during the holiday season.",
        answer="The antique scabbard worn by the spirit is notably rusted and empty.",
        old="notably rusted and empty",
        new="notably polished and holding a sword",
        descriptions=[
            NodeEdit(
                node="entity:ANTIQUE SCABBARD",
                old="contains no sword and is rusted",
                new="contains a sword and is polished",
            )
        ],
    ),
    PlantedFact(
        id="plenty-horn",
        community=28,
        kind="name",
        report_sentence="Plenty's horn, which shapes the spirit's torch, is a traditional emblem of abundance and "
        "generosity, linking the character to themes of prosperity and giving.",
        answer="Plenty's horn shapes the torch of the Ghost of Christmas Present.",
        old="Plenty's horn",
        new="Neptune's trident",
        descriptions=[
            NodeEdit(node="entity:PLENTY'S HORN", old="Plenty's horn", new="Neptune's trident"),
            NodeEdit(
                node="relationship:PLENTY'S HORN->GHOST OF CHRISTMAS PRESENT",
                old="Plenty's horn",
                new="Neptune's trident",
            ),
        ],
    ),
    PlantedFact(
        id="song-singer",
        community=107,
        kind="name",
        report_sentence="During the Cratchit family's Christmas celebration, Tiny Tim performs a song about a lost "
        "child traveling in the snow.",
        answer="During the Cratchit family's Christmas celebration, Tiny Tim performs a song about a lost child "
        "traveling in the snow.",
        old="Tiny Tim performs",
        new="Martha performs",
        descriptions=[
            NodeEdit(node="entity:SONG ABOUT A LOST CHILD", old="performed by Tiny Tim", new="performed by Martha"),
            NodeEdit(node="relationship:TINY TIM->SONG ABOUT A LOST CHILD", old="Tiny Tim sings", new="Martha sings"),
        ],
    ),
    PlantedFact(
        id="room-above",
        community=107,
        kind="relation",
        report_sentence="Bob Cratchit is depicted as a devoted father and husband, mourning Tiny Tim in the room "
        "above their home and caring deeply for his family's well-being.",
        answer="Bob Cratchit is depicted mourning Tiny Tim in the room above their home.",
        old="in the room above",
        new="in the cellar below",
        descriptions=[
            NodeEdit(node="entity:THE ROOM ABOVE", old="is the upstairs room", new="is the cellar"),
            NodeEdit(node="relationship:THE ROOM ABOVE->TINY TIM", old="in the room above", new="in the cellar below"),
        ],
    ),
    PlantedFact(
        id="tim-saved",
        community=107,
        kind="negation",
        report_sentence="This transformation not only saves Tiny Tim's life but also elevates the well-being of the "
        "Cratchit family, demonstrating the profound impact that individual change can have on a wider "
        "social network.",
        answer="Scrooge's transformation not only saves Tiny Tim's life but also elevates the well-being of the "
        "Cratchit family.",
        old="not only saves Tiny Tim's life but also elevates",
        new="does not save Tiny Tim's life but elevates",
        descriptions=[
            NodeEdit(
                node="relationship:SCROOGE'S TRANSFORMATION->TINY TIM",
                old="results in Tiny Tim's survival",
                new="does not result in Tiny Tim's survival",
            )
        ],
    ),
    PlantedFact(
        id="tim-youngest",
        community=107,
        kind="relation",
        report_sentence="Tiny Tim is depicted as the youngest and most vulnerable member of the Cratchit family, "
        "embodying innocence, optimism, and the transformative power of compassion.",
        answer="Tiny Tim is depicted as the youngest and most vulnerable member of the Cratchit family.",
        old="the youngest",
        new="the eldest",
        descriptions=[NodeEdit(node="entity:TINY TIM", old="the youngest child", new="the eldest child")],
    ),
]

UNCHANGED: list[AnswerSentence] = [
    AnswerSentence(
        id="coach-departure",
        community=29,
        report_sentence="Scrooge's ride in the coach marks his departure from the school and a temporary escape "
        "from the environment of neglect.",
        answer="Scrooge's ride in the coach marks his departure from the school.",
    ),
    AnswerSentence(
        id="husband-news",
        community=8,
        report_sentence="His return home with news of the creditor's death is a pivotal moment, shifting the "
        "family's emotional state from anxiety to relief.",
        answer="Caroline's husband returns home with news of the creditor's death, shifting the family's emotional "
        "state from anxiety to relief.",
    ),
    AnswerSentence(
        id="lippincott-publisher",
        community=60,
        report_sentence="J. B. Lippincott Company is the key organization in this community, responsible for "
        "publishing the edition of 'A Christmas Carol' under review.",
        answer="J. B. Lippincott Company published this edition of 'A Christmas Carol'.",
    ),
    AnswerSentence(
        id="marley-wander",
        community=49,
        report_sentence="Marley\u2019s condemnation to wander the earth and labor for the good of others in "
        "eternity serves as a powerful warning about the long-term consequences of selfishness and neglect.",
        answer="Marley\u2019s ghost is condemned to wander the earth.",
    ),
    AnswerSentence(
        id="cratchit-struggling",
        community=107,
        report_sentence="Bob Cratchit's family is portrayed as loving yet financially struggling prior to "
        "Scrooge's intervention.",
        answer="Bob Cratchit's family is portrayed as loving yet financially struggling.",
    ),
]
