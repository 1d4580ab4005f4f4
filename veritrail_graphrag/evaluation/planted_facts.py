"""The hand-written part of the planted benchmark, as data: `planted_facts.yaml` beside this module
holds the answer sentences and the facts changed in them; these models validate it.

A fact's change is given once for the report, map and final answers (`old` -> `new`, inside the
report sentence and the answer) and per description node for the description stage, because
descriptions word the same fact differently. `planted.py` refuses to build when a span is missing
from the index, so a changed index cannot silently produce cases that plant nothing.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from veritrail_graphrag.evaluation.errors import BenchmarkDataError

EditKind = Literal["name", "number", "negation", "relation", "attribute"]
FACTS_FILE = "planted_facts.yaml"


class NodeEdit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    node: str = Field(description="node id in the index DAG, e.g. 'entity:SCHOOL'")
    old: str
    new: str


class AnswerSentence(BaseModel):
    """A map/final answer sentence and the report sentence it was written from (verbatim; without its
    final period where a `[Data: ...]` citation follows)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

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


class PlantedFacts(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    map_groups: list[list[int]] = Field(
        min_length=1, description="the community reports each map answer was written from (one map call per group)"
    )
    facts: list[PlantedFact] = Field(min_length=1)
    unchanged: list[AnswerSentence]

    @model_validator(mode="after")
    def _consistent(self) -> PlantedFacts:
        sentences = [*self.facts, *self.unchanged]
        ids = [s.id for s in sentences]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"sentence ids used more than once: {', '.join(repeated)}")
        grouped = {c for group in self.map_groups for c in group}
        stray = sorted({s.id for s in sentences if s.community not in grouped})
        if stray:
            raise ValueError(f"sentences from a community in no map group: {', '.join(stray)}")
        return self

    @property
    def sentences(self) -> list[AnswerSentence]:
        return [*self.facts, *self.unchanged]


def load_planted_facts(path: Path | None = None) -> PlantedFacts:
    """The facts shipped with the package, or those in `path`; errors name the file."""
    where = str(path) if path is not None else f"veritrail_graphrag/evaluation/{FACTS_FILE}"
    try:
        text = path.read_text(encoding="utf-8") if path is not None else (files(__package__) / FACTS_FILE).read_text()
        return PlantedFacts.model_validate(yaml.safe_load(text))
    except OSError as exc:
        raise BenchmarkDataError(f"planted: cannot read {where} ({exc})") from None
    except yaml.YAMLError as exc:
        raise BenchmarkDataError(f"planted: {where} is not valid YAML ({exc})") from None
    except ValidationError as exc:
        problem = exc.errors()[0]
        raise BenchmarkDataError(
            f"planted: {where}: {'.'.join(map(str, problem['loc'])) or 'top level'}: {problem['msg']}"
        ) from None
