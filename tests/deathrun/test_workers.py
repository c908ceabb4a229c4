"""Death Run bot files in worker processes: contest files unchanged, every kind of failure,
no state leak between games, and no process left behind."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from puzzleproof.errors import InputError
from puzzleproof.models.deathrun import make_graph, generate_graph, play_game
from puzzleproof.models.deathrun_replay import replay
from puzzleproof.games.deathrun_workers import WorkerPool, make_player, parse_bot

from tests.conftest import ROOT
BOTS = ROOT / "instances" / "deathrun" / "bots"
SMALL = make_graph([(0, 1, 2), (0, 2, 3), (1, 3, 4), (1, 4, 5), (2, 3, 1)], 0, [3, 4])

HOSTILE = '''
import os, sys, time, math, random

class Garbage:
    def __init__(self, edge_list, begin, ends):
        self.k = 0
    def strategy(self, updates, counts, budget):
        self.k += 1
        return OUTPUTS[self.k - 1] if self.k <= len(OUTPUTS) else (0, 1, 0)

OUTPUTS = [None, (0, 1), (0, 9, 1), (0, 1, -1), (0, 1, 101), (0, 1, float("nan")),
           (0, 1, float("inf")), "0 1 2", (0, 1, object()), lambda: 1, (0, 1, True),
           [0, 1, 2], (0, 20, 3.5)]

class Hang:
    def __init__(self, edge_list, begin, ends):
        pass
    def strategy(self, updates, counts, budget):
        while True:
            pass

class HangInit:
    def __init__(self, edge_list, begin, ends):
        time.sleep(60)

class Crash:
    def __init__(self, edge_list, begin, ends):
        pass
    def strategy(self, updates, counts, budget):
        raise KeyError("no such thing")

class Printer:
    def __init__(self, edge_list, begin, ends):
        pass
    def strategy(self, updates, counts, budget):
        print("thinking...")
        return (0, 1, 1)

class Exiter:
    def __init__(self, edge_list, begin, ends):
        pass
    def strategy(self, updates, counts, budget):
        os._exit(3)

class Forker:
    """Forks a sleeping child (its pid written beside this file), then plays on."""
    def __init__(self, edge_list, begin, ends):
        pid = os.fork()
        if pid == 0:
            time.sleep(120)
            os._exit(0)
        with open(os.path.join(os.path.dirname(__file__), "child.pid"), "a") as fh:
            fh.write(f"{pid}\\n")
    def strategy(self, updates, counts, budget):
        return (0, 1, 1)

class ForkHang(Forker):
    def strategy(self, updates, counts, budget):
        time.sleep(60)

COUNTER = 0

class Leaky:
    """Returns a raise that grows with a module-level counter: fresh modules keep it at 1."""
    def __init__(self, edge_list, begin, ends):
        global COUNTER
        COUNTER += 1
    def strategy(self, updates, counts, budget):
        return (0, 1, COUNTER)

class Random:
    def __init__(self, edge_list, begin, ends):
        self.edges = [(u, v) for u, v, _ in edge_list]
    def strategy(self, updates, counts, budget):
        u, v = random.choice(self.edges)
        return (u, v, random.randint(0, 5))
'''

STUDENT = '''
import random
class BaseStudent:
    def __init__(self, edge_list, begin, ends):
        self.adj = {}
        for u, v, _ in edge_list:
            self.adj.setdefault(u, []).append(v)
    def strategy(self, updates, counts, at):
        return random.choice(self.adj[at])

class Garbage:
    def __init__(self, edge_list, begin, ends):
        self.k = 0
    def strategy(self, updates, counts, at):
        self.k += 1
        return [None, "1"][self.k - 1] if self.k < 3 else 3
'''


@pytest.fixture()
def bots(tmp_path: Path) -> Path:
    (tmp_path / "hostile.py").write_text(HOSTILE)
    (tmp_path / "student.py").write_text(STUDENT)
    return tmp_path


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _game(pool, crim_spec, seed=0, graph=SMALL, student="student.py", d=None):
    crim = [make_player(str(d / crim_spec), "criminal", pool)]
    studs = [make_player(str(d / student), "student", pool), make_player("greedy", "student")]
    return play_game(graph, crim, studs, seed=seed)


class TestFailures:
    def test_garbage_every_kind(self, bots):
        g = make_graph([(i, i + 1, 1) for i in range(15)] + [(0, 20, 5), (20, 2, 1)], 0, [15])
        with WorkerPool(move_timeout=2) as pool:
            rec = _game(pool, "hostile.py:Garbage", graph=g, d=bots)
        moves = [rr["criminals"][0] for rr in rec["rounds"]]
        assert [m["valid"] for m in moves] == [False] * 11 + [True] * 4
        reasons = " | ".join(m["reason"] for m in moves[:11])
        for needle in ["triple", "not an edge", "negative", "exceeds the budget", "not finite",
                       "garbage output", "not a number"]:
            assert needle in reasons
        assert moves[12]["move"] == [0, 20, 3.5]
        assert [m["round"] for m in rec["invalid_moves"]] == list(range(1, 12))
        assert replay(rec) == []

    @pytest.mark.slow
    def test_hang_is_a_timeout_and_the_worker_is_replaced(self, bots):
        with WorkerPool(move_timeout=0.3) as pool:
            t0 = time.monotonic()
            rec = _game(pool, "hostile.py:Hang", d=bots)
            assert time.monotonic() - t0 < 5
            c = [rr["criminals"][0] for rr in rec["rounds"]]
            assert "timeout" in c[0]["reason"] and "timed out in round 1" in c[1]["reason"]
            assert rec["rounds"][0]["students"][0]["valid"]  # the others play on
            rec2 = _game(pool, "hostile.py:Crash", d=bots)
            assert "KeyError" in rec2["invalid_moves"][0]["reason"]
            assert pool.started == 3  # hang's worker was replaced
            assert replay(rec) == [] and replay(rec2) == []

    def test_hanging_init(self, bots):
        with WorkerPool(init_timeout=0.5) as pool:
            rec = _game(pool, "hostile.py:HangInit", d=bots)
        assert rec["init"][0]["ok"] is False and "init timeout" in rec["init"][0]["reason"]
        assert all(not rr["criminals"][0]["valid"] for rr in rec["rounds"])

    def test_print_exit_and_student_garbage(self, bots):
        with WorkerPool() as pool:
            rec = _game(pool, "hostile.py:Printer", d=bots)
            assert all("printed to stdout" in rr["criminals"][0]["reason"]
                       for rr in rec["rounds"])
            rec = _game(pool, "hostile.py:Exiter", d=bots)
            assert "exit code 3" in rec["rounds"][0]["criminals"][0]["reason"]
            rec = _game(pool, "hostile.py:Random", student="student.py:Garbage", d=bots)
            st = [rr["students"][0] for rr in rec["rounds"]]
            assert not st[0]["valid"] and not st[1]["valid"]
            assert replay(rec) == []

    @pytest.mark.slow
    def test_forked_children_are_killed(self, bots):
        with WorkerPool(move_timeout=0.3) as pool:
            _game(pool, "hostile.py:Forker", d=bots)
            _game(pool, "hostile.py:ForkHang", d=bots)
            workers = pool.pids()
        pids = [int(x) for x in (bots / "child.pid").read_text().split()]
        assert len(pids) == 2
        time.sleep(0.2)
        assert not any(_alive(p) for p in pids + workers)

    def test_workers_die_with_their_parent(self, bots, tmp_path):
        script = tmp_path / "parent.py"
        script.write_text(textwrap.dedent(f"""
            import sys, time
            sys.path.insert(0, {str(ROOT)!r})
            from puzzleproof.games.deathrun_workers import WorkerPool, make_player
            pool = WorkerPool()
            p = make_player({str(bots / 'hostile.py:Forker')!r}, "criminal", pool)
            p.start([(0, 1, 1)], 0, [1], "0:0")
            print(*pool.pids(), flush=True)
            time.sleep(60)
        """))
        proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                                text=True)
        try:
            workers = [int(x) for x in proc.stdout.readline().split()]  # type: ignore[union-attr]
        finally:
            proc.kill()
            proc.wait()
        children = [int(x) for x in (bots / "child.pid").read_text().split()]
        assert workers and children
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(_alive(p) for p in workers + children):
            time.sleep(0.1)
        left = [p for p in workers + children if _alive(p)]
        for p in left:  # so that a failure leaves nothing running either
            try:
                os.kill(p, 9)
            except OSError:
                pass
        assert not [p for p in workers if p in left], "a worker outlived its parent"
        assert not [p for p in children if p in left], \
            "a child the bot forked outlived the parent killed with SIGKILL"


class TestFiles:
    @pytest.mark.slow
    def test_contest_style_files_run_unchanged(self):
        g = generate_graph(4)
        with WorkerPool() as pool:
            crim = [make_player(str(BOTS / "criminal.py"), "criminal", pool),
                    make_player(str(BOTS / "criminal.py:FirstEdgeCriminal"), "criminal", pool)]
            studs = [make_player(str(BOTS / s), "student", pool) for s in
                     ["student.py", "student.py:DijkstraStudent", "student.py:RandomStudent"]]
            studs += [make_player("greedy", "student") for _ in range(5)]
            rec = play_game(g, crim, studs, seed=2)
        assert rec["invalid_moves"] == []
        assert replay(rec) == []
        assert rec["scores"]["criminals"][0] > 0

    def test_no_state_leaks_and_random_bots_replay(self, bots):
        with WorkerPool() as pool:
            a = _game(pool, "hostile.py:Leaky", d=bots)
            b = _game(pool, "hostile.py:Leaky", d=bots)
            assert pool.started == 2  # the same workers served both games
            assert a == b and a["rounds"][0]["criminals"][0]["move"] == [0, 1, 1]
            r1 = _game(pool, "hostile.py:Random", seed=5, d=bots)
            r2 = _game(pool, "hostile.py:Random", seed=5, d=bots)
            r3 = _game(pool, "hostile.py:Random", seed=6, d=bots)
        assert r1 == r2 and r1["rounds"] != r3["rounds"]

    def test_bad_specs(self, bots):
        with pytest.raises(InputError, match="no such bot file"):
            parse_bot(str(bots / "nope.py"), "student")
        with pytest.raises(InputError, match="defines no class 'BaseCriminal'"):
            parse_bot(str(bots / "hostile.py"), "criminal")
        with pytest.raises(InputError, match="no built-in"):
            parse_bot("cleverest", "student")
        (bots / "broken.py").write_text("class BaseStudent(:\n")
        with pytest.raises(InputError, match="not valid Python"):
            parse_bot(str(bots / "broken.py"), "student")
        assert parse_bot(str(bots / "hostile.py:Hang"), "criminal").cls == "Hang"
