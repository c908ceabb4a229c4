"""League criminal "crowd": a share of the budget on the link the largest crowd takes next.

Each round it finds the vertex with the most students, the first link of their cheapest
route, and raises it by the budget left spread over the rounds left, scaled by the share of
the students standing there. A contest-style file: the strategy is the class BaseCriminal.
"""
import networkx as nx

ROUNDS = 15


class BaseCriminal:
    def __init__(self, edge_list, begin, ends):
        self.G = nx.DiGraph()
        for u, v, w in edge_list:
            self.G.add_edge(u, v, weight=w)
        self.sink = max(self.G.nodes) + 1
        for e in ends:
            self.G.add_edge(e, self.sink, weight=0)
        self.ends = set(ends)
        self.round = 0
        self.first = (edge_list[0][0], edge_list[0][1])

    def strategy(self, edge_updates, vertex_count, budget):
        self.round += 1
        for (u, v), x in edge_updates.items():
            if x:
                self.G[u][v]["weight"] += x
        crowd = [(n, -v) for v, n in vertex_count.items() if n and v not in self.ends]
        if not crowd or budget <= 0:
            return self.first[0], self.first[1], 0
        n, v = max(crowd)
        v = -v
        total = sum(vertex_count.values())
        path = nx.dijkstra_path(self.G, v, self.sink, weight="weight")
        left = max(1, ROUNDS - self.round + 1)
        return v, path[1], min(budget, 2.0 * budget / left * n / max(1, total))
