"""Skynet certificates the size of the game: position tables with invariant and fixed-path
leaves, the checker's proofs of those leaves against an exhaustive search, tampered tables,
old certificate files, and the seeded maps at CodinGame's limits."""

from __future__ import annotations

import json
import random
from collections import Counter, deque

import pytest

from puzzleproof.cli import main
from puzzleproof.encoders.skynet_sat import SolverCache, solve as sat_solve
from puzzleproof.formats.skynet import read_map
from puzzleproof.generate.skynet_large import LIMITS, codingame_limits_map
from puzzleproof.models.skynet import SkynetMap, norm
from puzzleproof.models.skynet_board import Board
from puzzleproof.models.skynet_strategy import (INVARIANT, check_agent_strategy,
                                                check_player_strategy, invariant_holds,
                                                path_wins)
from puzzleproof.encoders.skynet_explicit import ExplicitSolver, solve as ex_solve
from tests.conftest import ROOT, shared_path

OFFICIAL = "instances/skynet/ep2/{}.txt"


def _map(name: str) -> SkynetMap:
    path = shared_path(OFFICIAL.format(name))
    return read_map(path.read_text(), str(path))


def _random_map(rng: random.Random, n: int) -> SkynetMap:
    links = {norm(rng.randrange(v), v) for v in range(1, n)}
    for _ in range(rng.randint(0, n)):
        u, v = rng.sample(range(n), 2)
        links.add(norm(u, v))
    gates = frozenset(rng.sample(range(1, n), rng.randint(2, 3)))
    return SkynetMap(n, tuple(sorted(links)), gates, start=0)


@pytest.mark.parametrize("name", ["04-ordered-gateways", "06-bobnet-core-network"])
def test_every_start_certified_and_agrees_with_the_explicit_search(name):
    m = _map(name)
    kinds: Counter = Counter()
    with SolverCache() as cache:
        for s in range(m.n):
            if s in m.gateways:
                continue
            r = sat_solve(m, "ep2", s, cache=cache)
            assert r.status.value in ("WIN", "LOSS") and r.check["ok"], (s, r.check)
            check = check_player_strategy if r.status.value == "WIN" else check_agent_strategy
            assert check(m, "ep2", s, r.certificate) == []
            kinds[r.check["certificate"]] += 1
            if name.startswith("04"):  # small enough for the exhaustive search
                assert ex_solve(m, "ep2", s, certificate=False).status == r.status, s
    assert kinds["position-table+invariant"] > 0


def test_invariant_and_fixed_path_agree_with_exhaustive_search():
    """Wherever the checker accepts the invariant, the position is won; wherever it accepts
    a fixed path, lost (Episode 2, random small maps, random positions)."""
    rng = random.Random(18)
    tried = {"invariant": 0, "path": 0}
    for _ in range(150):
        m = _random_map(rng, rng.randint(5, 10))
        ex = ExplicitSolver(m, "ep2", max_nodes=None)
        bd = Board(m, "ep2")
        order = sorted(m.gateway_links)  # the explicit search's bits
        for _ in range(6):
            kept = [l for l in order if rng.random() >= 0.3]
            links = sum(1 << bd.index[l] for l in m.links if l not in m.gateway_links
                        or l in kept)
            mask = sum(1 << k for k, l in enumerate(order) if l in kept)
            a = rng.choice([v for v in range(m.n) if v not in m.gateways])
            won = ex.win(a, mask)
            if invariant_holds(bd, a, links) is None:
                tried["invariant"] += 1
                assert won, (m, a, kept)
            parent = {a: None}  # a shortest walk to every node, tried as a fixed path
            queue = deque([a])
            while queue:
                u = queue.popleft()
                for v, b in bd.inc[u]:
                    if links & b and v not in parent and v not in m.gateways:
                        parent[v] = u
                        queue.append(v)
            for d in parent:
                path = [d]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                if path_wins(bd, a, links, path[::-1]) is None:
                    tried["path"] += 1
                    assert not won, (m, a, kept, path)
    assert tried["invariant"] > 50 and tried["path"] > 50, tried


def _solve_to(tmp_path, name: str, start: int) -> tuple[str, dict]:
    out = tmp_path / f"{name}-{start}.json"
    path = str(shared_path(OFFICIAL.format(name)))
    assert main(["solve", "skynet", path, "--start", str(start), "-o", str(out), "-q"]) == 0
    return path, json.loads(out.read_text())


def _check_exit(tmp_path, path: str, cert: dict, capsys) -> int:
    f = tmp_path / "tampered.json"
    f.write_text(json.dumps(cert))
    code = main(["check", "skynet", path, str(f)])
    capsys.readouterr()
    return code


def test_tampered_tables_fail_check(tmp_path, capsys):
    path, cert = _solve_to(tmp_path, "06-bobnet-core-network", 0)
    m = read_map(open(path).read(), path)
    assert _check_exit(tmp_path, path, cert, capsys) == 0
    cuts = [nid for nid, x in cert["nodes"].items() if "cut" in x and x["next"]]
    assert cuts and any("invariant" in x for x in cert["nodes"].values())
    # one cut changed to a losing one (a legal cut, after which the agent wins somewhere)
    losing = None
    for nid in cuts:
        for link in sorted(m.gateway_links):
            bad = json.loads(json.dumps(cert))
            bad["nodes"][nid]["cut"] = list(link)
            if list(link) != cert["nodes"][nid]["cut"] and check_player_strategy(
                    m, "ep2", 0, bad):
                losing = bad
                break
        if losing:
            break
    assert losing is not None
    assert _check_exit(tmp_path, path, losing, capsys) == 1
    # a missing position
    bad = json.loads(json.dumps(cert))
    nid = next(n for n in cuts if n != cert["root"])
    del bad["nodes"][nid]
    assert _check_exit(tmp_path, path, bad, capsys) == 1
    # an invariant claimed where it does not hold: the start itself (it needs a table)
    bad = json.loads(json.dumps(cert))
    bad["nodes"][bad["root"]] = {"agent": 0, "invariant": INVARIANT}
    assert any("invariant" in p for p in check_player_strategy(m, "ep2", 0, bad))
    assert _check_exit(tmp_path, path, bad, capsys) == 1
    bad["nodes"][bad["root"]]["invariant"] = "trust-me"
    assert _check_exit(tmp_path, path, bad, capsys) == 1


def test_forged_agent_path_fails(tmp_path, capsys):
    m = _map("05-complex-mesh")
    with SolverCache() as cache:
        lost = won = None
        for s in range(m.n):
            if s in m.gateways:
                continue
            r = sat_solve(m, "ep2", s, cache=cache)
            if r.status.value == "LOSS" and lost is None:
                lost = (s, r.certificate)
            if r.status.value == "WIN" and won is None:
                won = s
    s, cert = lost
    assert any("path" in x for x in cert["nodes"].values())
    assert check_agent_strategy(m, "ep2", s, cert) == []
    assert check_agent_strategy(m, "ep1", s, cert)  # a path proves nothing under ep1
    # a path from a won start: no prefix has more gateway links than turns
    walk = [won]
    while len(walk) < 4:
        walk.append(next(v for v in m.neighbours[walk[-1]] if v not in m.gateways))
    forged = {"type": "skynet-agent-strategy", "root": "r",
              "nodes": {"r": {"agent": won, "path": walk}}}
    assert check_agent_strategy(m, "ep2", won, forged)
    f = tmp_path / "forged.json"
    f.write_text(json.dumps({**forged, "rule": "ep2", "start": won}))
    assert main(["check", "skynet", str(shared_path(OFFICIAL.format("05-complex-mesh"))),
                 str(f)]) == 1
    capsys.readouterr()


def test_old_certificate_files_still_check(capsys):
    # written by the tree-keyed builder before the tables (ids per tree node)
    old = ROOT / "tests" / "fuzz_seeds" / "skynet-01.strategy.json"
    assert main(["check", "skynet", str(shared_path(OFFICIAL.format(
        "01-robust-double-gateways"))), str(old)]) == 0
    assert "wins" in capsys.readouterr().out
    # and a pure table from the explicit search, no invariant leaves
    m = _map("04-ordered-gateways")
    cert = ex_solve(m, "ep2", 0).certificate
    assert all("cut" in x for x in cert["nodes"].values())
    assert check_player_strategy(m, "ep2", 0, cert) == []


def test_codingame_limits_maps_are_seeded_and_within_the_limits():
    a, b, c = codingame_limits_map(4), codingame_limits_map(4), codingame_limits_map(5)
    assert a == b and a.start == b.start and a != c
    for m in (a, c):
        assert (m.n, len(m.links), len(m.gateways)) == (500, 1000, 20)
        per = Counter(g for l in m.links for g in l if g in m.gateways
                      and (l[0] in m.gateways) != (l[1] in m.gateways))
        lo, hi = LIMITS["per_gateway"]
        assert all(lo <= per[g] <= hi for g in m.gateways), per
        glo, ghi = LIMITS["gateway_links"]
        assert glo <= sum(per.values()) <= ghi
        assert m.start not in m.gateways
        seen, todo = {0}, [0]  # connected
        while todo:
            for v in m.neighbours[todo.pop()]:
                if v not in seen:
                    seen.add(v)
                    todo.append(v)
        assert len(seen) == m.n


def test_generate_codingame_limits_cli(tmp_path, capsys):
    assert main(["generate", "skynet", "--codingame-limits", "-n", "2", "--seed", "7",
                 "-o", str(tmp_path)]) == 0
    files = sorted(tmp_path.glob("*.txt"))
    assert [f.name for f in files] == ["codingame-limits-s7.txt", "codingame-limits-s8.txt"]
    m = read_map(files[0].read_text(), str(files[0]))
    g = codingame_limits_map(7)
    assert (set(m.links), m.gateways, m.start) == (set(g.links), g.gateways, g.start)
    capsys.readouterr()


def test_fork_search_agrees_with_exhaustive_search_and_its_policy_replays():
    """Where the fork search says the agent wins, the exhaustive search says the start is
    lost and the written policy (replies only where a cut breaks the agent's plan, an
    "otherwise" reply for the rest) replays against every cut; where it says the player's
    invariant holds, the start is won. Without its "otherwise" replies a policy that has
    them fails the replay."""
    from puzzleproof.clock import Deadline
    from puzzleproof.encoders.skynet_forks import ForkSearch
    from puzzleproof.encoders.skynet_reduced import Reduced

    rng = random.Random(41)
    seen = Counter()
    for _ in range(120):
        m = _random_map(rng, rng.randint(6, 12))
        ex = ExplicitSolver(m, "ep2", max_nodes=None)
        for s in [v for v in range(m.n) if v not in m.gateways][:4]:
            red = Reduced(m, "ep2", s)
            if not red.threat:
                continue
            fs = ForkSearch(red)
            got = fs.decide(s, Deadline(None), 4, 100_000)
            won = ex.win(s, (1 << len(ex.g.cuttable)) - 1)
            if got is None:
                continue
            seen[got] += 1
            assert got is (not won), (m, s)
            if got:
                cert = fs.certificate(s, Deadline(None))
                assert check_agent_strategy(m, "ep2", s, cert) == [], (m, s)
                other = [n for n in cert["nodes"].values() if "otherwise" in n]
                seen["otherwise"] += bool(other)
                if other and len(m.gateway_links) > len(other[0]["replies"]):
                    del other[0]["otherwise"]
                    assert check_agent_strategy(m, "ep2", s, cert), (m, s)
    assert seen[True] > 20 and seen[False] > 20 and seen["otherwise"] >= 5, seen


def test_compact_agent_tables_still_replay():
    """Merging the path leaves and moving the most shared reply into "otherwise" keeps
    every lost start's table valid, and it gets no bigger."""
    from puzzleproof.encoders.skynet_certify import agent_certificate
    from puzzleproof.encoders.skynet_reduced import Reduced
    from puzzleproof.encoders.skynet_table import compact_agent_table

    rng = random.Random(38)
    done = 0
    for _ in range(80):
        m = _random_map(rng, rng.randint(6, 11))
        red = Reduced(m, "ep2", 0)
        if not red.threat:
            continue
        cert = agent_certificate(red, None)
        if cert is None:
            continue
        small = compact_agent_table(json.loads(json.dumps(cert)))
        assert check_agent_strategy(m, "ep2", 0, small) == [], m
        assert len(json.dumps(small)) <= len(json.dumps(cert))
        done += 1
    assert done > 10


def test_the_checkers_import_no_solver():
    """The rules and the checkers (``models/``) share nothing with the solvers: no module
    there imports, directly or by name in a string, anything from the layers above (the
    solvers in ``encoders/``, the players, games, verify, generate, the plugins)."""
    import ast
    import re

    above = ("encoders", "formats", "players", "games", "verify", "generate", "puzzles",
             "cli", "api", "report", "plugin")
    found = []
    for p in sorted((ROOT / "puzzleproof" / "models").glob("*.py")):
        for node in ast.walk(ast.parse(p.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if not node.level else ["<relative>"]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and re.fullmatch(r"puzzleproof(\.\w+)+(:[\w.]+)?", node.value):
                names = [node.value.partition(":")[0]]  # a "module:attr" reference
            for n in names:
                if n == "<relative>" or any(n == f"puzzleproof.{a}"
                                            or n.startswith(f"puzzleproof.{a}.")
                                            for a in above):
                    found.append(f"{p.name}: {n}")
    assert not found, found
