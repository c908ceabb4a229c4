"""A toy puzzle outside the package: Latin square completion, registered as a third-party
plugin would be (see docs/ADDING_A_PUZZLE.md)."""
