"""puzzleproof: exact, proved solvers for puzzles and small games, and a judge of heuristics.

Layers (see ``docs``/DESIGN): ``models`` says what a puzzle is and checks answers,
``encoders`` solves exactly, ``verify`` holds what answers are checked against,
``formats`` reads and writes what users bring, ``generate`` makes hard instances.
"""

__version__ = "0.1.0"
