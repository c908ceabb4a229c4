"""``python -m puzzleproof``: the same as the ``puzzleproof`` command."""

from puzzleproof._entry import run

if __name__ == "__main__":
    run()
