"""The ``puzzleproof`` command's first code: a Ctrl-C while the command's modules load
(up to a second or two on a cold start) ends the run as one later would, with
"interrupted" and exit 130, instead of Python's traceback."""

import atexit
import multiprocessing
import os
import signal
import sys
import threading


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
    _leave(main())


def _leave(code: int) -> None:
    """End the process with ``code`` once the command is done, without Python's teardown of
    every loaded module: with the compiled city-closing loops and OR-Tools loaded that
    teardown takes 0.3-0.5 s after the answer is written, time a user waits for nothing
    and a time limit does not cover. What the command leaves to run at exit still runs
    (``atexit`` handlers: finalizers, temporary files) and the streams are flushed; while
    another thread or a child process is still alive, Python's own exit is used, which
    waits for them."""
    if threading.active_count() > 1 or multiprocessing.active_children():
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said
            pass
    os._exit(code)
