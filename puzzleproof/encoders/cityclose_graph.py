"""City closing: compiled kernels over a map of any size, held as adjacency lists (CSR) and a
flag per open city: the Wiener number, the path test, and one step of the greedy closing.

The exact engines keep their states as bit sets (:mod:`puzzleproof.encoders.cityclose_bits`
for maps of up to 63 cities, :mod:`puzzleproof.encoders.cityclose_rows` beyond); what they
compute on one map at a time (their own incumbent, a trace back) goes through these loops,
which do not care how many words a set would take.
"""

from __future__ import annotations

import numpy as np

from puzzleproof.encoders.cityclose_bits import njit
from puzzleproof.clock import Deadline
from puzzleproof.models.cityclose import CityMap, Rules, prepare

__all__ = ["csr", "wiener_open", "statuses", "greedy_order"]


def csr(m: CityMap) -> tuple[np.ndarray, np.ndarray]:
    """The map's adjacency lists: ``indices[indptr[v]:indptr[v + 1]]`` are ``v``'s
    neighbours."""
    indptr = np.zeros(m.n + 1, dtype=np.int64)
    nbrs = [m.neighbours(v) for v in range(m.n)]
    for v in range(m.n):
        indptr[v + 1] = indptr[v] + len(nbrs[v])
    indices = np.array([u for row in nbrs for u in row], dtype=np.int64)
    return indptr, indices


@njit(cache=True)
def _bfs(indptr, indices, alive, s, queue, dist):
    """BFS from ``s`` over the open cities (``alive``): ``(the sum of the distances from s,
    the cities reached)``; ``queue`` and ``dist`` are scratch arrays of one entry per
    city."""
    for v in range(alive.shape[0]):
        dist[v] = -1
    dist[s] = 0
    head = 0
    tail = 1
    queue[0] = s
    acc = np.int64(0)
    while head < tail:
        u = queue[head]
        head += 1
        du = dist[u]
        for k in range(indptr[u], indptr[u + 1]):
            w = indices[k]
            if alive[w] and dist[w] < 0:
                dist[w] = du + 1
                acc += du + 1
                queue[tail] = w
                tail += 1
    return acc, tail


@njit(cache=True)
def wiener_open(indptr, indices, alive, queue, dist):
    """The Wiener number of the map on the open cities (``alive``), or -1 when it is
    disconnected; ``queue`` and ``dist`` are scratch arrays of one entry per city."""
    n = alive.shape[0]
    size = 0
    for v in range(n):
        if alive[v]:
            size += 1
    total = np.int64(0)
    for s in range(n):
        if not alive[s]:
            continue
        acc, reached = _bfs(indptr, indices, alive, s, queue, dist)
        if reached != size:
            return np.int64(-1)
        total += acc
    return total // 2


@njit(cache=True)
def _is_path_open(indptr, indices, alive):
    """Whether the (connected) map on the open cities is a path."""
    size = 0
    links2 = 0
    for v in range(alive.shape[0]):
        if not alive[v]:
            continue
        size += 1
        d = 0
        for k in range(indptr[v], indptr[v + 1]):
            if alive[indices[k]]:
                d += 1
        if d > 2:
            return False
        links2 += d
    return links2 // 2 == size - 1


@njit(cache=True)
def statuses(indptr, indices, alive, queue, dist, status):
    """Each open city's status (its total distance to the other open cities, in
    ``status``) on a connected map; returns the Wiener number."""
    total = np.int64(0)
    for s in range(alive.shape[0]):
        status[s] = 0
        if alive[s]:
            status[s] = _bfs(indptr, indices, alive, s, queue, dist)[0]
            total += status[s]
    return total // 2


@njit(cache=True)
def _greedy_step(indptr, indices, alive, keep, no_paths, final_not_path, final):
    """The city the article's greedy closes next (the least Wiener number after closing, the
    last such city on ties, the map connected and within the shape rules), or -1.

    Closing ``v`` never shortens a path, so ``W(S - v) >= W(S) - status(v)``: candidates are
    tried by that bound, least first, and the search stops at a bound above the best value
    found (a candidate with an equal bound may still tie, so it is tried)."""
    n = alive.shape[0]
    queue = np.empty(n, dtype=np.int64)
    dist = np.empty(n, dtype=np.int64)
    status = np.zeros(n, dtype=np.int64)
    size = 0
    for v in range(n):
        if alive[v]:
            size += 1
    w_s = statuses(indptr, indices, alive, queue, dist, status)
    lb = np.full(n, np.int64(1) << 62, dtype=np.int64)
    for v in range(n):
        if alive[v] and not keep[v]:
            lb[v] = w_s - status[v]
    best_w = np.int64(-1)
    best_v = -1
    done = np.zeros(n, dtype=np.bool_)
    while True:
        # the untried city of least bound (a selection, not a sort: few are tried)
        v = -1
        for u in range(n):
            if not done[u] and lb[u] < np.int64(1) << 62 and (v < 0 or lb[u] < lb[v]):
                v = u
        if v < 0 or (best_v >= 0 and lb[v] > best_w):
            break
        done[v] = True
        alive[v] = False
        w = wiener_open(indptr, indices, alive, queue, dist)
        if w >= 0 and ((no_paths > 0 and size - 1 >= no_paths) or
                       (final and final_not_path and size - 1 >= 3)):
            if _is_path_open(indptr, indices, alive):
                w = -1
        alive[v] = True
        if w >= 0 and (best_v < 0 or w < best_w or (w == best_w and v > best_v)):
            best_w = w
            best_v = v
    return best_v


def greedy_order(m: CityMap, rules: Rules, deadline: Deadline | None = None
                 ) -> list[int] | None:
    """The article's greedy order of ``m`` under ``rules`` in compiled code (city indices):
    the exact encoders' own incumbent when the caller gives none. None when greedy gets stuck
    or ``deadline`` passes (the clock is read after every closing)."""
    keep_mask, closings = prepare(m, rules)
    indptr, indices = csr(m)
    alive = np.ones(m.n, dtype=np.bool_)
    keep = np.array([bool(keep_mask >> v & 1) for v in range(m.n)], dtype=np.bool_)
    order: list[int] = []
    for step in range(1, closings + 1):
        if deadline is not None and deadline.expired():
            return None
        v = int(_greedy_step(indptr, indices, alive, keep, rules.no_paths or 0,
                             bool(rules.final_not_path), step == closings))
        if v < 0:
            return None
        alive[v] = False
        order.append(v)
    return order
