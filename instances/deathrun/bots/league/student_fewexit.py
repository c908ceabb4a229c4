"""League student "fewexit": the cheapest path where entering a vertex with few ways out
costs a small penalty: 3 for one way out, 2 for two, 1 for three, nothing for more (an end
costs nothing).

The fewer exits a vertex has, the less a student standing there can dodge a raise; the
penalties are small, so the path keeps to the cheap side unless a detour costs little.
Equal costs go to the lowest vertex number. A contest-style file: the strategy is the class
BaseStudent.
"""
import heapq
import math

PENALTY = {1: 3.0, 2: 2.0, 3: 1.0}


class BaseStudent:
    def __init__(self, edge_list, begin, ends):
        self.w = {(u, v): float(w) for u, v, w in edge_list}
        self.out = {}
        self.into = {}
        for u, v, _ in edge_list:
            self.out.setdefault(u, []).append(v)
            self.into.setdefault(v, []).append(u)
        self.ends = set(ends)

    def penalty(self, v):
        if v in self.ends:
            return 0.0
        return PENALTY.get(len(self.out.get(v, ())), 0.0)

    def strategy(self, edge_updates, vertex_count, current_vertex):
        for e, x in edge_updates.items():
            if x:
                self.w[e] += x
        dist = {e: 0.0 for e in self.ends}
        heap = [(0.0, e) for e in self.ends]
        while heap:
            d, v = heapq.heappop(heap)
            if d > dist.get(v, math.inf):
                continue
            for u in self.into.get(v, ()):
                nd = d + self.w[(u, v)] + self.penalty(v)
                if nd < dist.get(u, math.inf):
                    dist[u] = nd
                    heapq.heappush(heap, (nd, u))
        return min(self.out[current_vertex],
                   key=lambda v: (self.w[(current_vertex, v)] + self.penalty(v)
                                  + dist.get(v, math.inf), v))
