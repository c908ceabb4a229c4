"""``python -m puzzleproof``: the same as the ``puzzleproof`` command."""

import sys

from puzzleproof.cli import main

if __name__ == "__main__":
    sys.exit(main())
