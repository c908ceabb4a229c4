"""The Skynet encoders' shape and limits: imports that go one way, small functions, the
minimum cuts against an independent flow library, a horizon of any size answered without
allocating per turn, SAT calls stopped at the deadline, and a time limit the user sets
honoured by the whole command (generous margins: the tight figures are benchmarks')."""

from __future__ import annotations

import ast
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from puzzleproof.encoders.cegar import HOLDS, REFUTED, Budget, limited_solve
from puzzleproof.encoders.skynet_cegar import decide
from puzzleproof.encoders.skynet_reduced import Reduced
from puzzleproof.encoders.skynet_sat import solve as sat_solve
from puzzleproof.formats.skynet import read_map
from puzzleproof.clock import Deadline
from puzzleproof.models.skynet_strategy import check_agent_strategy, check_player_strategy
from puzzleproof.encoders.skynet_explicit import solve as ex_solve
from tests.skynet.test_sat import random_map

from tests.conftest import ROOT
from tests.house.test_layers import LAYERS
PACKAGE = ROOT / "puzzleproof"
EP1 = ROOT / "instances" / "skynet" / "ep1"
# the modules of this area: every Skynet encoder, the generic CEGAR, the explicit solver
AREA = sorted(PACKAGE.glob("encoders/skynet_*.py")) + [
    PACKAGE / "encoders" / "cegar.py", PACKAGE / "encoders" / "skynet_explicit.py"]


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _imports(path: Path) -> set[str]:
    """Every ``puzzleproof`` module ``path`` imports, at any depth of its code (a
    function-level or TYPE_CHECKING import counts too)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return {name for name in out if name.startswith("puzzleproof.")}


def test_the_skynet_encoders_import_one_way():
    """No import cycle among the encoders (every import, lazy ones included), and each
    Skynet encoder imports only the base modules (the house's layer 0), the models and other
    encoders."""
    encoders = {_module(p): p for p in PACKAGE.glob("encoders/*.py")}
    graph = {m: {t for t in _imports(p) if t in encoders} for m, p in encoders.items()}
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                cycle = path[path.index(t):] + [t]
                if any(".skynet_" in x or x.endswith(".cegar") for x in cycle):
                    pytest.fail("import cycle: " + " -> ".join(cycle))
            elif t not in state:
                visit(t, path + [t])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    base = tuple(f"puzzleproof.{m}" for m, layer in LAYERS.items() if layer == 0) + (
        "puzzleproof.models", "puzzleproof.encoders")
    for p in PACKAGE.glob("encoders/skynet_*.py"):
        up = sorted(t for t in _imports(p) if not t.startswith(base))
        assert not up, f"{p.name} imports above the encoders: {up}"


def test_no_function_of_this_area_is_over_80_lines():
    long = []
    for p in AREA:
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if size > 80:
                    long.append(f"{p.name}:{node.lineno} {node.name} ({size} lines)")
    assert not long, long


def test_minimum_cuts_agree_with_networkx():
    """Each region node's minimum cut to the gateways (the lower bounds of the Episode 1
    value and the proposer's pruning) equals a maximum flow of networkx's, an
    implementation that shares nothing with ours (random maps and the shipped ones)."""
    import networkx as nx

    rng = random.Random(29)
    maps = [random_map(rng, rng.randint(4, 14)) for _ in range(60)]
    maps += [read_map(p.read_text(), p.name) for p in sorted(EP1.glob("0[1-5]*.txt"))]
    for m in maps:
        red = Reduced(m, "ep1", m.start)
        g = nx.Graph()
        for u in red.region:
            for w, _ in red.moves[u]:
                g.add_edge(u, w, capacity=1)
            for gate, _ in red.gate_links[u]:
                g.add_edge(u, -1, capacity=g.get_edge_data(u, -1, {}).get("capacity", 0) + 1)
        want = {v: (nx.maximum_flow_value(g, v, -1) if -1 in g and v in g else 0)
                for v in red.region}
        assert red.min_cuts() == want, m


def test_min_cuts_stop_at_the_deadline():
    m = read_map((EP1 / "07-mesh-500.txt").read_text(), "07")
    red = Reduced(m, "ep1", m.start)
    assert red.min_cuts(Deadline(0)) is None
    assert red.min_cuts() is not None and red.min_cuts(Deadline(0)) is not None


@pytest.mark.parametrize("rule", ["ep1", "ep2"])
def test_a_horizon_beyond_the_links_that_matter_is_the_verdict(rule):
    """"Contain within 10^9 cuts?" is the verdict (after the links that matter are cut
    none is left): it agrees with the explicit search on random small maps, the
    strategy written for it replays, and the CEGAR's own game "contain within K?" (K the
    links that matter) agrees with it."""
    rng = random.Random(1 if rule == "ep1" else 2)
    for _ in range(25):
        m = random_map(rng, rng.randint(4, 9))
        r = sat_solve(m, rule, horizon=10**9)
        assert r.status == ex_solve(m, rule, certificate=False).status, m
        assert r.answer["horizon"] == 10**9
        red = Reduced(m, rule, m.start)
        if 0 < red.K <= 12:  # the CEGAR's own bounded game "contain within K?"
            d = decide(red, red.K, True, Budget())
            assert d.status == (HOLDS if r.status.value == "WIN" else REFUTED), m
        if r.certificate is None:
            continue
        if r.status.value == "WIN":
            assert check_player_strategy(m, rule, m.start, r.certificate) == []
            assert r.answer["cuts_needed"] <= red.K
        else:  # the agent reaches a gateway whatever is cut
            assert check_agent_strategy(m, rule, m.start, r.certificate) == []


def test_a_negative_horizon_is_refused():
    from puzzleproof.errors import InputError

    m = read_map((EP1 / "01-line.txt").read_text(), "01")
    with pytest.raises(InputError, match="horizon"):
        sat_solve(m, "ep1", horizon=-1)


def test_a_running_deadline_bounds_the_question():
    """``deadline=`` (a running clock) bounds the question like ``time_limit=``; what was
    proved stays in the UNKNOWN answer."""
    m = read_map((EP1 / "07-mesh-500.txt").read_text(), "07")
    clock = Deadline(0.5)
    r = sat_solve(m, "ep1", value=True, deadline=clock)
    assert r.status.value == "UNKNOWN" and "time limit (0.5 s)" in r.answer["note"]
    assert r.wall_time < 0.5 * 2 + 2
    if "value_lower" in r.answer:
        assert 1 <= r.answer["value_lower"] <= r.answer["value_upper"]


def test_the_explicit_solver_takes_a_running_deadline_too():
    m = read_map((EP1 / "05-mesh-100.txt").read_text(), "05")
    r = ex_solve(m, "ep1", value=True, deadline=Deadline(0.3))
    assert r.status.value == "UNKNOWN" and "time limit (0.3 s)" in r.answer["note"]
    assert r.wall_time < 0.3 * 2 + 2


def _hard_formula():
    """Pigeonhole 11 into 10 (hard UNSAT) with every clause switched off by a selector z:
    under ``[-z]`` a long search, under ``[z]`` satisfied at once."""
    from pysat.examples.genhard import PHP
    from pysat.solvers import Solver

    cnf = PHP(10)
    z = cnf.nv + 1
    return Solver(name="g4", bootstrap_with=[c + [z] for c in cnf.clauses]), z


def test_a_sat_call_stops_at_the_deadline_and_the_solver_stays_usable():
    solver, z = _hard_formula()
    try:
        t0 = time.monotonic()
        budget = Budget(time.monotonic() + 0.3)
        assert limited_solve(solver, [-z], budget) is None
        assert time.monotonic() - t0 < 0.3 + 1.5  # a conflict chunk alone takes seconds
        assert limited_solve(solver, [z], Budget(time.monotonic() + 30)) is True
    finally:
        solver.delete()


def _command(args: list[str], timeout: float, memory: int | None = None
             ) -> tuple[subprocess.CompletedProcess, float]:
    def cap() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "puzzleproof", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, preexec_fn=cap)
    return proc, time.monotonic() - t0


@pytest.mark.slow
@pytest.mark.parametrize("name,question,limit", [
    ("07-mesh-500", ["--min-cuts"], 1.0),
    ("05-mesh-100", ["-H", "50"], 2.0),
    ("07-mesh-500", ["-H", "1000000"], 2.0),
])
def test_the_command_honours_the_time_limit(name, question, limit):
    """The whole command ends within twice the limit plus 5 s (the promise is limit x 1.1
    + 0.2 s + start-up; benchmarks measure that), with an UNKNOWN that names the limit and
    keeps what was proved, and no run above 1.5 GB (a huge horizon allocates nothing per
    turn)."""
    proc, took = _command(["solve", "skynet", str(EP1 / f"{name}.txt"), "--rule", "ep1",
                           *question, "--time-limit", str(limit), "--json"],
                          timeout=60, memory=1536 << 20)
    assert proc.returncode in (0, 1), proc.stderr
    assert took < 2 * limit + 5, f"{took:.1f} s at a {limit} s limit"
    obj = json.loads(proc.stdout)
    if obj["status"] == "UNKNOWN":
        assert "time limit" in obj["answer"]["note"], obj["answer"]
    if "value_lower" in obj["answer"]:
        assert 1 <= obj["answer"]["value_lower"] <= obj["answer"]["value_upper"]
    assert obj["check"] is None or obj["check"]["ok"], obj["check"]


def test_a_huge_horizon_is_answered_not_allocated():
    """-H 10^6 (the most the option takes) without a time limit on a small map: answered
    at once within 1.5 GB, the horizon as asked, the strategy replayed; 10^9 is refused
    when the option is read."""
    proc, took = _command(["solve", "skynet", str(EP1 / "02-star.txt"), "--rule", "ep1",
                           "-H", "1000000", "--json"], timeout=60, memory=1536 << 20)
    assert proc.returncode in (0, 1), proc.stderr
    obj = json.loads(proc.stdout)
    assert obj["status"] in ("WIN", "LOSS") and obj["answer"]["horizon"] == 10**6
    assert obj["check"]["ok"]
    proc, _ = _command(["solve", "skynet", str(EP1 / "02-star.txt"), "--rule", "ep1",
                        "-H", "1000000000"], timeout=60, memory=1536 << 20)
    assert proc.returncode == 2 and "range 0 to 1,000,000" in proc.stderr, proc.stderr


def test_the_fence_seed_cut_is_networkx_minimum_cut():
    """The fence search's seed from a minimum cut (the start's side, the cut nearest the
    gateways) is the partition networkx's ``minimum_cut`` gives, on random multigraphs."""
    import networkx as nx

    from puzzleproof.encoders.skynet_fences import source_side

    rng = random.Random(5)
    tried = 0
    for _ in range(400):
        n = rng.randint(3, 16)
        cap: dict[tuple[int, int], int] = {}
        for _ in range(rng.randint(n, 3 * n)):
            a, b = sorted(rng.sample(range(-1, n), 2))
            cap[(a, b)] = cap.get((a, b), 0) + 1
        ends = {x for key in cap for x in key}
        if -1 not in ends or 0 not in ends:
            continue
        g = nx.Graph()
        for (a, b), c in cap.items():
            g.add_edge(a, b, capacity=c)
        _, (side, _) = nx.minimum_cut(g, 0, -1)
        assert source_side(cap, 0, -1) == set(side), cap
        tried += 1
    assert tried > 300
