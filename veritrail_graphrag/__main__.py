"""The `veritrail` command (also `python -m veritrail_graphrag`).

Loading the command takes a moment (pandas, pyarrow, networkx, the verifiers): a Ctrl-C then ends
it with one line and exit code 130, as it does once a command runs, never with a traceback
through the imports. SIGTERM (a CI job cancelled, `kill`, `timeout`) is Ctrl-C too: the same
line, the checkpoint kept and the report's lock released, where the default would end the process
on the spot. An interrupted command then exits at once, without freeing its objects one by one.
"""

from __future__ import annotations

import os
import signal
import sys

INTERRUPTED = 130


def main() -> None:
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        from veritrail_graphrag.cli import app
        from veritrail_graphrag.cli.exit_codes import end_process_when_interrupted
    except KeyboardInterrupt:
        sys.stderr.write("interrupted while starting: nothing was done\n")
        _exit_now()
    end_process_when_interrupted()
    try:
        app(prog_name="veritrail")
    except SystemExit as exc:
        if exc.code != INTERRUPTED:
            raise
        _exit_now()
    except KeyboardInterrupt:  # one more Ctrl-C as the command ended: the line is already printed
        _exit_now()


def _exit_now() -> None:
    """Everything to keep is kept (checkpoint closed, lock released, the line printed): exit
    without freeing an index audit's objects one by one, which would take seconds more."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(INTERRUPTED)


if __name__ == "__main__":
    main()
