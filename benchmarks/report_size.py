"""Size and cost of an audit's reports: report.json, report.html, report.md and the parquet tables.

    python benchmarks/report_size.py ../shared/fixtures/graphrag-verbs-data \
        [--book-log ../shared/benchmarks/booookscore-hier-logs/claude-88000-hier.json] [--skip-all] [--no-browser]

Runs, each in its own process with the offline verifier (wall time and peak RSS from `wait4`):
the bundled sample (`veritrail audit sample_runs/graphrag-christmas-carol`, 7 claims),
`audit-index --reports 20` and `audit-index --all` on a copy of GraphRAG's *A Christmas Carol*
index (3,365 claims), and with `--book-log` one BooookScore book (`--book`, default the one with
the longest final summary). Prints each file's size, bytes per claim, report.json and the
evidence.parquet that holds its sentence texts together, and for report.html the time until the
page is interactive in headless Chromium (Debian's, driven by Playwright) and the time one filter
takes. Targets (issue 10): 10x smaller than version 1 (sample report.json < 100 KB, `--all`
< 14 MB, `--reports 20` < 12 KB per claim), `--all` report.html < 20 MB and interactive within 3 s.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from samples import copy_sample

VERITRAIL = [sys.executable, "-m", "veritrail_graphrag"]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]  # fmt: skip
FILES = ("report.json", "report.html", "report.md", "claims.parquet", "evidence.parquet")


def _run(args: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of one `veritrail` process."""
    started = time.perf_counter()
    process = subprocess.Popen([*VERITRAIL, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"veritrail {' '.join(args)} exited {code}: {process.stderr.read().decode()[-2000:]}")
    return seconds, usage.ru_maxrss / 1024


def _copy_index(data: Path, into: Path) -> Path:
    into.mkdir(parents=True)
    for table in data.glob("*.parquet"):
        shutil.copy2(table, into / table.name)
    return into


def _longest_book(log: Path) -> str:
    books = json.loads(log.read_text(encoding="utf-8"))
    return max(books, key=lambda book: len(books[book]["final_summary"]))


def _interactive(page_path: Path) -> tuple[float, float]:
    """(seconds until the page has drawn its first cards, seconds for one verdict filter)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page()
        started = time.perf_counter()
        page.goto(page_path.as_uri())
        page.wait_for_selector("body[data-ready=true]", timeout=60_000)
        ready = time.perf_counter() - started
        before = page.text_content("#count")
        started = time.perf_counter()
        page.select_option("select[aria-label=verdict]", "Not Fully Supported")
        page.wait_for_function(f"document.getElementById('count').textContent !== {json.dumps(before)}", polling=10)
        filtered = time.perf_counter() - started
        browser.close()
    return ready, filtered


def measure(name: str, args: list[str], folder: Path, browser: bool) -> None:
    seconds, rss = _run(args)
    claims = len(json.loads((folder / "report.json").read_text(encoding="utf-8"))["results"])
    print(f"\n{name}: {claims:,} claims, {seconds:.1f} s, peak RSS {rss:,.0f} MB")
    for file in FILES:
        size = (folder / file).stat().st_size
        print(f"  {file:17} {size / 1e6:8.3f} MB  {size / max(claims, 1) / 1e3:7.1f} KB per claim")
    together = sum((folder / file).stat().st_size for file in ("report.json", "evidence.parquet"))
    print(f"  report.json with its sentence texts (evidence.parquet): {together / 1e6:.3f} MB")
    if browser:
        ready, filtered = _interactive(folder / "report.html")
        print(f"  report.html interactive after {ready:.2f} s in headless Chromium; a verdict filter took {filtered:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("index", type=Path, help="GraphRAG's Christmas Carol index (../shared/fixtures/graphrag-verbs-data)")
    parser.add_argument("--book-log", type=Path, help="a BooookScore hierarchical output (claude-88000-hier.json)")
    parser.add_argument("--book", help="the book to audit in --book-log (default: the longest final summary)")
    parser.add_argument("--skip-all", action="store_true", help="leave out the 3,365-claim --all audit")
    parser.add_argument("--no-browser", action="store_true", help="do not time report.html in Chromium")
    options = parser.parse_args()
    browser = not options.no_browser
    with tempfile.TemporaryDirectory() as work:
        sample = copy_sample("graphrag-christmas-carol", Path(work) / "carol")
        measure("sample (audit)", ["audit", str(sample)], sample / "output/veritrail/queries/handwritten-1", browser)
        if options.book_log:
            log = Path(work) / "books" / options.book_log.name
            log.parent.mkdir()
            shutil.copy2(options.book_log, log)
            book = options.book or _longest_book(log)
            measure(f"BooookScore book {book}", ["audit", str(log), "--book", book], log.with_suffix(".veritrail"), browser)
        index = _copy_index(options.index, Path(work) / "index20")
        measure("audit-index --reports 20", ["audit-index", str(index), "--reports", "20"],
                index / "veritrail" / "index-audit-top-20", browser)  # fmt: skip
        if not options.skip_all:
            index = _copy_index(options.index, Path(work) / "index-all")
            measure("audit-index --all", ["audit-index", str(index), "--all"], index / "veritrail" / "index-audit-all", browser)


if __name__ == "__main__":
    main()
