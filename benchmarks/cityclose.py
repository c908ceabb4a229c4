"""City closing: heuristics beside the published figures, the exact method's time and memory,
and the integer program's reach.

    .venv/bin/python benchmarks/cityclose.py [--exact-limit 60] [--ilp-limit 60] [--skip-ilp]
        [--only-ilp] [--backends cp-sat,scip,highs] [--skip-atlas] [--sizes 8,10,12,14]
        [--skip-shipped]

Published figures (PUZZLES.md section 3): europe30 greedy 13343 (13352 with other tie-breaks),
beam width 10 13254; europe41 greedy 32544, merged beam width 100 32534. Targets on 2 cores:
the proved optimum of europe30 in <= 60 s and <= 1 GB; europe41 a proved gap <= 0.05 % in
10 minutes (those two maps run with the target's time limit, the others with
``--exact-limit``; a last table says whether each target was met). Each exact run is a fresh
process, so its peak memory (ru_maxrss) is its own.

The ILP section compares the integer program's back ends (CP-SAT; SCIP and HiGHS through
MathOpt) on the same instances: every connected graph of 7 cities from networkx's atlas
(total and largest time, each answer checked against the plain DP), then each back end on the
shipped maps of up to 12 cities (the 11-city roundabout among them) and generated grids and
rings, one fresh process per run. Within a family (grid, ring) a back end that fails to prove
one size is not run on the larger ones.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puzzleproof.formats.cityclose import read_map  # noqa: E402
from puzzleproof.models.cityclose import CityMap, Rules  # noqa: E402
from puzzleproof.verify import cityclose_heuristics as H  # noqa: E402

SHARED = ROOT.parent / "shared" / "instances" / "cityclose"
PUBLISHED = {"europe30": {"greedy": 13343, "beam": 13254},
             "europe41-land-borders": {"greedy": 32544, "merged-beam w100": 32534}}
#: the issue's targets for the exact method: (time limit s, largest proved gap, peak MB)
TARGETS = {"europe30": (60.0, 0.0, 1024.0),
           "europe41-land-borders": (600.0, 0.0005, None)}


def nx_map(name: str) -> CityMap:
    import networkx as nx

    g = nx.karate_club_graph() if name == "karate" else nx.dodecahedral_graph()
    return CityMap(tuple(str(v) for v in g.nodes), tuple(g.edges), name=name)


def maps() -> list[CityMap]:
    out = []
    for f in ("europe30.json", "europe41-land-borders.json", "two-spies-roundabout.json"):
        p = SHARED / f
        if p.exists():
            out.append(read_map(p.read_text(), str(p)))
    return out + [nx_map("karate"), nx_map("dodecahedral")]


def _exact_child(q, m: CityMap, limit: float) -> None:
    from puzzleproof.encoders import cityclose_exact

    t0 = time.monotonic()
    r = cityclose_exact.solve(m, Rules(), time_limit=limit)
    q.put((r.status.value, r.certificate, time.monotonic() - t0,
           resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def _ilp_child(q, m: CityMap, limit: float, backend: str = "cp-sat") -> None:
    from puzzleproof.encoders import cityclose_ilp

    t0 = time.monotonic()
    r = cityclose_ilp.solve(m, Rules(), time_limit=limit, workers=2, backend=backend)
    q.put((r.status.value, r.certificate, time.monotonic() - t0, 0.0))


def _atlas_child(q, backend: str) -> None:
    """Every connected graph of 7 cities, plain rules: (graphs, total s, max s, disagreements
    with the DP)."""
    import networkx as nx

    from puzzleproof.encoders import cityclose_ilp

    total = worst = 0.0
    graphs = wrong = 0
    for g in nx.graph_atlas_g()[1:]:
        if g.number_of_nodes() != 7 or not nx.is_connected(g):
            continue
        m = CityMap(tuple(f"v{i}" for i in g.nodes), tuple(g.edges))
        t0 = time.monotonic()
        r = cityclose_ilp.solve(m, Rules(), workers=1, backend=backend)
        wall = time.monotonic() - t0
        total += wall
        worst = max(worst, wall)
        graphs += 1
        ref = H.dp(m, Rules())
        if r.status != ref.status or r.answer["total"] != ref.answer["total"]:
            wrong += 1
    q.put((graphs, total, worst, wrong))


def in_child(fn, *args):
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=fn, args=(q, *args))  # every child takes the queue first
    p.start()
    out = q.get()
    p.join()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--exact-limit", type=float, default=60.0)
    ap.add_argument("--ilp-limit", type=float, default=60.0)
    ap.add_argument("--skip-ilp", action="store_true")
    ap.add_argument("--only-ilp", action="store_true",
                    help="skip the heuristics and the exact method")
    ap.add_argument("--backends", default="cp-sat,scip,highs",
                    help="the ILP back ends to compare, by name")
    ap.add_argument("--skip-atlas", action="store_true",
                    help="skip the ILP back ends on every graph of 7 cities")
    ap.add_argument("--sizes", default="8,10,12,14",
                    help="the sizes of the generated grids and rings of the ILP reach")
    ap.add_argument("--skip-shipped", action="store_true",
                    help="leave the shipped maps out of the ILP reach")
    a = ap.parse_args()
    ms = maps()
    if not a.only_ilp:
        heuristics_and_exact(ms, a)
    if a.skip_ilp:
        return 0
    ilp_reach(ms, a)
    return 0


def heuristics_and_exact(ms: list[CityMap], a) -> None:
    print("== heuristics (totals; seconds)")
    print(f"{'map':24} {'n':>3} {'greedy':>13} {'greedy-first':>13} {'beam':>13} "
          f"{'merged w10':>13} {'merged w100':>13}  published")
    for m in ms:
        cells = []
        for fn in (lambda: H.greedy(m), lambda: H.greedy(m, tiebreak="first"),
                   lambda: H.beam(m), lambda: H.merged_beam(m),
                   lambda: H.merged_beam(m, width=100)):
            t0 = time.monotonic()
            r = fn()
            total = r.answer["total"] if r.answer else "-"
            cells.append(f"{total} ({time.monotonic() - t0:.2f})")
        pub = ", ".join(f"{k} {v}" for k, v in PUBLISHED.get(m.name or "", {}).items())
        print(f"{m.name:24} {m.n:>3} " + " ".join(f"{c:>13}" for c in cells) + f"  {pub}")
    print(f"\n== exact (layered DP, numba; limit {a.exact_limit:g} s per map, the target's "
          "limit where the issue sets one; fresh process)")
    verdicts = []
    for m in ms:
        target = TARGETS.get(m.name or "")
        limit = target[0] if target else a.exact_limit
        status, cert, wall, rss = in_child(_exact_child, m, limit)
        gap = cert.get("gap")
        print(f"{m.name:24} {status:8} total/upper {cert.get('upper_bound')} lower "
              f"{cert.get('lower_bound')} gap {'-' if gap is None else f'{100 * gap:.3f} %'} "
              f"root bound {cert.get('root_bound')} states {cert.get('states')} "
              f"pruned {cert.get('pruned')} {wall:.1f} s peak {rss:.0f} MB")
        if target:
            t_lim, t_gap, t_mb = target
            ok = (gap is not None and gap <= t_gap and wall <= t_lim
                  and (t_mb is None or rss <= t_mb))
            want = ("proved optimum" if t_gap == 0 else f"proved gap <= {100 * t_gap:.2f} %")
            want += f" in <= {t_lim:g} s" + (f" and <= {t_mb:g} MB" if t_mb else "")
            got = (f"{status}, gap {'-' if gap is None else f'{100 * gap:.3f} %'}, "
                   f"{wall:.1f} s, {rss:.0f} MB")
            verdicts.append(f"{m.name:24} target {want}: {got} -> "
                            f"{'met' if ok else 'MISSED'}")
    print("\n== targets (2 cores)")
    for v in verdicts:
        print(v)


def ilp_reach(ms: list[CityMap], a) -> None:
    from puzzleproof.generate.cityclose import random_map
    import random

    backends = [b.strip() for b in a.backends.split(",") if b.strip()]
    if not a.skip_atlas:
        print("\n== ILP back ends on every connected graph of 7 cities (plain rules, 1 worker; "
              "seconds per graph, the compiled greedy order as the warm start)")
        for b in backends:
            graphs, total, worst, wrong = in_child(_atlas_child, b)
            print(f"{b:8} {graphs} graphs: total {total:.1f} s, max {worst:.2f} s, "
                  f"mean {total / max(graphs, 1):.3f} s, disagreeing with the DP: {wrong}")
    print(f"\n== ILP reach per back end (2 workers where the solver takes them; "
          f"limit {a.ilp_limit:g} s; fresh process)")
    trials = [] if a.skip_shipped else [("shipped", m) for m in ms if m.n <= 12]
    for n in (int(v) for v in a.sizes.split(",") if v.strip()):
        for fam in ("grid", "ring"):
            m = random_map(fam, n, random.Random(n))
            trials.append((fam, CityMap(*_named(m, f"{fam}{n}"))))
    largest = {b: 0 for b in backends}
    for b in backends:
        failed: set[str] = set()
        for fam, m in trials:
            if fam in failed:
                print(f"{b:8} {m.name:24} n={m.n:<3} skipped (a smaller {fam} was not proved)")
                continue
            status, cert, wall, _ = in_child(_ilp_child, m, a.ilp_limit, b)
            gap = cert.get("gap")
            if status == "OPTIMAL":
                largest[b] = max(largest[b], m.n)
            elif fam != "shipped":
                failed.add(fam)
            print(f"{b:8} {m.name:24} n={m.n:<3} {status:8} upper {cert.get('upper_bound')} "
                  f"lower {cert.get('lower_bound')} gap "
                  f"{'-' if gap is None else f'{100 * gap:.2f} %'} {wall:.1f} s")
    for b in backends:
        print(f"largest map {b} proved within {a.ilp_limit:g} s: {largest[b]} cities")


def _named(m: CityMap, name: str):
    return (m.names, m.links, m.coords, m.tags, m.marked, m.aliases, name)


if __name__ == "__main__":
    raise SystemExit(main())
