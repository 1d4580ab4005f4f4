"""report.html: one self-contained page (inline CSS and JS, no network) to read an audit in.

The page embeds the report exactly as report.json version 2 stores it, in a `<script
type="application/json">` element, and draws the claims lazily in the browser (`assets/report.js`):
a 3,365-claim index audit is one file that opens in a second, with no server and nothing to fetch.
Streamed claim by claim like report.json.
"""

from __future__ import annotations

from html import escape
from importlib.resources import files
from typing import BinaryIO

from veritrail_graphrag.report.model import AuditReport

_ASSETS = files("veritrail_graphrag.report") / "assets"


def write_html(report: AuditReport, out: BinaryIO) -> None:
    title = escape(f"VeriTrail audit of {report.source}")
    css = (_ASSETS / "report.css").read_text(encoding="utf-8")
    script = (_ASSETS / "report.js").read_text(encoding="utf-8")
    out.write(
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><style>{css}</style></head>\n"
        f'<body><main id="app"><h1>{title}</h1><p id="loading">Loading the report…</p></main>\n'
        f'<script id="report-data" type="application/json">'.encode()
    )
    report.write_json(out, html_safe=True)
    out.write(f"</script>\n<script>{script}</script></body></html>\n".encode())
