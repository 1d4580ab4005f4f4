"""The manual's picture of report.html (docs/report-html.png), taken again from the current code.

    python benchmarks/report_screenshot.py [--out docs/report-html.png]

Audits a copy of the bundled GraphRAG sample with the default offline verifier, opens its
report.html in headless Chromium (Debian's, driven by Playwright: the `test` extra), shows the
flagged claims with the planted surgeon's evidence trail unfolded, and saves the top of the page.
Prints the verdicts it shows, so the picture and the text beside it can be checked against each
other. Run it whenever report.html or the verdicts on the sample change.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from samples import copy_sample

CHROMIUM = "/usr/bin/chromium"
VIEWPORT = {"width": 1100, "height": 1500}


def main(out: Path) -> None:
    with tempfile.TemporaryDirectory() as work:
        # the path a user types in README command 1, which the page's title shows
        sample = copy_sample("graphrag-christmas-carol", Path(work) / "sample_runs" / "graphrag-christmas-carol")
        subprocess.run([sys.executable, "-m", "veritrail_graphrag", "audit", "sample_runs/graphrag-christmas-carol"],
                       check=True, cwd=work, capture_output=True)  # fmt: skip
        report = sample / "output" / "veritrail" / "queries" / "handwritten-1" / "report.html"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport=VIEWPORT)
            page.goto(report.as_uri())
            page.select_option("select[aria-label=verdict]", "Not Fully Supported")
            card = page.locator("#claims-list article", has_text="surgeon")
            card.locator("details.trail > summary").click()
            card.locator("mark.evidence").first.wait_for()
            print(page.text_content("#count"))
            page.screenshot(path=str(out))
            browser.close()
    print(f"written {out}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "report-html.png")
    main(parser.parse_args().out.resolve())
