"""Error-stage localization for Not Fully Supported claims (the paper's section 3.2). Pure logic."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from veritrail_graphrag.engine.trail import Iteration
from veritrail_graphrag.models import Verdict


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
