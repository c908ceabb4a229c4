"""League student "minimax": three plies of lookahead against two modelled criminals.

Each criminal is modelled on its own: its remaining budget (100 at the start, less its
share of the raises seen; the two shares are split evenly, as the student cannot tell who
raised what) and three plausible moves at the vertex the student stands on: do nothing,
put everything on the link the student cannot avoid (a vertex with one way out), or raise
the cheapest link by the gap to the next best one (so that the student pays the gap
either way). The student takes the move whose worst case over those replies, three of its
own moves deep, is cheapest; beyond the horizon it counts the cheapest path on the current
weights. A contest-style file: the strategy is the class BaseStudent.
"""
import heapq
import math

DEPTH = 3
START = 100.0


class BaseStudent:
    def __init__(self, edge_list, begin, ends):
        self.w = {(u, v): w for u, v, w in edge_list}
        self.out = {}
        self.into = {}
        for u, v, _ in edge_list:
            self.out.setdefault(u, []).append(v)
            self.into.setdefault(v, []).append(u)
        self.ends = set(ends)
        self.spent = 0.0

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

    def value(self, v, depth, b1, b2):
        """The student's worst-case cost from v (before its move there), the criminals
        replying first; the memo is per decision."""
        if v in self.ends:
            return 0.0
        key = (v, depth, round(b1, 6), round(b2, 6))
        if key not in self.memo:
            self.memo[key] = max(self.after(v, depth, r1, r2, b1, b2)
                                 for r1 in self.replies(v, b1) for r2 in self.replies(v, b2))
        return self.memo[key]

    def replies(self, v, b):
        if b <= 0:
            return ["none"]
        return ["none", "all" if len(self.out[v]) == 1 else "gap"]

    def after(self, v, depth, r1, r2, b1, b2):
        """The student's best move at v after the criminals' replies r1 and r2."""
        routes = sorted((self.w[(v, u)] + self.dist[u], u) for u in self.out[v])
        cheapest = routes[0][1]
        gap = routes[1][0] - routes[0][0] if len(routes) > 1 else math.inf
        extra = 0.0
        left = [b1, b2]
        for k, r in enumerate((r1, r2)):
            if r == "all":
                extra += left[k]
                left[k] = 0.0
            elif r == "gap":
                x = min(left[k], max(0.0, gap - 0.01))
                if extra + x < gap:  # a second raise past the gap would only divert
                    extra += x
                    left[k] -= x
        best = math.inf
        for u in self.out[v]:
            c = self.w[(v, u)] + (extra if u == cheapest else 0.0)
            c += self.dist[u] if depth <= 0 else self.value(u, depth - 1, left[0], left[1])
            best = min(best, c)
        return best

    def strategy(self, edge_updates, vertex_count, current_vertex):
        for e, x in edge_updates.items():
            if x:
                self.w[e] += x
                self.spent += x
        self.dist = self.distances()
        self.memo = {}
        left = max(0.0, 2 * START - self.spent) / 2
        best = None
        for u in self.out[current_vertex]:
            c = self.w[(current_vertex, u)] + self.value(u, DEPTH - 1, left, left)
            if best is None or c < best[0]:
                best = (c, u)
        return best[1]
