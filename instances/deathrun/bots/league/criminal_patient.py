"""League criminal "patient": spends nothing in a round unless the raise pays this round.

- Dump: where students stand on a vertex with one way out (not an end), its whole budget
  goes on that link (the most crowded such vertex; the lowest number on a tie): they must
  cross it now.
- Tie, only when it pays: at each occupied vertex it tries the full-gap tie (the cheapest
  exit, the out-link of least weight, raised to the weight of the second cheapest) and
  keeps it only if the cheapest route to an end from there, on the weights after the raise,
  still starts with that exit (equal costs count as staying), so the students standing
  there would pay it now; of those it takes the one where students x raise is largest.
- Otherwise it keeps its money for a round where it pays.

A contest-style file: the strategy is the class BaseCriminal.
"""
import heapq
import math


class BaseCriminal:
    def __init__(self, edge_list, begin, ends):
        self.w = {(u, v): float(w) for u, v, w in edge_list}
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
        occupied = sorted((v, n) for v, n in vertex_count.items()
                          if n and v not in self.ends and self.out.get(v))
        if budget <= 0 or not occupied:
            return self.first[0], self.first[1], 0
        forced = [(n, -v) for v, n in occupied if len(self.out[v]) == 1]
        if forced:
            v = -max(forced)[1]
            return v, self.out[v][0], budget
        dist = self.distances()
        best = None
        for v, n in occupied:
            ws = sorted((self.w[(v, u)], u) for u in self.out[v])
            u, raise_ = ws[0][1], min(budget, ws[1][0] - ws[0][0])
            if raise_ <= 0:
                continue
            mine = self.w[(v, u)] + raise_ + dist[u]
            other = min(self.w[(v, x)] + dist[x] for x in self.out[v] if x != u)
            key = (n * raise_, n, -v)
            if mine <= other and (best is None or key > best[0]):
                best = (key, v, u, raise_)
        if best is None:
            return self.first[0], self.first[1], 0
        _, v, u, raise_ = best
        return v, u, raise_
