"""A scripted verifier model for the cited-answer check, and the hand-made example it is tested on.

The oracle reads our entailment prompt back (which spans are visible, which are withheld, the
claim) and answers from a table: a claim is entailed when one of its supporting spans is visible,
contradicted when a contradicting one is, believed without evidence when marked `known`, half
believed when marked `partial`; otherwise the model is unsure and YES is not among its top tokens.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fake_openai import PromptView, Scored

from veritrail_graphrag.cited.prompts import WITHHELD

SPANS = [
    {"sid": "S0", "text": "The auth service validates the token issuer against the JWT_ISSUER environment variable."},
    {"sid": "S1", "text": "Access tokens expire after 15 minutes."},
    {"sid": "S2", "text": "Refresh tokens are stored in an HttpOnly cookie."},
    {"sid": "S3", "text": "How long do refresh tokens last?"},
]

ANSWER = (
    "Auth validates the token issuer against JWT_ISSUER. [S0] "
    "Access tokens expire after 60 minutes. [S1] "
    "Refresh tokens are stored in an HttpOnly cookie [S1]. "
    "Refresh tokens last 30 days [S3]. "
    "JWT stands for JSON Web Token [S0]. "
    "Access tokens are short-lived [S1]. "
    "The service is written in Go. "
    "Passwords are hashed with bcrypt [S9]."
)


@dataclass(frozen=True)
class Rule:
    support: frozenset[str] = frozenset()
    contradict: frozenset[str] = frozenset()
    known: bool = False
    partial: bool = False


def rule(support: str = "", contradict: str = "", known: bool = False, partial: bool = False) -> Rule:
    return Rule(frozenset(support.split()), frozenset(contradict.split()), known, partial)


RULES: dict[str, Rule] = {
    "Auth validates the token issuer against JWT_ISSUER.": rule(support="S0"),
    "Access tokens expire after 60 minutes.": rule(contradict="S1"),
    "Refresh tokens are stored in an HttpOnly cookie.": rule(support="S2"),
    "Refresh tokens last 30 days.": rule(),
    "JWT stands for JSON Web Token.": rule(known=True),
    "Access tokens are short-lived.": rule(support="S1", partial=True),
    "The service is written in Go.": rule(),
    "Passwords are hashed with bcrypt.": rule(),
}

YES = Scored("YES", {"YES": 0.97, " YES": 0.01, "UNSURE": 0.015, "NO": 0.005})
PARTIAL = Scored("YES", {"YES": 0.7, "UNSURE": 0.25, "NO": 0.05})
NO = Scored("NO", {"NO": 0.92, "UNSURE": 0.06, "YES": 0.02})
UNSURE = Scored("UNSURE", {"UNSURE": 0.9, "NO": 0.06, "Unclear": 0.03})
CERTAIN = {"YES": Scored("YES"), "NO": Scored("NO"), "UNSURE": Scored("UNSURE")}


def visible_spans(view: PromptView) -> dict[str, str]:
    return {
        name.removeprefix("span "): body
        for name, body in view.blocks.items()
        if name.startswith("span ") and body != WITHHELD
    }


def entailment_oracle(rules: Mapping[str, Rule] = RULES, certain: bool = False) -> Callable[[dict[str, Any]], Scored]:
    """`certain`: every answer has probability 1 (what sampling needs to certify a 0.95 target)."""

    def respond(request: dict[str, Any]) -> Scored:
        view = PromptView.of(request)
        assert view.task == "entailment check", view.task
        seen = visible_spans(view).keys()
        r = rules[view.claim]
        if r.contradict & seen:
            answer = NO
        elif r.known or (r.support & seen and not r.partial):
            answer = YES
        elif r.support & seen:
            answer = PARTIAL
        else:
            answer = UNSURE
        return CERTAIN[answer.text] if certain else answer

    return respond


def slow_for(claim: str, responder: Callable[[dict[str, Any]], Scored], stop: threading.Event) -> Callable[..., Scored]:
    """`responder`, except that questions about `claim` hang until `stop` is set (server shutdown)."""

    def respond(request: dict[str, Any]) -> Scored:
        if PromptView.of(request).claim == claim:
            stop.wait(30)
        return responder(request)

    return respond
