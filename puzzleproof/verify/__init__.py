"""What results are CHECKED against: independent brute-force solvers, heuristics, referees."""
