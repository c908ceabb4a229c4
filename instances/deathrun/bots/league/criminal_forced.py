"""League criminal "forced": everything on a link the students cannot avoid.

Each round it looks for the most crowded vertex with a single way out (not an end) and puts
its whole budget on that link: every student standing there must cross it. With no student
on such a vertex it waits. A contest-style file: the strategy is the class BaseCriminal.
"""


class BaseCriminal:
    def __init__(self, edge_list, begin, ends):
        self.out = {}
        for u, v, _ in edge_list:
            self.out.setdefault(u, []).append(v)
        self.ends = set(ends)
        self.first = (edge_list[0][0], edge_list[0][1])

    def strategy(self, edge_updates, vertex_count, budget):
        best = None
        for v, n in vertex_count.items():
            if n and v not in self.ends and len(self.out.get(v, ())) == 1:
                if best is None or (n, -v) > best[0]:
                    best = ((n, -v), v)
        if best is None or budget <= 0:
            return self.first[0], self.first[1], 0
        v = best[1]
        return v, self.out[v][0], budget
