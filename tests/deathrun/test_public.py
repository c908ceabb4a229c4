"""The public contest field in the Death Run league (students minimax4, refuse, fewexit;
criminals dumptie, dumpless, tier, patient) and the bots written to beat it (``dodger``,
``ambush``): each league file plays as its description says on hand-made positions, the
models the bots keep of it agree with the files, the new bots make only valid moves and
know the criminals' combined budget exactly, and the robust bound still holds."""

from __future__ import annotations

import importlib.util
import random

import pytest

from puzzleproof.encoders.deathrun_robust import robust_table
from puzzleproof.models.deathrun import InProcessPlayer, generate_graph, make_graph, play_game
from puzzleproof.models.deathrun_replay import replay
from puzzleproof.players.deathrun_ambush import AmbushCriminal
from puzzleproof.players.deathrun_bots import CRIMINAL_BOTS, STUDENT_BOTS, bot_class
from puzzleproof.players.deathrun_criminal_models import View, contest_models
from puzzleproof.players.deathrun_dodger import DodgerStudent, priced_to_go
from puzzleproof.players.deathrun_student_models import (PUBLIC_MODELS, FourMoves, Herd,
                                                          LearningHerd, Scene)
from tests.conftest import ROOT, spread

LEAGUE = ROOT / "instances/deathrun/bots/league"
CRIMINALS = ["criminal_dumptie", "criminal_dumpless", "criminal_tier", "criminal_patient"]
STUDENTS = ["student_minimax4", "student_refuse", "student_fewexit"]


def league(name: str):
    """A league file's contest class, loaded in this process."""
    spec = importlib.util.spec_from_file_location(f"_public_{name}", LEAGUE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, "BaseCriminal" if name.startswith("criminal") else "BaseStudent")


def player(name: str, role: str) -> InProcessPlayer:
    if name.startswith(("criminal_", "student_")):
        return InProcessPlayer(league(name), name)
    return InProcessPlayer(bot_class(name, role), name)


def no_updates(g):
    return {e: 0 for e in g.weight}


# 0 -> 1 (1), 2 (2), 3 (4); 1 -> 4 (2), 5 (6); 2 -> 6 (1, its only way out);
# 3 -> 4 (3), 5 (3); 4, 5, 6 -> 7 (1); end 7. Vertex 2 and 4..6 have one way out.
def crossroads():
    return make_graph([(0, 1, 1), (0, 2, 2), (0, 3, 4), (1, 4, 2), (1, 5, 6), (2, 6, 1),
                       (3, 4, 3), (3, 5, 3), (4, 7, 1), (5, 7, 1), (6, 7, 1)], 0, [7])


class TestLeagueCriminals:
    def test_dumptie_dumps_everything_on_the_most_crowded_forced_link(self):
        g = crossroads()
        bot = league("criminal_dumptie")(g.edge_list(), 0, [7])
        assert bot.strategy(no_updates(g), {1: 5, 2: 2, 6: 1}, 100) == (2, 6, 100)
        assert bot.strategy(no_updates(g), {1: 5, 2: 1, 6: 3}, 37.5) == (6, 7, 37.5)

    def test_dumptie_ties_the_cheapest_exit_to_the_second_by_the_full_gap(self):
        g = crossroads()
        bot = league("criminal_dumptie")(g.edge_list(), 0, [7])
        # at 1 the exits weigh 2 and 6 (gap 4); at 3 they weigh 3 and 3 (gap 0); at 0: 1, 2
        assert bot.strategy(no_updates(g), {1: 2, 3: 5}, 100) == (1, 4, 4.0)
        assert bot.strategy(no_updates(g), {0: 8}, 100) == (0, 1, 1.0)
        assert bot.strategy(no_updates(g), {1: 2}, 3) == (1, 4, 3)  # all it has
        assert bot.strategy(no_updates(g), {3: 8}, 100)[2] == 0  # no gap: nothing
        # it keeps the weights it saw: last round's raise of 3 on 1 -> 4 leaves a gap of 1
        assert bot.strategy({**no_updates(g), (1, 4): 3}, {1: 2}, 97) == (1, 4, 1.0)

    def test_dumpless_ties_a_little_under_the_gap_and_dumps(self):
        g = crossroads()
        bot = league("criminal_dumpless")(g.edge_list(), 0, [7])
        u, v, w = bot.strategy(no_updates(g), {1: 2, 3: 5}, 100)
        assert (u, v) == (1, 4) and w == pytest.approx(3.99)
        assert bot.strategy(no_updates(g), {1: 2, 6: 1}, 60) == (6, 7, 60)

    def test_tier_never_dumps(self):
        g = crossroads()
        bot = league("criminal_tier")(g.edge_list(), 0, [7])
        assert bot.strategy(no_updates(g), {1: 1, 2: 7}, 100) == (1, 4, 4.0)
        assert bot.strategy(no_updates(g), {2: 4, 6: 4}, 100)[2] == 0

    def test_patient_ties_only_where_the_students_still_pay(self):
        g = crossroads()
        bot = league("criminal_patient")(g.edge_list(), 0, [7])
        # at 1: via 4 costs 2 + 1 = 3, via 5 costs 6 + 1 = 7; the tie (+4) makes it 7: pays
        assert bot.strategy(no_updates(g), {1: 3}, 100) == (1, 4, 4.0)
        # at 0: via 1 costs 1 + 3 = 4, via 2 costs 2 + 2 = 4; a tie (+1) makes 1 dearer
        assert bot.strategy(no_updates(g), {0: 8}, 100)[2] == 0
        assert bot.strategy(no_updates(g), {0: 8, 2: 1}, 50) == (2, 6, 50)

    @pytest.mark.parametrize("name,model", [("criminal_dumptie", "dump-tie"),
                                            ("criminal_dumpless", "dump-tie less"),
                                            ("criminal_tier", "tier"),
                                            ("criminal_patient", "patient")])
    def test_the_bots_model_is_the_file(self, name, model):
        """On 120 random positions of contest graphs (raised weights, crowds, budgets) the
        model the bots predict a partner with makes the file's move."""
        rng = random.Random(name)
        predict = contest_models()[model]
        for k in range(120):
            g = generate_graph(f"public-model:{k % 6}")
            bot = league(name)(g.edge_list(), 0, list(g.ends))
            upd = {e: (rng.choice([0, 0, 0, 1, 2.5, 7]) if rng.random() < 0.1 else 0)
                   for e in g.weight}
            weight = {e: g.weight[e] + upd[e] for e in g.weight}
            layer = rng.randrange(0, 14)
            counts = {v: 0 for v in g.vertices}
            for v in rng.sample([v for v in g.vertices if g.depth[v] == layer],
                                k=min(3, sum(1 for v in g.vertices if g.depth[v] == layer))):
                counts[v] = rng.randint(1, 4)
            budget = rng.choice([0, 2, 37.5, 100])
            u, v, w = bot.strategy(upd, counts, budget)
            pred = predict(View(g, weight, counts, budget, 1))
            if w == 0:
                assert pred is None or pred[1] == 0, (k, pred)
            else:
                assert pred is not None and pred[0] == (u, v), k
                assert pred[1] == pytest.approx(w)


# 0 -> 1 (1), 2 (2), 8 (10); 1 -> 3 (1), 4 (4); 2 -> 3 (2), 4 (2); 3 -> 5 (1), 6 (6);
# 4 -> 5 (2), 6 (2); 8 -> 5 (10); ends 5, 6.
def three_layers():
    return make_graph([(0, 1, 1), (0, 2, 2), (0, 8, 10), (1, 3, 1), (1, 4, 4), (2, 3, 2),
                       (2, 4, 2), (3, 5, 1), (3, 6, 6), (4, 5, 2), (4, 6, 2), (8, 5, 10)],
                      0, [5, 6])


class TestLeagueStudents:
    def test_minimax4_on_a_three_layer_graph(self):
        """Worked by hand. With 200 left (100 each): at 3 the exits weigh 1 and 6, so the
        worst case there is 6 (the tie makes 1 -> 6 cost 6 either way); at 4 (2 and 2) it is
        2. From 1: min(1 + 6, 4 + 2) = 6 whatever the criminals do at 1 (a tie there raises
        1 -> 3, which it leaves anyway): 1 + 6 = 7. From 2 (exits 2 and 2, no gap):
        min(2 + 6, 2 + 2) = 4: 2 + 4 = 6. So it goes to 2, where the cheapest path (and the
        file with the criminals broke) goes to 1: from 1, 1 + min(1 + 1, 4 + 2) = 3."""
        g = three_layers()
        bot = league("student_minimax4")(g.edge_list(), 0, [5, 6])
        counts = {v: 0 for v in g.vertices}
        counts[0] = 8
        assert bot.strategy(no_updates(g), counts, 0) == 2
        four = FourMoves(g, dict(g.weight))
        assert sorted(four.costs(0, 200.0))[:2] == [(6.0, 2), (7.0, 1)]
        broke = league("student_minimax4")(g.edge_list(), 0, [5, 6])
        assert broke.strategy({**no_updates(g), (0, 8): 200}, counts, 0) == 1
        assert broke.left() == 0

    def test_minimax4_prices_a_forced_vertex_at_all_the_money_left(self):
        # 0 -> 1 (1) -> 3 (1): 1 has one way out; 0 -> 2 (5) -> 3 (1) or 4 (1); 0 -> 9 (50)
        g = make_graph([(0, 1, 1), (0, 2, 5), (0, 9, 50), (1, 3, 1), (2, 3, 1), (2, 4, 1),
                        (9, 3, 1)], 0, [3, 4])
        for spent, expect in ((0, 2), (150, 2), (195, 2), (197, 1), (200, 1)):
            bot = league("student_minimax4")(g.edge_list(), 0, [3, 4])
            # the raise sits on 0 -> 9, a link it never takes; through 1 costs 2 + what is
            # left (both criminals dump), through 2 costs 6
            got = bot.strategy({**no_updates(g), (0, 9): spent}, {0: 8}, 0)
            assert got == expect, (spent, got)

    def test_minimax4_copies_move_as_a_herd(self):
        # two mirror-image routes: equal values go to the lower vertex, for every copy
        g = make_graph([(0, 1, 2), (0, 2, 2), (1, 3, 1), (2, 3, 1)], 0, [3])
        picks = {league("student_minimax4")(g.edge_list(), 0, [3]).strategy(
            no_updates(g), {0: 8 - k, 1: k}, 0) for k in range(4)}
        assert picks == {1}

    def test_refuse_never_enters_a_forced_vertex(self):
        g = crossroads()
        bot = league("student_refuse")(g.edge_list(), 0, [7])
        # 2 has one way out, and so have 4 and 5, the only vertices after 1 and 3: with no
        # way round, it takes the plain cheapest path (1 and 2 both cost 4: the lower)
        assert bot.strategy(no_updates(g), {0: 8}, 0) == 1
        g2 = make_graph([(0, 1, 1), (0, 2, 9), (1, 3, 1), (2, 3, 1), (2, 4, 1)], 0, [3, 4])
        bot = league("student_refuse")(g2.edge_list(), 0, [3, 4])
        assert bot.strategy(no_updates(g2), {0: 8}, 0) == 2  # 10 rather than 2 through 1

    def test_fewexit_penalties(self):
        # 1 has one exit (penalty 3), 2 has four (none): 1 wins only by more than 3
        edges = [(1, 9, 1), (2, 5, 1), (2, 6, 1), (2, 7, 1), (2, 8, 1)]
        for w1, w2, expect in ((1, 3, 2), (1, 3.5, 2), (1, 4.5, 1)):
            g = make_graph([(0, 1, 1), (0, 2, 1)] + edges, 0, [5, 6, 7, 8, 9])
            bot = league("student_fewexit")(g.edge_list(), 0, list(g.ends))
            upd = {**no_updates(g), (0, 1): w1 - 1, (0, 2): w2 - 1}
            assert bot.strategy(upd, {0: 8}, 0) == expect, (w1, w2)

    @pytest.mark.parametrize("name,model", [("student_minimax4", "minimax4"),
                                            ("student_refuse", "refuse"),
                                            ("student_fewexit", "fewexit"),
                                            ("student_trap", "trap")])
    def test_the_herd_follows_each_league_student(self, name, model):
        """Eight copies of a league student against the public criminals: the herd's model
        of it stands where they all stand, every round. (Not the greedy file: networkx
        breaks equal paths its own way, which the full-gap ties make common.)"""
        for k in range(2):
            g = generate_graph(f"public-herd:{k}")
            seen = []

            class Watch(AmbushCriminal):
                def strategy(self, edge_updates, vertex_count, budget):
                    move = super().strategy(edge_updates, vertex_count, budget)
                    occupied = [v for v, n in vertex_count.items() if n]
                    seen.append((occupied, self.herd.pos[model], model in self.herd.alive))
                    return move

            play_game(g, [InProcessPlayer(Watch), player("criminal_dumptie", "criminal")],
                      [player(name, "student") for _ in range(8)], seed=k)
            assert len(seen) == 15
            assert all(alive and occ == [pos] for occ, pos, alive in seen), seen


class TestDodger:
    def test_registered(self):
        assert bot_class("dodger", "student") is DodgerStudent
        assert bot_class("ambush", "criminal") is AmbushCriminal
        assert "dodger" in STUDENT_BOTS and "ambush" in CRIMINAL_BOTS

    def test_the_cost_to_go_prices_forced_vertices_and_gaps(self):
        g = crossroads()
        # 6 is forced: 1 + left; 2 is forced: 1 + left + that; 4, 5 forced; 1 ties 2 vs 6
        val = priced_to_go(g, dict(g.weight), 30.0, 1.0)
        assert val[6] == 31 and val[2] == 1 + 30 + 31
        assert val[4] == 31 and val[1] == min(2 + 4 + 31, 6 + 31)
        assert priced_to_go(g, dict(g.weight), 0.0, 1.0)[2] == 2

    def test_it_keeps_off_the_vertex_a_crowd_makes_worth_tolling(self):
        """Two mirror-image routes through 1 and 2, each with a gap of 2 at its vertex. Alone,
        it takes the lower one (a tie costs 2 on either). When five students already stand
        on 1 (and the herd's models send the two still on 0 there too), the public
        criminals (the prior) will tie 1's cheapest exit, so it goes to 2; with the crowd on
        2, to 1."""
        g = make_graph([(0, 1, 1), (0, 2, 1), (1, 3, 1), (1, 4, 3), (2, 3, 1), (2, 4, 3)],
                       0, [3, 4])
        for counts, expect in (({0: 1}, 1), ({0: 3, 1: 5}, 2), ({0: 3, 2: 5}, 1)):
            bot = DodgerStudent(g.edge_list(), 0, [3, 4])
            assert bot.identified() == ("dump-tie", "dump-tie")
            assert bot.strategy(no_updates(g), counts, 0) == expect, counts


class Watched(DodgerStudent):
    """A dodger that notes, at every move, the combined budget it infers."""

    log: list = []

    def strategy(self, edge_updates, vertex_count, current_vertex):
        out = super().strategy(edge_updates, vertex_count, current_vertex)
        Watched.log.append(("dodger", self.rnd, self.left))
        return out


def _watched_minimax4():
    base = league("student_minimax4")

    class Four(base):  # type: ignore[misc, valid-type]
        def strategy(self, edge_updates, vertex_count, current_vertex):
            out = super().strategy(edge_updates, vertex_count, current_vertex)
            self.moves = getattr(self, "moves", 0) + 1  # one move a round
            Watched.log.append(("minimax4", self.moves, self.left()))
            return out

    return Four


@pytest.mark.parametrize("pair", [("criminal_dumptie", "criminal_tier"),
                                  ("criminal_patient", "criminal_dumpless"),
                                  ("ambush", "criminal_dumptie"), ("pricer", "toll"),
                                  ("random", "crowd")])
def test_the_combined_budget_is_exact_in_every_game(pair):
    """After every move, the dodger's and the minimax4 file's combined remaining budget
    equals the engine's (200 less every raise made so far)."""
    four = _watched_minimax4()
    for gseed in (4, 9):
        g = generate_graph(f"public-budget:{gseed}")
        Watched.log = []
        studs = [InProcessPlayer(Watched, "dodger") for _ in range(2)]
        studs += [InProcessPlayer(four, "minimax4") for _ in range(2)]
        studs += [player(n, "student") for n in STUDENTS[1:] + ["greedy", "robust"]]
        rec = play_game(g, [player(pair[0], "criminal"), player(pair[1], "criminal")], studs,
                        seed=gseed)
        assert rec["invalid_moves"] == []
        true_left = {}
        for rr in rec["rounds"]:
            spent = sum(c["move"][2] for c in rr["criminals"] if c["valid"])
            true_left[rr["round"]] = sum(c["budget"] for c in rr["criminals"]) - spent
        assert len(Watched.log) == 4 * len(rec["rounds"])
        for who, rnd, left in Watched.log:
            assert left == pytest.approx(true_left[rnd], abs=1e-6), (who, rnd)


def _invalid_moves_public(ks: list[int]) -> list:
    """The games of seeds ``ks`` (see the test below): each invalid move of ours, and the
    replay's problems of every 25th game."""
    partners = ["criminal_dumptie", "criminal_tier", "random", "ambush", "criminal_patient"]
    fast = ["student_refuse", "greedy", "student_fewexit", "random", "cautious"]
    found = []
    for k in ks:
        g = generate_graph(f"public-valid:{k}")
        crims = [player("ambush", "criminal"), player(partners[k % 5], "criminal")]
        studs = [player("dodger", "student")] + [player(fast[(k + j) % 5], "student")
                                                  for j in range(7)]
        rec = play_game(g, crims[::1 if k % 2 else -1], studs, seed=k)
        found += [(k, m) for m in rec["invalid_moves"] if m["bot"] in ("dodger", "ambush")]
        if k % 25 == 0:
            found += [(k, problem) for problem in replay(rec)]
    return found


@pytest.mark.slow
def test_no_invalid_move_on_40_random_contest_graphs():
    """40 contest graphs (seeds used nowhere else): the dodger and the ambush in every
    game, among the public field and partners in rotation (the ambush meets itself in one
    game of five); every move they make is valid (the games shared by both cores; the
    tournaments of ``benchmarks/deathrun.py`` count invalid moves over thousands more)."""
    bad = spread(_invalid_moves_public, range(40))
    assert not bad, bad[:3]


@pytest.mark.slow
def test_the_robust_bound_holds_against_the_public_criminals():
    """The robust student's certified bound (what it pays at most, whatever the criminals
    do with 200) holds in games against the public criminals and the ambush."""
    pairs = [("criminal_dumptie", "criminal_dumptie"), ("criminal_tier", "criminal_patient"),
             ("ambush", "criminal_dumpless"), ("ambush", "ambush")]
    for k in range(6):
        g = generate_graph(f"public-robust:{k}")
        bound = robust_table(g, 200, 1.0, lower=False).bound()
        a, b = pairs[k % len(pairs)]
        studs = [player("robust", "student") for _ in range(4)]
        studs += [player(n, "student") for n in ("student_fewexit", "student_refuse",
                                                 "greedy", "dodger")]
        rec = play_game(g, [player(a, "criminal"), player(b, "criminal")], studs, seed=k)
        for s in rec["scores"]["students"][:4]:
            assert s <= bound + 1e-9, (k, s, bound)


class TestAmbush:
    def test_it_dumps_everything_where_students_stand_on_a_forced_vertex(self):
        g = crossroads()
        bot = AmbushCriminal(g.edge_list(), 0, [7])
        assert bot.strategy(no_updates(g), {1: 5, 2: 2, 0: 1}, 100) == (2, 6, 100)

    def test_it_tolls_a_known_group_at_the_gap_it_respects(self):
        """Eight refuse students at 1 (both exits lead to vertices with one way out, so the
        model falls back to the cheapest path: 1 -> 4 costs 2 + 1, 1 -> 5 costs 6 + 1): the
        gap they respect is 4 and the raise is just under it."""
        g = crossroads()
        herd = Herd(g, 200.0, PUBLIC_MODELS)
        scene = Scene(g, dict(g.weight), {}, 200.0)
        assert herd.choice("refuse", 1, scene) == 4
        assert herd.threshold("refuse", (1, 4), scene, 100.0) == pytest.approx(4.0)
        bot = AmbushCriminal(g.edge_list(), 0, [7])
        bot.herd.alive = {"refuse"}  # round 2: the herd moves refuse from 0 to 1
        bot.rnd = 1
        bot.hits["nothing"] = 10.0  # a partner that raises nothing
        u, v, w = bot.strategy(no_updates(g), {1: 8}, 100)
        assert bot.herd.pos["refuse"] == 1
        assert (u, v) == (1, 4) and w == pytest.approx(3.99)

    def test_the_learning_herd_weights_the_models_that_predict_the_field(self):
        """A field of dodgers (no model is a dodger): after a game, the models' shares sum
        to one and each keeps a share; the herd scored the models every round."""
        g = generate_graph("public-learn:1")
        herds = []

        class Watch(AmbushCriminal):
            def strategy(self, edge_updates, vertex_count, budget):
                herds.append(self.herd)
                return super().strategy(edge_updates, vertex_count, budget)

        play_game(g, [InProcessPlayer(Watch), player("criminal_tier", "criminal")],
                  [player("dodger", "student") for _ in range(8)], seed=1)
        herd = herds[-1]
        assert isinstance(herd, LearningHerd) and herd.trials >= 10
        shares = herd.shares()
        assert sum(shares.values()) == pytest.approx(1.0) and min(shares.values()) > 0
