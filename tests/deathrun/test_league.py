"""The new Death Run bots (``planner`` student, ``pricer`` criminal) and the league of
sparring partners: valid moves on many contest graphs, the budget a student infers, the
planner's certificate, models that recognise the strategy they model, and league files
that play as their descriptions say."""

from __future__ import annotations

import importlib.util
import math

import pytest

from puzzleproof.encoders.deathrun_robust import robust_table
from puzzleproof.models.deathrun import InProcessPlayer, generate_graph, make_graph, play_game
from puzzleproof.models.deathrun_replay import replay
from puzzleproof.players.deathrun_bots import CRIMINAL_BOTS, STUDENT_BOTS, bot_class
from puzzleproof.players.deathrun_criminal_models import View, forced, gap_described
from puzzleproof.players.deathrun_planner import PlannerStudent
from puzzleproof.players.deathrun_student_models import Herd, Scene
from puzzleproof.players.deathrun_pricer import PricerCriminal, crowd_builtin

from tests.conftest import ROOT, spread
LEAGUE = ROOT / "instances/deathrun/bots/league"


def league(name: str):
    """A league file's contest class, loaded in this process."""
    path = LEAGUE / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_league_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, "BaseCriminal" if name.startswith("criminal") else "BaseStudent")


def player(name: str, role: str) -> InProcessPlayer:
    if name.startswith(("criminal_", "student_")):
        return InProcessPlayer(league(name), name)
    return InProcessPlayer(bot_class(name, role), name)


LEAGUE_CRIMINALS = ["criminal_forced", "criminal_gaptoll", "criminal_crowd"]
LEAGUE_STUDENTS = ["student_greedy", "student_trap", "student_minimax"]


def test_the_new_bots_are_built_in():
    assert "planner" in STUDENT_BOTS and "pricer" in CRIMINAL_BOTS
    assert bot_class("planner", "student") is PlannerStudent
    assert bot_class("pricer", "criminal") is PricerCriminal


def _invalid_moves_league(ks: list[int]) -> list:
    """The games of seeds ``ks`` (see the test below): each invalid move of ours, and the
    replay's problems of every 25th game."""
    partners = ["gap-toll", "crowd", "random", "pricer"]
    fast = ["greedy", "random", "cautious"]
    found = []
    for k in ks:
        g = generate_graph(f"league-valid:{k}")
        crims = [player("pricer", "criminal"), player(partners[k % 4], "criminal")]
        studs = [player("planner", "student")] + [player(fast[(k + j) % 3], "student")
                                                   for j in range(7)]
        rec = play_game(g, crims, studs, seed=k)
        found += [(k, m) for m in rec["invalid_moves"] if m["bot"] in ("planner", "pricer")]
        if k % 25 == 0:
            found += [(k, problem) for problem in replay(rec)]
    return found


@pytest.mark.slow
def test_no_invalid_move_on_40_random_contest_graphs():
    """40 contest graphs (seeds never used elsewhere); each game seats the two new bots
    (the pricer twice in one of every four games, so it also meets itself) among fast
    partners, and every move they make must be valid (the games shared by both cores; the
    tournaments of ``benchmarks/deathrun.py`` count invalid moves over thousands more)."""
    bad = spread(_invalid_moves_league, range(40))
    assert not bad, bad[:3]


class Watched(PlannerStudent):
    """A planner that notes, at every move, the combined budget it infers and its split."""

    log: list = []

    def strategy(self, edge_updates, vertex_count, current_vertex):
        out = super().strategy(edge_updates, vertex_count, current_vertex)
        Watched.log.append((self.rnd, self.left, self.split, self.guarantee, self.bound,
                            self.slack))
        return out


@pytest.mark.parametrize("pair", [
    ("criminal_forced", "criminal_gaptoll"), ("criminal_gaptoll", "criminal_crowd"),
    ("criminal_crowd", "criminal_forced"), ("toll", "criminal_gaptoll"),
    ("pricer", "gap-toll"), ("random", "crowd"), ("criminal_gaptoll", "criminal_gaptoll")])
def test_the_combined_budget_inferred_is_the_true_one(pair):
    """Against every league criminal (and the built-ins): after each move the planner's
    combined remaining budget equals the engine's, and its per-criminal split (an estimate)
    sums to it, each part within 0..100."""
    for gseed in (3, 8):
        g = generate_graph(f"league-budget:{gseed}")
        Watched.log = []
        studs = [InProcessPlayer(Watched, "planner")]
        studs += [player(n, "student") for n in LEAGUE_STUDENTS + ["greedy", "robust",
                                                                  "cautious", "student_greedy"]]
        rec = play_game(g, [player(pair[0], "criminal"), player(pair[1], "criminal")], studs,
                        seed=gseed)
        assert rec["invalid_moves"] == []
        true_left = {}
        for rr in rec["rounds"]:
            spent = sum(c["move"][2] for c in rr["criminals"] if c["valid"])
            before = sum(c["budget"] for c in rr["criminals"])
            true_left[rr["round"]] = before - spent
        assert len(Watched.log) == len(rec["rounds"])
        for rnd, left, split, guarantee, bound, slack in Watched.log:
            assert left == pytest.approx(true_left[rnd], abs=1e-6)
            assert sum(split) == pytest.approx(left, abs=1e-6)
            assert all(-1e-9 <= b <= 100 + 1e-9 for b in split)
        assert rec["scores"]["students"][0] <= Watched.log[0][4] + Watched.log[0][5] + 1e-9


class Stalker:
    """A criminal that puts its budget on the planner's vertex every round (the worst case
    the planner's certificate must survive): it watches the seat-2 student's position
    through the counts' changes, crudely, and strikes the cheapest link there."""

    def __init__(self, edge_list, begin, ends):
        self.g = make_graph(edge_list, begin, ends)

    def strategy(self, edge_updates, vertex_count, budget):
        occupied = [v for v, n in vertex_count.items() if n and v not in self.g.end_set]
        if not occupied:
            return 0, 1, 0
        v = min(occupied)
        u = min(self.g.out[v], key=lambda t: t[1])[0]
        return v, u, budget * 0.5


@pytest.mark.slow
def test_the_planner_stays_within_its_certificate():
    for k in range(6):
        g = generate_graph(f"league-cert:{k}")
        bound = robust_table(g, 200, 1.0, lower=False).bound()
        rec = play_game(g, [InProcessPlayer(Stalker), InProcessPlayer(Stalker)],
                        [player("planner", "student") for _ in range(8)], seed=k)
        for s in rec["scores"]["students"]:
            assert s <= bound + PlannerStudent.slack + 1e-9


def test_the_pricer_predicts_a_gap_toll_partner_and_keeps_clear_of_it():
    g = generate_graph("league-partner:1")
    predicted = []

    class Pricer(PricerCriminal):
        def _predict_partner(self, view):
            out = super()._predict_partner(view)
            predicted.append(out)
            return out

    Pricer.rivalry = 0.0  # it keeps clear of its partner (a spoil raises the same link)
    studs = [player(n, "student") for n in ["greedy", "student_greedy"] * 4]
    rec = play_game(g, [InProcessPlayer(Pricer), player("criminal_gaptoll", "criminal")],
                    studs, seed=1)
    actual = [tuple(rr["criminals"][1]["move"][:2]) if rr["criminals"][1]["move"][2] > 0
              else None for rr in rec["rounds"]]
    hits = sum(1 for p, a in zip(predicted, actual) if (p[0] if p and p[1] > 0 else None) == a)
    assert hits >= len(actual) - 2, (predicted, actual)
    collide = sum(1 for rr in rec["rounds"]
                  if all(c["valid"] and c["move"][2] > 0 for c in rr["criminals"])
                  and rr["criminals"][0]["move"][:2] == rr["criminals"][1]["move"][:2])
    assert collide <= 2


def test_a_spoiled_toll_earns_nothing():
    """Spoiling: the pricer raises its partner's tolled link just past the gap, so the
    greedy students there divert and the partner's raise earns nothing that round."""
    g = generate_graph("league-partner:1")
    studs = [player("greedy", "student") for _ in range(8)]
    rec = play_game(g, [player("pricer", "criminal"), player("criminal_gaptoll", "criminal")],
                    studs, seed=1)
    spoiled = 0
    for rr in rec["rounds"]:
        a, b = rr["criminals"]
        if a["valid"] and b["valid"] and a["move"][2] > 0 and a["move"][:2] == b["move"][:2]:
            spoiled += 1
            u, v = a["move"][:2]
            assert not any(s["at"] == u and s["to"] == v for s in rr["students"])
    assert spoiled >= 1


def test_crowd_builtin_predicts_the_built_in_crowd_criminal():
    """The pricer's model of the built-in crowd, run on what the crowd saw each round,
    makes the move it made (link and amount)."""
    g = generate_graph("league-crowd:2")
    studs = [player(n, "student") for n in ["greedy", "cautious", "random", "robust"] * 2]
    rec = play_game(g, [player("crowd", "criminal"), player("gap-toll", "criminal")], studs,
                    seed=5)
    weight = dict(g.weight)
    for rr in rec["rounds"]:
        counts = {v: n for v, n in rr["criminal_view"]["counts"]}
        me = rr["criminals"][0]
        pred = crowd_builtin(View(g, dict(weight), counts, float(me["budget"]), rr["round"]))
        if me["move"][2] > 0:
            assert pred is not None and pred[0] == tuple(me["move"][:2]), rr["round"]
            assert pred[1] == pytest.approx(me["move"][2])
        else:
            assert pred is None or pred[1] <= 1e-9
        for c in rr["criminals"]:
            if c["valid"] and c["move"][2]:
                u, v, w = c["move"]
                weight[(u, v)] += w


def test_the_pricer_tolls_greedy_students_below_what_they_pay():
    """Against eight greedy students and a partner that only strikes vertices with one way
    out, every toll the pricer puts on a vertex where the herd holds the greedy model alone
    is paid by every student standing there."""
    known = []

    class Pricer(PricerCriminal):
        def strategy(self, edge_updates, vertex_count, budget):
            u, v, w = super().strategy(edge_updates, vertex_count, budget)
            known.append(self.herd.groups(u) == [("greedy", 1.0)])
            return u, v, w

    checked = 0
    for k in range(4):
        known.clear()
        g = generate_graph(f"league-toll:{k}")
        studs = [player("greedy", "student") for _ in range(8)]
        rec = play_game(g, [InProcessPlayer(Pricer), player("criminal_forced", "criminal")],
                        studs, seed=k)
        for rr, alone in zip(rec["rounds"], known):
            u, v, w = rr["criminals"][0]["move"]
            at_u = [s for s in rr["students"] if s["at"] == u]
            if w > 0 and at_u and alone:
                checked += 1
                assert all(s["to"] == v for s in at_u), (k, rr["round"])
        assert rec["scores"]["criminals"][0] > 0
    assert checked >= 10


def test_the_herd_follows_the_students_it_models():
    """Eight greedy students: the herd's greedy model stands where they all stand, every
    round, and the models whose vertex is empty leave the field."""
    g = generate_graph("league-herd:1")
    seen = []

    class Pricer(PricerCriminal):
        def strategy(self, edge_updates, vertex_count, budget):
            move = super().strategy(edge_updates, vertex_count, budget)
            occupied = [v for v, n in vertex_count.items() if n]
            seen.append((occupied, self.herd.pos["greedy"], "greedy" in self.herd.alive))
            return move

    studs = [player("greedy", "student") for _ in range(8)]
    play_game(g, [InProcessPlayer(Pricer), player("gap-toll", "criminal")], studs, seed=4)
    assert len(seen) == 15
    for occupied, pos, alive in seen:
        assert alive and occupied == [pos]


def test_thresholds_are_the_largest_raise_a_model_still_pays():
    g = _diamond()
    herd = Herd(g)
    scene = Scene(g, dict(g.weight), {}, 200.0)
    # greedy at 0: 1+1+1 = 3 against 4+1+1 = 6, so it pays up to the gap of 3
    assert herd.choice("greedy", 0, scene) == 1
    assert herd.threshold("greedy", (0, 1), scene, 100.0) == pytest.approx(3.0)
    assert herd.threshold("greedy", (0, 2), scene, 100.0) == -1.0
    # the trap model avoids 2 (one way out) as long as 2 + the penalty costs more
    assert herd.choice("trap", 0, scene) == 1
    # the robust model: it takes its link below the threshold and leaves it above
    u = herd.choice("robust", 0, scene)
    t = herd.threshold("robust", (0, u), scene, 100.0)
    assert 0.0 <= t < 100.0
    assert herd.choice("robust", 0, scene, ((0, u), t)) == u
    assert herd.choice("robust", 0, scene, ((0, u), t + 0.05)) != u


# --------------------------------------------------------------------------------------------
# The league plays as described

def _diamond():
    """0 -> 1 (w 1) or 2 (w 4); 1 -> 3 (1), 1 -> 4 (5); 2 -> 3 (1); 3 -> 5, 4 -> 5 (1); end 5.
    Vertex 2 and 3 and 4 have one way out."""
    return make_graph([(0, 1, 1), (0, 2, 4), (1, 3, 1), (1, 4, 5), (2, 3, 1), (3, 5, 1),
                       (4, 5, 1)], 0, [5])


class TestLeague:
    def test_gap_toll_raises_just_under_the_gap_where_gap_times_crowd_is_largest(self):
        g = _diamond()
        bot = league("criminal_gaptoll")(g.edge_list(), 0, [5])
        # at 0: routes 1+1+1 = 3 and 4+1+1 = 6: gap 3; 8 students -> 24
        u, v, w = bot.strategy({e: 0 for e in g.weight}, {0: 8}, 100)
        assert (u, v) == (0, 1) and w == pytest.approx(2.99)
        assert gap_described(View(g, dict(g.weight), {0: 8}, 100, 1)) == ((0, 1),
                                                                         pytest.approx(2.99))
        # a forced vertex has an infinite gap: everything goes there, even for one student
        u, v, w = bot.strategy({e: 0 for e in g.weight}, {1: 7, 2: 1}, 40)
        assert (u, v, w) == (2, 3, 40)

    def test_forced_goes_all_in_or_waits(self):
        g = _diamond()
        bot = league("criminal_forced")(g.edge_list(), 0, [5])
        assert bot.strategy({}, {1: 8}, 100)[2] == 0
        assert bot.strategy({}, {1: 5, 3: 2, 4: 1}, 70) == (3, 5, 70)
        assert forced(View(g, dict(g.weight), {1: 5, 4: 3}, 70, 2)) == ((4, 5), 70)

    def test_trap_and_minimax_avoid_a_trap_greedy_takes(self):
        # 0 -> 1 (1) -> 3 (1, the only way on from 1); 0 -> 2 (2) -> 3 or 4 (1 each);
        # 3 and 4 each have two ways to an end
        g = make_graph([(0, 1, 1), (0, 2, 2), (1, 3, 1), (2, 3, 1), (2, 4, 1), (3, 5, 1),
                        (3, 6, 2), (4, 5, 2), (4, 6, 1)], 0, [5, 6])
        counts = {v: 0 for v in g.vertices}
        counts[0] = 8
        none = {e: 0 for e in g.weight}
        for name, expect in (("student_greedy", 1), ("student_trap", 2),
                             ("student_minimax", 2)):
            bot = league(name)(g.edge_list(), 0, [5, 6])
            assert bot.strategy(none, counts, 0) == expect, name

    def test_league_files_play_whole_games_without_invalid_moves(self):
        g = generate_graph("league-files:1")
        crims = [player("criminal_gaptoll", "criminal"), player("criminal_crowd", "criminal")]
        studs = [player(n, "student") for n in LEAGUE_STUDENTS * 2 + ["planner", "robust"]]
        rec = play_game(g, crims, studs, seed=2)
        assert rec["invalid_moves"] == []
        rec = play_game(g, [player("criminal_forced", "criminal"),
                            player("pricer", "criminal")], studs[:0] + [
            player(n, "student") for n in ["greedy"] * 8], seed=3)
        assert rec["invalid_moves"] == [] and replay(rec) == []
        assert math.isfinite(sum(rec["scores"]["criminals"]))
