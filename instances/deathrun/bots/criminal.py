"""A contest-style Death Run criminal entry (written for puzzleproof's tests and benchmarks).

The contest took the class named BaseCriminal; the other classes are earlier strategies kept
in the file, as entries often did.
"""
import copy
import heapq
import math
import random

import networkx as nx


class RandomCriminal:
    def __init__(self, edge_list, begin, ends):
        self.edges = [(u, v) for u, v, _ in edge_list]

    def strategy(self, edge_updates, vertex_count, budget):
        u, v = random.choice(self.edges)
        return (u, v, random.random() * budget / 10)


class FirstEdgeCriminal:
    """Raise the first link of the most crowded vertex's shortest path by a fixed share."""

    def __init__(self, edge_list, begin, ends):
        self.G = nx.DiGraph()
        for u, v, w in edge_list:
            self.G.add_edge(u, v, weight=w)
        self.ends = set(ends)
        self.sink = max(self.G.nodes) + 1
        for e in ends:
            self.G.add_edge(e, self.sink, weight=0)

    def update(self, edge_updates):
        for (u, v), w in edge_updates.items():
            if w:
                self.G[u][v]["weight"] += w

    def strategy(self, edge_updates, vertex_count, budget):
        self.update(edge_updates)
        crowd = [(n, v) for v, n in vertex_count.items() if n and v not in self.ends]
        if not crowd:
            return (0, 0, 0)
        n, v = max(crowd)
        path = nx.shortest_path(self.G, v, self.sink, weight="weight")
        return (path[0], path[1], min(budget, 3 * n))


class BaseCriminal(FirstEdgeCriminal):
    """Toll the crowded vertex's cheapest link by just under the detour, with some noise."""

    def __init__(self, edge_list, begin, ends):
        super().__init__(edge_list, begin, ends)
        self.turn = 0
        self.history = []

    def dist_to_sink(self):
        rev = self.G.reverse(copy=True)
        return nx.single_source_dijkstra_path_length(rev, self.sink, weight="weight")

    def strategy(self, edge_updates, vertex_count, budget):
        self.turn += 1
        self.update(edge_updates)
        self.history.append(copy.deepcopy(vertex_count))
        d = self.dist_to_sink()
        options = []
        for v, n in vertex_count.items():
            if not n or v in self.ends:
                continue
            conts = []
            for x in self.G.successors(v):
                heapq.heappush(conts, (self.G[v][x]["weight"] + d.get(x, math.inf), x))
            best = heapq.heappop(conts)
            gap = heapq.heappop(conts)[0] - best[0] if conts else 8.0
            toll = max(0.0, min(budget, gap - 0.5 + random.random() * 0.4))
            options.append((toll * n, v, best[1], toll))
        if not options:
            return (0, 0, 0)
        _, u, v, toll = max(options)
        return (u, v, toll)
