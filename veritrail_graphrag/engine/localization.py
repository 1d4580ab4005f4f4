"""Error-stage localization for Not Fully Supported claims (the paper's section 3.2). Pure logic."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from veritrail_graphrag.engine.trail import Iteration
from veritrail_graphrag.models import SupportGap, Verdict


def error_stages(
    final: Verdict,
    iterations: Sequence[Iteration],
    terminal_stage: int,
    stage_of: Callable[[str], int],
    is_root: Callable[[str], bool],
) -> tuple[list[int] | None, str]:
    """Return (stages, explanation). [] for supported/inconclusive claims; None when unnameable."""
    if final is not Verdict.NOT_FULLY_SUPPORTED:
        return [], ""
    last_supported = next((it for it in reversed(iterations) if it.verdict is Verdict.FULLY_SUPPORTED), None)
    if last_supported is not None:
        # Never roots only: a Fully Supported iteration on roots alone ends the traversal supported.
        stages = sorted({stage_of(n) for n in last_supported.nodes_with_evidence if not is_root(n)})
        return stages, (
            f"iteration {last_supported.index} was the last Fully Supported one; its evidence came "
            f"from non-root nodes at stage(s) {', '.join(map(str, stages))}"
        )
    if all(it.verdict is Verdict.NOT_FULLY_SUPPORTED for it in iterations):
        return [terminal_stage], "no intermediate output supported the claim: it first appears in the terminal"
    return None, "no iteration was Fully Supported and some were Inconclusive: no stage can be named"


def first_holding(
    gaps: Sequence[SupportGap],
    iterations: Sequence[Iteration],
    stage_of: Callable[[str], int],
    is_root: Callable[[str], bool],
    holds: Callable[[str], bool],
) -> tuple[list[int], str] | None:
    """The earliest stage of the intermediate outputs read on the trail whose text holds the words
    the verdict found without support (`holds` answers per node id), with its explanation; None
    when no such text was read. Source text is never blamed: what it holds is no invention."""
    if not gaps:
        return None
    read = sorted({n for it in iterations for n in it.checked if not is_root(n)}, key=lambda n: (stage_of(n), n))
    holding = [n for n in read if holds(n)]
    if not holding:
        return None
    stage = stage_of(holding[0])
    nodes = [n for n in holding if stage_of(n) == stage]
    words = ", ".join(dict.fromkeys(f"'{g.text}'" for g in gaps))
    named = ", ".join(nodes[:3]) + (f" and {len(nodes) - 3} more" if len(nodes) > 3 else "")
    return [stage], (
        f"the words without support in the source ({words}) are first written at stage {stage}, in {named}: "
        "the earliest text read on the trail that holds them"
    )
