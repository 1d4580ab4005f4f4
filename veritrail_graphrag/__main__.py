"""`python -m veritrail_graphrag` is the `veritrail` command."""

from veritrail_graphrag.cli import app

app(prog_name="veritrail")
