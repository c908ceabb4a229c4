"""The compiled unit-capacity flows and scans of the exact fewest-cuts search
(encoders/unitflow.py, encoders/skynet_recent.py) against the plain Python versions they
replace: the same flows, the same components, the same order of cuts, the same answers of
the refutation memory, on random multigraphs and random sets of links left."""

from __future__ import annotations

import random

import pytest

from puzzleproof.encoders.maxflow import Network
from puzzleproof.encoders.skynet_recent import Recent
from puzzleproof.encoders.unitflow import UnitNetwork
from tests.conftest import ROOT


def _graph(rng: random.Random) -> list[tuple[int, int]]:
    n = rng.randint(2, 12)
    ends = []
    for _ in range(rng.randint(1, 3 * n)):
        u = rng.randrange(-1, n)
        v = rng.randrange(-1, n)
        if u != v:
            ends.append((u, v))
    return ends or [(0, -1)]


def _component(ends, a, mask):
    """Distances from ``a`` over links left, never through -1; the sink seen; links."""
    dist, queue, links, threat = {a: 0}, [a], 0, False
    for u in queue:
        for k, (x, y) in enumerate(ends):
            if not mask >> k & 1 or u not in (x, y):
                continue
            links |= 1 << k
            w = y if x == u else x
            if w == -1:
                threat = True
            elif w not in dist:
                dist[w] = dist[u] + 1
                queue.append(w)
    return dist, threat, links


@pytest.mark.parametrize("seed", range(40))
def test_compiled_flows_equal_the_python_network(seed):
    rng = random.Random(seed)
    ends = _graph(rng)
    slow, fast = Network(ends, sink=-1), UnitNetwork(ends, sink=-1)
    nodes = sorted({x for e in ends for x in e} - {-1})
    for _ in range(20):
        mask = rng.getrandbits(len(ends))
        a = rng.choice(nodes) if nodes else 0
        if not nodes:
            continue
        limit = rng.randint(1, 4)
        f = slow.flow(a, mask, limit=limit)
        assert fast.paths(a, mask, limit) == (f.value, f.links())
        full = slow.flow(a, mask)
        assert fast.nearest_cut(a, mask) == set(full.cut(full.source_side()))
        dist, threat, links = _component(ends, a, mask)
        doubled = any(sum(1 for k, e in enumerate(ends)
                          if links >> k & 1 and x in e and -1 in e) >= 2 for x in dist)
        assert fast.touching(a, mask) == (threat, links, doubled)
        keeps = {x for k, (u, v) in enumerate(ends) if mask >> k & 1 and -1 in (u, v)
                 for x in (u, v)}
        moves = [(v if u == a else u, k) for k, (u, v) in enumerate(ends)
                 if mask >> k & 1 and a in (u, v) and -1 not in (u, v)]

        def follow(w):
            return sum(1 for k, (u, v) in enumerate(ends) if mask >> k & 1 and w in (u, v)
                       and -1 not in (u, v) and (v if u == w else u) in keeps)

        first = rng.choice([None] + [w for w, _ in moves])
        assert fast.forcing_moves(a, mask, first) == sorted(
            moves, key=lambda m: (m[0] not in keeps, -follow(m[0]), m[0] != first, m))
        order = fast.cut_order(a, mask)
        near = set(full.cut(full.source_side()))
        nearer = {k: min(dist[x] for x in (u, v) if x in dist)
                  for k, (u, v) in enumerate(ends) if links >> k & 1}
        assert order == sorted(nearer, key=lambda k: (k not in near, nearer[k],
                                                      -1 not in ends[k], k))


def test_the_refutation_memory_finds_the_newest_witness_inside_the_links_left():
    rng = random.Random(5)
    rec = Recent(size=8, nbits=70)
    kept: list[tuple[int, int, int]] = []
    for i in range(200):
        node, horizon, links = rng.randrange(3), rng.randint(1, 6), rng.getrandbits(70)
        links &= rng.getrandbits(70) & rng.getrandbits(70)  # sparse witnesses
        rec.add(node, horizon, links, i)
        kept.append((node, horizon, links))
        left, at, need = rng.getrandbits(70) | rng.getrandbits(70), rng.randrange(3), \
            rng.randint(1, 6)
        mine = [(h, w, j) for j, (n, h, w) in enumerate(kept)
                if n == at][-8:]  # the last eight at that node
        want = next(((h, w, j) for h, w, j in reversed(mine)
                     if h >= need and not w & ~left), None)
        assert rec.find(at, need, left) == want


@pytest.mark.slow
def test_an_unprepared_install_keeps_the_limit_and_says_why(tmp_path):
    """With numba's cache empty (a fresh install before ``prepare``) the exact search would
    compile its kernels for about 5 s, which no clock can cut short: under a short limit it
    does not start, the limit holds and the reason names the fix; with time enough it
    compiles (announced) and proves the value; after that nothing is cold."""
    import json
    import os
    import subprocess
    import sys
    import time

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    cold = ("from puzzleproof.encoders.skynet_fewest import kernels_cold; "
            "print(kernels_cold())")
    got = subprocess.run([sys.executable, "-c", cold], capture_output=True, text=True,
                         env=env, timeout=120)
    assert got.stdout.split() == ["True"], got.stderr[-500:]
    path = "instances/skynet/ep1/03-triple-star.txt"
    solve = [sys.executable, "-m", "puzzleproof", "solve", "skynet", path, "--rule", "ep1",
             "--min-cuts", "--json", "--time-limit"]
    t0 = time.monotonic()
    run = subprocess.run(solve + ["3"], capture_output=True, text=True, env=env,
                         timeout=120, cwd=ROOT)
    assert time.monotonic() - t0 < 3 + 10  # start-up and a generous margin
    d = json.loads(run.stdout)
    assert d["status"] == "UNKNOWN" and d["answer"]["value_lower"] <= 14
    assert "puzzleproof prepare" in d["stats"]["exact_search"]["not_started"]
    assert "did not start" in run.stderr
    run = subprocess.run(solve + ["60"], capture_output=True, text=True, env=env,
                         timeout=180, cwd=ROOT)
    assert json.loads(run.stdout)["answer"]["value"] == 14
    assert "compiling the exact fewest-cuts search's loop" in run.stderr
    got = subprocess.run([sys.executable, "-c", cold], capture_output=True, text=True,
                         env=env, timeout=120)
    assert got.stdout.split() == ["False"], got.stderr[-500:]
