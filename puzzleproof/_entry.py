"""The ``puzzleproof`` command's first code: a Ctrl-C while the command's modules load
(up to a second or two on a cold start) ends the run as one later would, with
"interrupted" and exit 130, instead of Python's traceback."""

import os
import signal
import sys


def _interrupted_while_loading(signum: int, frame: object) -> None:
    os.write(2, b"interrupted\n")
    os._exit(130)


def run() -> None:
    """Load the command with Ctrl-C answered, then run it with Python's usual handler (the
    command catches ``KeyboardInterrupt`` itself)."""
    ours = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if ours:
        signal.signal(signal.SIGINT, _interrupted_while_loading)
    from puzzleproof.cli import main

    if ours:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.exit(main())
