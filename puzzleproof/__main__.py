"""``python -m puzzleproof``: the same as the ``puzzleproof`` command."""

import sys

from puzzleproof.cli import main

sys.exit(main())
