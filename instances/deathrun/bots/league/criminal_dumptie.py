"""League criminal "dumptie": the strong public criminals' plan, written from its
description: dump on a forced link, otherwise tie the cheapest exit to the second.

- Dump: where students stand on a vertex with one way out (not an end), its whole budget
  goes on that link (the most crowded such vertex; the lowest number on a tie), with
  nothing kept for later rounds: every student there must cross it.
- Tie: otherwise, at the occupied vertex where students x gap is largest, the cheapest exit
  (the out-link of least weight, at the current weights) is raised by the gap to the second
  cheapest, the full gap (all it has if the gap is more). It models no student.
- Nothing when no occupied vertex has a gap (or it is broke).

A contest-style file: the strategy is the class BaseCriminal.
"""

DUMP = True
LESS = 0.0  # how far below the gap the tie stays


class BaseCriminal:
    def __init__(self, edge_list, begin, ends):
        self.w = {(u, v): float(w) for u, v, w in edge_list}
        self.out = {}
        for u, v, _ in edge_list:
            self.out.setdefault(u, []).append(v)
        self.ends = set(ends)
        self.first = (edge_list[0][0], edge_list[0][1])

    def strategy(self, edge_updates, vertex_count, budget):
        for e, x in edge_updates.items():
            if x:
                self.w[e] += x
        occupied = sorted((v, n) for v, n in vertex_count.items()
                          if n and v not in self.ends and self.out.get(v))
        if budget <= 0 or not occupied:
            return self.first[0], self.first[1], 0
        forced = [(n, -v) for v, n in occupied if len(self.out[v]) == 1]
        if DUMP and forced:
            v = -max(forced)[1]
            return v, self.out[v][0], budget
        best = None
        for v, n in occupied:
            if len(self.out[v]) < 2:
                continue
            ws = sorted((self.w[(v, u)], u) for u in self.out[v])
            gap = ws[1][0] - ws[0][0]
            key = (n * gap, n, -v)
            if gap > 0 and (best is None or key > best[0]):
                best = (key, v, ws[0][1], gap)
        if best is None:
            return self.first[0], self.first[1], 0
        _, v, u, gap = best
        return v, u, max(0.0, min(budget, gap - LESS))
