"""A lower bound on the least Wiener number of a connected set of each size, by a Lagrangian
relaxation of its pair sum: the bound that makes large maps provable.

Why it holds. For a connected set ``T`` of ``i`` cities, its own distances are no shorter
than the whole map's ``d``, so ``W(T) >= sum of d(u, v) over the pairs of T``. Take any
antisymmetric matrix ``M`` (``M[u, v] = -M[v, u]``): over the ordered pairs of ``T`` it
sums to zero, so the pair sum equals ``sum over u in T of sum over v in T - u of C[u, v]``
with ``C = d / 2 + M``. Row ``u``'s part is at least ``r_u``, the least sum of ``i - 1``
entries of row ``u`` of ``C`` (diagonal left out), and the whole is at least the sum of the
``i`` least ``r_u``. So *every* ``M`` gives a lower bound on every connected set of ``i``
cities, whatever set the search would pick.

Finding a good ``M``. ``M`` is moved by subgradient steps: the cities the bound picked and
the entries each picked row took say where row ``u`` counted ``v`` but row ``v`` did not
count ``u``; ``M`` is raised there (and lowered on the mirror entry) by a Polyak step aimed at
a known upper bound (an order's Wiener number at that size, when the caller has one), the
step halved when 30 steps bring nothing better and the size left once it has been halved
four times. The sizes are taken from large to small, each starting from the ``M`` of the
size before, so a few hundred steps a size suffice. The steps run in compiled code; each
row keeps its columns sorted from step to step (the costs move little, so re-sorting is
about linear). The best of these bounds is that of the linear relaxation in which each pair
is chosen symmetrically (a level-1 reformulation of the quadratic problem); on road-like
maps it meets the least Wiener number or comes within a fraction of a per cent of it, on
small dense ones it is weaker than the branch and bound, which finishes there anyway.

Exact arithmetic. The steps run in floating point, but the bound returned is evaluated in
integers: ``M`` is rounded to multiples of ``1 / 2^21`` and mirrored exactly, so the value
used is the bound of that rounded ``M``, rounded up only because Wiener numbers are
integers. A poor ``M`` gives a weak bound, never a wrong one.

Where it is used: the sizes that the branch and bound
(:mod:`puzzleproof.encoders.cityclose_minima`) does not finish. Where that search finishes,
its exact minimum is the stronger (on small dense maps the relaxation stays a few per cent
below it); on large road-like maps it finishes only the smallest and largest sizes, and this
bound is what makes them provable (``benchmarks/cityclose.py --scale`` prints both sums).
"""

from __future__ import annotations

import numpy as np

from puzzleproof.encoders.cityclose_bits import njit, sort_by_key
from puzzleproof.clock import Deadline

__all__ = ["pair_sum_bound", "pair_sum_bounds"]

#: ``M`` is rounded to multiples of ``1 / (2 * _SCALE)`` for the exact evaluation, its scaled
#: entries kept within ``_CLIP``
_SCALE = 1 << 20
_CLIP = float(1 << 40)
#: steps without a better bound before the step length is halved
_PATIENCE = 30
#: the step factor (1 at first) below which a size is left as it is
_LEAST_FACTOR = 1.0 / 16
#: steps between two looks at the clock, at most, and matrix entries read between them
_CHUNK = 25
_CHUNK_ENTRIES = 1_000_000


def pair_sum_bound(dist: np.ndarray, i: int, m: np.ndarray) -> int:
    """The bound of the antisymmetric ``m`` (any real matrix: its upper triangle is used and
    mirrored) on the least pair sum of a set of ``i`` cities, evaluated exactly: a lower bound
    on the Wiener number of every connected set of ``i`` cities of the map whose distance
    matrix is ``dist``."""
    n = dist.shape[0]
    if i <= 1:
        return 0
    if i > n:
        raise ValueError(f"no set of {i} cities in a map of {n}")
    # any antisymmetric matrix gives a bound, so M may be cleaned and clipped at will: the
    # clip keeps every sum below int64's range and the diagonal above every entry
    scaled = np.nan_to_num(m * (2 * _SCALE), nan=0.0, posinf=_CLIP, neginf=-_CLIP)
    k = np.triu(np.rint(np.clip(scaled, -_CLIP, _CLIP)).astype(np.int64), 1)
    c = dist.astype(np.int64) * _SCALE + (k - k.T)  # 2 * _SCALE * (d / 2 + M')
    np.fill_diagonal(c, np.iinfo(np.int64).max // (4 * n))
    cols = np.partition(c, i - 2, axis=1)[:, :i - 1]
    r = cols.sum(axis=1)
    total = int(np.partition(r, i - 1)[:i].sum())
    return max(0, -((-total) // (2 * _SCALE)))  # the ceiling: Wiener numbers are integers


@njit(cache=True)
def _row_costs(half, m, i, perm, z, r):
    """Each row's least sum of ``i - 1`` entries of ``half + m`` (diagonal left out) into
    ``r``, the entries taken marked in ``z``. ``perm[u]`` orders row ``u``'s columns by cost
    and is kept from step to step: the costs move little, so re-sorting it by insertion is
    about linear."""
    n = half.shape[0]
    key = np.empty(n)
    for u in range(n):
        p = perm[u]
        for j in range(n):
            v = p[j]
            key[j] = np.inf if v == u else half[u, v] + m[u, v]
        sort_by_key(key, p, n)
        total = 0.0
        for j in range(n):
            z[u, p[j]] = j < i - 1
            if j < i - 1:
                total += key[j]
        r[u] = total


@njit(cache=True)
def _steps(half, m, best_m, i, target, has_target, count, state, perm):
    """``count`` subgradient steps on ``m`` (in place) for sets of ``i`` cities. ``state``
    holds the best bound seen (its ``m`` copied into ``best_m``), the step factor, the steps
    since the last gain, and a flag set once the bound reached ``target``, the steps cannot
    move ``m`` or they stalled; ``perm`` the rows' column orders (see :func:`_row_costs`)."""
    n = half.shape[0]
    r = np.empty(n)
    rows = np.zeros(n, dtype=np.bool_)
    z = np.zeros((n, n), dtype=np.bool_)
    for _ in range(count):
        _row_costs(half, m, i, perm, z, r)
        order = np.argsort(r, kind="mergesort")
        value = 0.0
        for j in range(n):
            rows[order[j]] = j < i
            if j < i:
                value += r[order[j]]
        if value > state[0] + 1e-9:
            state[0] = value
            state[2] = 0.0
            best_m[:, :] = m
            if has_target and value > target - 1.0 + 0.05:
                state[3] = 1.0
                return
        else:
            state[2] += 1.0
            if state[2] >= _PATIENCE:
                state[1] *= 0.5
                state[2] = 0.0
                if state[1] < _LEAST_FACTOR:  # stalled: the steps no longer pay
                    state[3] = 1.0
                    return
        g2 = 0.0
        for u in range(n):
            for v in range(u + 1, n):
                if (rows[u] and z[u, v]) != (rows[v] and z[v, u]):
                    g2 += 2.0
        if g2 == 0.0:
            state[3] = 1.0
            return
        aim = target * 1.001 + 1.0 if has_target else abs(state[0]) * 1.05 + 10.0
        step = state[1] * max(aim - value, 1e-3) / g2
        for u in range(n):
            for v in range(u + 1, n):
                a = rows[u] and z[u, v]
                b = rows[v] and z[v, u]
                if a and not b:
                    m[u, v] += step
                    m[v, u] -= step
                elif b and not a:
                    m[u, v] -= step
                    m[v, u] += step


def _improve(half: np.ndarray, i: int, m: np.ndarray, target: float | None, steps: int,
             deadline: Deadline, perm: np.ndarray) -> np.ndarray:
    """Subgradient steps on a copy of ``m`` for sets of ``i`` cities, in chunks between looks
    at the clock; the ``m`` of the best bound seen. Stops early once the bound reaches
    ``target``."""
    m = m.copy()
    best_m = m.copy()
    state = np.array([-np.inf, 1.0, 0.0, 0.0])
    done = 0
    chunk = max(1, min(_CHUNK, _CHUNK_ENTRIES // half.size))  # a step reads every entry
    while done < steps and state[3] == 0.0 and not deadline.expired():
        count = min(chunk, steps - done)
        _steps(half, m, best_m, i, 0.0 if target is None else target, target is not None,
               count, state, perm)
        done += count
    return best_m


def pair_sum_bounds(dist: np.ndarray, sizes, upper: np.ndarray | None = None, *,
                    steps: int = 400, deadline: Deadline | None = None
                    ) -> tuple[np.ndarray, dict]:
    """For each size in ``sizes`` (taken from the largest down), a lower bound on the least
    Wiener number of a connected set of that many cities (index = size; 0 where the deadline
    passed first or the size is below 2). ``dist`` is the map's distance matrix; ``upper``
    (index = size, negative = unknown) gives Wiener numbers of sets known, which the steps aim
    at and stop at. Returns the table and ``{"sizes": how many were bounded}``."""
    n = dist.shape[0]
    dl = deadline if deadline is not None else Deadline(None)
    out = np.zeros(n + 1, dtype=np.int64)
    half = dist.astype(np.float64) / 2.0
    m = np.zeros((n, n))
    perm = np.argsort(half, axis=1, kind="stable")
    done = 0
    for i in sorted({int(s) for s in sizes if 2 <= int(s) <= n}, reverse=True):
        if dl.expired():
            break
        target = None
        if upper is not None and upper[i] >= 0:
            target = float(upper[i])
        m = _improve(half, i, m, target, steps, dl, perm)
        out[i] = pair_sum_bound(dist, i, m)
        done += 1
    return out, {"sizes": done}
