"""League criminal "tier": the full-gap tie alone, written from the public description.

At the occupied vertex where students x gap is largest it raises the cheapest exit (the
out-link of least weight, at the current weights) by the gap to the second cheapest, the
full gap (all it has if the gap is more), so both exits weigh the same. A vertex with one
way out has no second exit: this criminal never dumps there. It models no student; it does
nothing when no occupied vertex has a gap.

A contest-style file: the strategy is the class BaseCriminal.
"""

DUMP = False
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
