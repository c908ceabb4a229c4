"""League student "trap": the cheapest path where entering a trap costs a penalty.

A trap is a vertex with a single way out: a criminal can raise that link as much as it likes
and every student standing there must pay it. The penalty is charged on entering a trap
(not an end), so the path keeps away from traps unless avoiding them costs more than it.
A contest-style file: the strategy is the class BaseStudent.
"""
import heapq
import math

PENALTY = 8.0


class BaseStudent:
    def __init__(self, edge_list, begin, ends):
        self.w = {(u, v): w for u, v, w in edge_list}
        self.out = {}
        self.into = {}
        for u, v, _ in edge_list:
            self.out.setdefault(u, []).append(v)
            self.into.setdefault(v, []).append(u)
        self.ends = set(ends)

    def trap(self, v):
        return v not in self.ends and len(self.out.get(v, ())) == 1

    def strategy(self, edge_updates, vertex_count, current_vertex):
        for e, x in edge_updates.items():
            if x:
                self.w[e] += x
        # cost to an end from every vertex, by Dijkstra backwards from the ends
        dist = {e: 0.0 for e in self.ends}
        heap = [(0.0, e) for e in self.ends]
        while heap:
            d, v = heapq.heappop(heap)
            if d > dist.get(v, math.inf):
                continue
            for u in self.into.get(v, ()):
                nd = d + self.w[(u, v)] + (PENALTY if self.trap(v) else 0.0)
                if nd < dist.get(u, math.inf):
                    dist[u] = nd
                    heapq.heappush(heap, (nd, u))
        return min(self.out[current_vertex],
                   key=lambda v: (self.w[(current_vertex, v)] + dist.get(v, math.inf)
                                  + (PENALTY if self.trap(v) else 0.0), v))
