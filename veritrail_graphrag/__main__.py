"""The `veritrail` command (also `python -m veritrail_graphrag`).

Loading the command takes a moment (pandas, pyarrow, networkx, the verifiers): a Ctrl-C then ends
it with one line and exit code 130, as it does once a command runs, never with a traceback
through the imports.
"""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from veritrail_graphrag.cli import app
    except KeyboardInterrupt:
        sys.stderr.write("interrupted while starting: nothing was done\n")
        raise SystemExit(130) from None
    app(prog_name="veritrail")


if __name__ == "__main__":
    main()
