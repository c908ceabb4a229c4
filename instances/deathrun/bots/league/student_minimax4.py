"""League student "minimax4": four of its own moves ahead against three rounds of modelled
raises by both criminals, written from the public description of the strongest contest
student.

The model: before each of the student's next three moves (the first move is made on the
weights it sees now), each of the two criminals acts at the vertex the student stands on,
at that vertex's current weights, in one of three ways:

- pass;
- tie: raise the cheapest exit (the out-link of least weight) to the weight of the second
  cheapest (the two criminals act as if simultaneously: both tying raise it twice);
- dump: at a vertex with one way out, put its whole remaining budget on that link.

The criminals' combined remaining budget is exact: 200 less every raise seen (a student sees
every raise of the round it is made); each criminal is held to half of it. So a vertex with
one way out costs all the money left while money is left, and nothing once the criminals
are broke. The value is the worst case over the criminals' choices of the student's best
reply, four links deep, with nothing counted beyond them. Equal values are broken by the
lowest vertex number, so every copy standing on one vertex makes the same move (the herd).

A contest-style file: the strategy is the class BaseStudent.
"""

MOVES = 4
TOTAL = 200.0
ROUND = 9  # values are compared after rounding to this many decimals (the herd's tie-break)


class BaseStudent:
    def __init__(self, edge_list, begin, ends):
        self.w = {(u, v): float(w) for u, v, w in edge_list}
        self.out = {}
        for u, v, _ in edge_list:
            self.out.setdefault(u, []).append(v)
        for u in self.out:
            self.out[u].sort()
        self.ends = set(ends)
        self.spent = 0.0

    def left(self):
        """The criminals' combined remaining budget (exact)."""
        return max(0.0, TOTAL - self.spent)

    def replies(self, x, b1, b2):
        """The criminals' modelled raises at x: a list of (raise on the cheapest exit, the
        budgets left), one per pair of choices (pass, tie or dump for each)."""
        outs = self.out[x]
        if len(outs) == 1:
            return [(0.0, b1, b2), (b1, 0.0, b2), (b2, b1, 0.0), (b1 + b2, 0.0, 0.0)]
        ws = sorted(self.w[(x, u)] for u in outs)
        gap = ws[1] - ws[0]
        t1, t2 = min(gap, b1), min(gap, b2)
        return [(0.0, b1, b2), (t1, b1 - t1, b2), (t2, b1, b2 - t2),
                (t1 + t2, b1 - t1, b2 - t2)]

    def value(self, x, moves, b1, b2):
        """The worst-case cost of the student's next ``moves`` links from x, the criminals
        raising first."""
        if x in self.ends or moves <= 0:
            return 0.0
        key = (x, moves, round(b1, 6), round(b2, 6))
        if key in self.memo:
            return self.memo[key]
        outs = self.out[x]
        cheapest = min(outs, key=lambda u: (self.w[(x, u)], u))
        worst = None
        for extra, c1, c2 in self.replies(x, b1, b2):
            best = None
            for u in outs:
                c = self.w[(x, u)] + (extra if u == cheapest else 0.0)
                c += self.value(u, moves - 1, c1, c2)
                best = c if best is None else min(best, c)
            worst = best if worst is None else max(worst, best)
        self.memo[key] = worst
        return worst

    def strategy(self, edge_updates, vertex_count, current_vertex):
        for e, x in edge_updates.items():
            if x:
                self.w[e] += x
                self.spent += x
        self.memo = {}
        half = self.left() / 2
        best = None
        for u in self.out[current_vertex]:
            c = self.w[(current_vertex, u)] + self.value(u, MOVES - 1, half, half)
            key = (round(c, ROUND), u)
            if best is None or key < best:
                best = key
        return best[1]
