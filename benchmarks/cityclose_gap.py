"""City closing: what the exact method's lower bound misses on a large map, size by size.

    .venv/bin/python benchmarks/cityclose_gap.py [MAP] [--seconds 120] [--iterations 60]

The exact method's root bound is a sum over the sizes ``s`` of a lower bound ``L(s)`` on the
least Wiener number of a connected set of ``s`` cities (the per-size branch and bound where it
finishes, the Lagrangian bound on the pair sum elsewhere). Against the best order known (its
map of ``s`` cities ``S(s)``, Wiener number ``W(s)``) the gap ``sum W(s) - L(s)`` splits, at
each size, into three parts measured here:

- **nesting**: ``W(s) - W*(s)``, where ``W*(s)`` is the least Wiener number found for any
  connected set of ``s`` cities (a local search of swaps from ``S(s)``): what the order pays
  because its maps must contain each other. No bound made of one size at a time can see it;
- **distances**: ``W*(s) - P*(s)``, where ``P*(s)`` is the least pair sum found with the whole
  map's distances: what a bound on the pair sum loses because a set's own distances are
  longer than the map's (shortest paths through cities that are closed);
- **relaxation**: ``P*(s) - L(s)``: what the Lagrangian relaxation (or an unfinished branch
  and bound) gives away on the pair sum itself.

Last, the pair-sum relaxations of a range of sizes (``--nesting LO-HI``) are coupled by the
nesting of the order (multipliers on ``x[s-1, v] <= x[s, v]``, subgradient steps from the
per-size Lagrangian multipliers), to measure what a dual ascent over that coupling gains.

``W*`` and ``P*`` come from a heuristic search: they are upper bounds on the true least values,
so the nesting part is a lower estimate of what nesting costs and the other two are upper
estimates (a lower ``W*`` found later moves weight from the distances to the nesting). The
incumbent is the widened merged beam that ``solve`` starts from. Every figure is an integer
evaluated exactly (Wiener numbers by BFS, pair sums from the distance matrix).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puzzleproof.clock import Deadline  # noqa: E402
from puzzleproof.encoders import cityclose_exact as E  # noqa: E402
from puzzleproof.encoders.cityclose_bounds import distance_matrix  # noqa: E402
from puzzleproof.encoders.cityclose_graph import csr, wiener_open  # noqa: E402
from puzzleproof.formats.cityclose import read_map  # noqa: E402
from puzzleproof.models.cityclose import CityMap, Rules  # noqa: E402
from puzzleproof.verify.cityclose_methods import merged_beam_incumbent, warm_exact  # noqa: E402

WORLD = ROOT.parent / "shared" / "instances" / "cityclose-world" / "world-land-borders.json"


class Sets:
    """Connected sets of a map as boolean rows, with their Wiener numbers (compiled BFS, -1
    when disconnected) and pair sums under the whole map's distances."""

    def __init__(self, m: CityMap) -> None:
        self.m = m
        self.d = distance_matrix(m.adj).astype(np.int64)
        self.indptr, self.indices = csr(m)
        self.queue = np.empty(m.n, dtype=np.int64)
        self.dist = np.empty(m.n, dtype=np.int64)
        self.nbr = np.zeros((m.n, m.n), dtype=np.bool_)
        for u, v in m.links:
            self.nbr[u, v] = self.nbr[v, u] = True

    def wiener(self, alive: np.ndarray) -> int:
        return int(wiener_open(self.indptr, self.indices, alive, self.queue, self.dist))

    def pair_sum(self, alive: np.ndarray) -> int:
        idx = np.flatnonzero(alive)
        return int(self.d[np.ix_(idx, idx)].sum() // 2)

    def search(self, start: np.ndarray, objective: str, iterations: int, tabu: int = 12
               ) -> int:
        """The least value of ``objective`` (``"wiener"`` or ``"pairs"``) found by a tabu
        search of swaps (one city out, a linked one in, the set kept connected) from
        ``start``; each step takes the best allowed swap, ranked by the pair sum's change
        and, for the Wiener number, the best of the 24 first by its own value."""
        alive = start.copy()
        value = self.wiener(alive) if objective == "wiener" else self.pair_sum(alive)
        best = value
        banned: dict[tuple[int, int], int] = {}
        for it in range(iterations):
            g = self.d[:, alive].sum(axis=1)
            ins = np.flatnonzero(~alive & self.nbr[:, alive].any(axis=1))
            outs = np.flatnonzero(alive)
            if ins.size == 0:
                break
            delta = g[ins][None, :] - self.d[np.ix_(outs, ins)] - g[outs][:, None]
            order = np.argsort(delta, axis=None, kind="stable")
            tried, chosen = 0, None
            for flat in order:
                o, i = outs[flat // ins.size], ins[flat % ins.size]
                if banned.get((int(o), int(i)), -1) > it:
                    continue
                alive[o], alive[i] = False, True
                w = self.wiener(alive)
                if w >= 0:
                    v = w if objective == "wiener" else value + int(delta.flat[flat])
                    if chosen is None or v < chosen[0]:
                        chosen = (v, o, i)
                    tried += 1
                alive[o], alive[i] = True, False
                if tried >= (24 if objective == "wiener" else 1):
                    break
            if chosen is None:
                break
            value, o, i = chosen
            alive[o], alive[i] = False, True
            banned[(int(i), int(o))] = it + tabu
            best = min(best, value)
        return best


def integer_rows(dist: np.ndarray, i: int, mult: np.ndarray) -> np.ndarray:
    """Each row's least sum of ``i - 1`` entries of ``d / 2 + M`` in the Lagrangian bound's
    exact integer units (``1 / (2 * _SCALE)``; see ``pair_sum_bound``)."""
    from puzzleproof.encoders import cityclose_lagrange as L

    n = dist.shape[0]
    k = np.triu(np.rint(np.clip(mult * 2 * L._SCALE, -L._CLIP, L._CLIP)).astype(np.int64), 1)
    c = dist.astype(np.int64) * L._SCALE + (k - k.T)
    np.fill_diagonal(c, np.iinfo(np.int64).max // (4 * n))
    return np.partition(c, i - 2, axis=1)[:, :i - 1].sum(axis=1)


def nested_bound(dist: np.ndarray, lo: int, hi: int, known: np.ndarray, steps: int = 1000
                 ) -> tuple[int, int]:
    """The pair-sum relaxation of sizes ``lo .. hi`` with the nesting of the order dualised:
    each size keeps its Lagrangian multipliers (as the exact method finds them), and
    multipliers ``lam[i, v] >= 0`` on ``x[i-1, v] <= x[i, v]`` move node costs between
    consecutive sizes (subgradient steps aimed at the incumbent's total). Returns (the sum
    of the per-size bounds, the coupled bound), both evaluated exactly in integers: any
    ``lam >= 0`` gives a lower bound on the sum of the Wiener numbers of nested sets."""
    from puzzleproof.encoders import cityclose_lagrange as L

    n = dist.shape[0]
    unit = 2 * L._SCALE
    half = dist.astype(np.float64) / 2.0
    mult, perm = np.zeros((n, n)), np.argsort(half, axis=1, kind="stable")
    sizes = list(range(hi, lo - 1, -1))
    rows, alone = {}, 0
    for i in sizes:
        mult = L._improve(half, i, mult, float(known[i]), 400, Deadline(None), perm)
        rows[i] = integer_rows(dist, i, mult)
        alone += -(-int(np.partition(rows[i], i - 1)[:i].sum()) // unit)
    lam = np.zeros((hi + 2, n))  # lam[i]: on x[i-1] <= x[i]; rows lo and hi + 1 stay 0

    def value(lam_units: np.ndarray) -> tuple[int, dict]:
        total, picks = 0, {}
        for i in sizes:
            v = rows[i] + lam_units[i + 1] - lam_units[i]
            picks[i] = np.argpartition(v, i - 1)[:i]
            total += int(v[picks[i]].sum())
        return total, picks

    target = int(sum(known[i] for i in sizes)) * unit
    best, factor, since = value(lam.astype(np.int64))[0], 1.0, 0
    best_lam = lam.copy()
    for _ in range(steps):
        total, picks = value(np.rint(lam).astype(np.int64))
        if total > best:
            best, best_lam, since = total, lam.copy(), 0
        elif (since := since + 1) >= 30:
            factor, since = factor / 2, 0
        g = np.zeros_like(lam)
        for i in sizes[:-1]:
            g[i][picks[i - 1]] += 1
            g[i][picks[i]] -= 1
        norm = float((g ** 2).sum())
        if norm == 0 or factor < 1e-6:
            break
        lam = np.maximum(0.0, lam + factor * (target - total) / norm * g)
    total, _ = value(np.rint(best_lam).astype(np.int64))
    return alone, -(-total // unit)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("map", nargs="?", default=str(WORLD))
    ap.add_argument("--seconds", type=float, default=120.0,
                    help="the bound tables' time (the exact method gives them half its limit)")
    ap.add_argument("--iterations", type=int, default=60, help="swaps of each local search")
    ap.add_argument("--every", type=int, default=1, help="search every k-th size only")
    ap.add_argument("--nesting", default="70-90",
                    help="the sizes LO-HI whose pair-sum relaxations are coupled by nesting")
    a = ap.parse_args()
    m = read_map(Path(a.map).read_text(), a.map)
    warm_exact("wide" if m.n > E.MAX_WORD_CITIES else "word", told=False)
    print(f"{m.name}: {m.n} cities, {len(m.links)} links  [load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores]")
    t0 = time.monotonic()
    order = merged_beam_incumbent(m, Rules(), 10)(Deadline(120.0))
    ws = E.wiener_sequence(m, order)
    print(f"incumbent (widened merged beam): {sum(ws):,} in {time.monotonic() - t0:.0f} s")
    known = np.full(m.n + 1, -1, dtype=np.int64)
    for t, w in enumerate(ws):
        known[m.n - t] = w
    t0 = time.monotonic()
    _, _, lbmin, stats = E._bound_tables(m, Rules(), True, known, Deadline(a.seconds))
    lbmin[m.n] = ws[0]
    print(f"per-size bounds in {time.monotonic() - t0:.0f} s: sum {int(lbmin[1:].sum()):,}, "
          f"gap {sum(ws) - int(lbmin[1:].sum()):,} ({stats['lagrange']})")
    sets = Sets(m)
    alive = np.ones(m.n, dtype=np.bool_)
    rows = []
    t0 = time.monotonic()
    for t in range(len(ws)):
        s = m.n - t
        if 2 < s < m.n and (m.n - s) % a.every == 0:
            wbest = min(ws[t], sets.search(alive, "wiener", a.iterations))
            pbest = min(sets.pair_sum(alive), sets.search(alive, "pairs", a.iterations), wbest)
            rows.append((s, ws[t], wbest, pbest, int(lbmin[s])))
        if t < len(order):
            alive[order[t]] = False
    print(f"local searches in {time.monotonic() - t0:.0f} s\n")
    report(rows)
    lo, hi = (int(x) for x in a.nesting.split("-"))
    alone, nested = nested_bound(sets.d, lo, hi, known)
    print(f"\nsizes {lo}-{hi} coupled by nesting multipliers: the per-size bounds sum to "
          f"{alone:,}, coupled {nested:,} ({nested - alone:+,}); the best order's maps sum to "
          f"{int(sum(known[lo:hi + 1])):,}")
    return 0


def report(rows: list[tuple[int, int, int, int, int]]) -> None:
    """The parts of the gap by ranges of sizes, and the sizes that hold most of it."""
    print(f"{'sizes':>10} {'gap':>7} {'nesting':>8} {'distances':>9} {'relaxation':>10}")
    edges = [157, 140, 120, 100, 90, 80, 70, 60, 40, 20, 0]
    total = np.zeros(4, dtype=np.int64)
    for hi, lo in zip(edges, edges[1:]):
        part = np.zeros(4, dtype=np.int64)
        for s, w, wb, pb, lb in rows:
            if lo < s <= hi:
                part += (w - lb, w - wb, wb - pb, pb - lb)
        total += part
        if part.any():
            print(f"{f'{lo + 1}-{hi}':>10} {part[0]:>7} {part[1]:>8} {part[2]:>9} {part[3]:>10}")
    print(f"{'all':>10} {total[0]:>7} {total[1]:>8} {total[2]:>9} {total[3]:>10}")
    print("\nthe sizes with the largest gaps: size, W(s), W*(s), P*(s), L(s)")
    for r in sorted(rows, key=lambda r: r[4] - r[1])[:12]:
        print("   ", *r)


if __name__ == "__main__":
    raise SystemExit(main())
