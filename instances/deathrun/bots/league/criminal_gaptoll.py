"""League criminal "gap-toll", written from its public description.

At every occupied vertex it compares the students' cheapest route to an end with their best
route that avoids its first link; the difference is the gap (infinite at a vertex with one
way out). It raises the first link of the cheapest route by just under the gap (all it has
when the gap is infinite or larger than its budget) at the vertex where gap x students
waiting is largest: the students there stay on their route and pay. A contest-style file:
the strategy is the class BaseCriminal.
"""
import heapq
import math

EPS = 0.01


class BaseCriminal:
    def __init__(self, edge_list, begin, ends):
        self.w = {(u, v): w for u, v, w in edge_list}
        self.out = {}
        self.into = {}
        for u, v, _ in edge_list:
            self.out.setdefault(u, []).append(v)
            self.into.setdefault(v, []).append(u)
        self.ends = set(ends)
        self.first = (edge_list[0][0], edge_list[0][1])

    def distances(self):
        dist = {e: 0.0 for e in self.ends}
        heap = [(0.0, e) for e in self.ends]
        while heap:
            d, v = heapq.heappop(heap)
            if d > dist.get(v, math.inf):
                continue
            for u in self.into.get(v, ()):
                nd = d + self.w[(u, v)]
                if nd < dist.get(u, math.inf):
                    dist[u] = nd
                    heapq.heappush(heap, (nd, u))
        return dist

    def strategy(self, edge_updates, vertex_count, budget):
        for e, x in edge_updates.items():
            if x:
                self.w[e] += x
        dist = self.distances()
        best = None
        for v, n in vertex_count.items():
            if not n or v in self.ends or v not in self.out:
                continue
            routes = sorted((self.w[(v, u)] + dist.get(u, math.inf), u) for u in self.out[v])
            gap = routes[1][0] - routes[0][0] if len(routes) > 1 else math.inf
            key = (gap * n, n, -v)
            if best is None or key > best[0]:
                best = (key, v, routes[0][1], gap)
        if best is None or budget <= 0:
            return self.first[0], self.first[1], 0
        _, v, u, gap = best
        return v, u, max(0.0, min(budget, gap - EPS))
