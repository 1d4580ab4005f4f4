"""Error localization on the planted benchmark: per planted stage, how often the error is detected
and how often the reported error stages name the stage it was planted at.

The cases come from the real *A Christmas Carol* GraphRAG index (see
`veritrail_graphrag/evaluation/planted.py`): one fact changed at one stage (description, community
report, map answer or final answer) and carried into everything downstream. Prints figures and
asserts nothing. Run: `python benchmarks/localization.py [--split test|dev] [--verifier lexical]
[--data DIR]`.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from rich.console import Console

from veritrail_graphrag.evaluation.planted import STAGE_NAMES, load_planted
from veritrail_graphrag.evaluation.render import cost_line, localization_table, summary_table
from veritrail_graphrag.evaluation.runner import evaluate
from veritrail_graphrag.evaluation.splits import Split
from veritrail_graphrag.verifiers.registry import VerifierSpec, prepare_verifier

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=[s.value for s in Split], default=Split.TEST.value)
    parser.add_argument("--verifier", default="lexical")
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help="folder beside fixtures/ (or holding the index)"
    )
    args = parser.parse_args()

    console = Console()
    benchmark = load_planted(args.data)
    built = prepare_verifier(VerifierSpec(name=args.verifier)).build()
    report = evaluate(benchmark, args.verifier, built, Split(args.split))
    verifier = report.systems[0]

    console.print(summary_table(report))
    table = localization_table(report)
    if table is not None:
        console.print(table)
    console.print("Detection per planted stage (that stage's cases against every unchanged claim):")
    for stage, metrics in verifier.by_planted_stage.items():
        console.print(
            f"  stage {stage} ({STAGE_NAMES[int(stage)]}): {metrics.units} units, macro F1 "
            f"{100 * metrics.macro_f1:.1f}, recall of planted errors {100 * metrics.not_supported.recall:.1f}",
            highlight=False,
        )
    named = Counter(
        ",".join(map(str, o.error_stages)) if o.error_stages else ("unnamed" if o.error_stages is None else "none")
        for o in report.outcomes
        if o.planted_stage is not None
    )
    console.print("Stages reported for planted claims: " + ", ".join(f"{k}: {v}" for k, v in sorted(named.items())))
    console.print(cost_line(report), highlight=False)


if __name__ == "__main__":
    main()
