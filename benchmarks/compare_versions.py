"""GraphRAG's own index of *A Christmas Carol* at four GraphRAG versions, audited and compared.

    python benchmarks/compare_versions.py ../shared/fixtures/graphrag-verbs-data [--out DIR] [--verifier lexical]
    python benchmarks/compare_versions.py ../shared/fixtures/graphrag-verbs-data --reuse [--reports 5]

The first form copies the four indexes (3.x at the top level, legacy/v2.7.0, v1.2.0, v0.5.0) to a
temporary folder, runs `veritrail audit-index --all` on each with an offline verifier (`facts`, the
default, or `--verifier lexical`: what compare measures depends on the judge), then `veritrail
compare` on the four, and prints the tables (docs/compare.md shows them).

`--reuse` measures what auditing a second index version costs when the first one's answers are in
the cache: v0.5.0 then v1.2.0 (identical text units, regenerated reports) with the LLM verifier
against the tests' fake OpenAI server, one shared cache; it prints the share of the second audit's
calls answered from the cache.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fake_openai import FakeOpenAI

import veritrail_graphrag.cli as cli

VERSIONS = {"v0.5": "legacy/v0.5.0", "v1.2": "legacy/v1.2.0", "v2.7": "legacy/v2.7.0", "v3.x": "."}
runner = CliRunner()


def _copy(data: Path, version: str, into: Path) -> Path:
    source = (data / VERSIONS[version]).resolve()
    target = into / version
    target.mkdir(parents=True)
    for table in source.glob("*.parquet"):
        shutil.copy2(table, target / table.name)
    return target


def _audit(root: Path, *extra: str) -> tuple[Path, float]:
    started = time.perf_counter()
    out = root / "veritrail" / "index-audit"
    result = runner.invoke(cli.app, ["audit-index", str(root), *extra, "--out", str(out)])
    if result.exit_code != 0:
        raise SystemExit(f"audit of {root} failed ({result.exit_code}):\n{result.output}")
    return out / "report.json", time.perf_counter() - started


def compare_versions(data: Path, out: Path, work: Path, verifier: str) -> None:
    reports = []
    for version in VERSIONS:
        report, seconds = _audit(_copy(data, version, work), "--all", "--verifier", verifier)
        claims = len(json.loads(report.read_text())["results"])
        print(f"{version}: {claims} claims audited in {seconds:.0f} s ({report.stat().st_size / 1e6:.1f} MB report)")
        reports.append(str(report))
    result = runner.invoke(
        cli.app, ["compare", *reports, "--labels", ",".join(VERSIONS), "--out", str(out)], env={"COLUMNS": "200"}
    )
    print(result.output)
    if result.exit_code != 0:
        raise SystemExit(result.exit_code)


def reuse(data: Path, reports: int, work: Path) -> None:
    with FakeOpenAI() as server:
        env = {
            "VERITRAIL_BASE_URL": server.url,
            "VERITRAIL_MODEL": "fake-model",
            "VERITRAIL_API_KEY": "not-a-key",
            "VERITRAIL_CACHE_PATH": str(work / "cache.sqlite"),
        }
        os.environ.update(env)
        for version in ("v0.5", "v1.2"):
            before = server.count
            report, seconds = _audit(_copy(data, version, work), "--reports", str(reports), "--verifier", "llm")
            total = json.loads(report.read_text())["usage"]["total"]
            asked = total["calls"] + total["cached_calls"]
            print(
                f"{version}: {asked} calls, {total['cached_calls']} from the cache "
                f"({100 * total['cached_calls'] / max(1, asked):.1f}% reused), {server.count - before} sent, "
                f"{seconds:.0f} s"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, help="graphrag-verbs-data (the four indexes)")
    parser.add_argument("--out", type=Path, default=Path("veritrail-compare"), help="where compare.* go")
    parser.add_argument("--reuse", action="store_true", help="measure cache reuse between v0.5 and v1.2 instead")
    parser.add_argument("--reports", type=int, default=5, help="--reuse: community reports audited per version")
    parser.add_argument("--verifier", choices=("facts", "lexical"), default="facts", help="the offline verifier")
    args = parser.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with tempfile.TemporaryDirectory(prefix="veritrail-versions-") as folder:
        if args.reuse:
            reuse(args.data, args.reports, Path(folder))
        else:
            compare_versions(args.data, args.out, Path(folder), args.verifier)


if __name__ == "__main__":
    main()
