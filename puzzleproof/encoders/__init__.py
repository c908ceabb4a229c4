"""How puzzles are solved exactly: encodings of a model and the loops they share."""
