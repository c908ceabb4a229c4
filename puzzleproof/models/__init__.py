"""What each puzzle IS: instances, moves, solutions and the rules as plain Python. No solver imports."""
