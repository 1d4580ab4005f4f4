"""Audit a GraphRAG project from Python and list what to look at first, as a notebook would.

    python examples/audit_from_python.py path/to/ragtest [--index]

The latest saved query run is audited (with `--index`, the 10 highest-ranked community reports);
the reports are written where `veritrail audit` writes them, and the flagged claims are printed
with the stage each error was most likely introduced at.
"""

from __future__ import annotations

import sys

import veritrail_graphrag as v


def main(root: str, index: bool) -> None:
    report = v.audit_index(root) if index else v.audit(root)
    print(f"{report.summary.claims} claims: {report.summary.verdicts}")
    for result in report.results:
        if result.verdict is v.Verdict.NOT_FULLY_SUPPORTED:
            stages = ", ".join(map(str, result.error_stages or [])) or "unknown"
            print(f"- [{result.terminal}] stage {stages}: {result.claim.text}")


if __name__ == "__main__":
    main(sys.argv[1], "--index" in sys.argv[2:])
