"""Tournament figures: Student's t quantiles against the printed tables, intervals and the
paired test on fixed samples, and exact game counts streamed (``-n N`` plays N games)."""

from __future__ import annotations

import itertools
import json
import math
import statistics

import pytest

from puzzleproof.cli import main
from puzzleproof.games.tournament_stats import (incomplete_beta, mean_interval, paired_test,
                                               t_quantile, t_sf2)
from puzzleproof.games.deathrun_tournament import (iter_schedule, per_graph, run_tournament,
                                                    summarise)

# t(p; df) as printed in the standard tables (4 decimals)
TABLE = {
    (0.975, 1): 12.7062, (0.975, 2): 4.3027, (0.975, 3): 3.1824, (0.975, 4): 2.7764,
    (0.975, 5): 2.5706, (0.975, 6): 2.4469, (0.975, 9): 2.2622, (0.975, 10): 2.2281,
    (0.975, 15): 2.1314, (0.975, 20): 2.0860, (0.975, 29): 2.0452, (0.975, 30): 2.0423,
    (0.975, 40): 2.0211, (0.975, 60): 2.0003, (0.975, 120): 1.9799,
    (0.95, 1): 6.3138, (0.95, 5): 2.0150, (0.95, 10): 1.8125, (0.95, 30): 1.6973,
    (0.995, 1): 63.6567, (0.995, 5): 4.0321, (0.995, 10): 3.1693, (0.995, 30): 2.7500,
    (0.9, 3): 1.6377, (0.9, 20): 1.3253,
}


class TestT:
    @pytest.mark.parametrize("p,df", sorted(TABLE))
    def test_quantiles_match_the_tables(self, p, df):
        assert t_quantile(p, df) == pytest.approx(TABLE[(p, df)], abs=6e-5)
        assert t_quantile(1 - p, df) == pytest.approx(-TABLE[(p, df)], abs=6e-5)

    def test_large_df_tends_to_the_normal(self):
        assert t_quantile(0.975, 10**6) == pytest.approx(1.959966, abs=1e-4)

    def test_tail_is_the_inverse_of_the_quantile(self):
        for df in (1, 3, 7, 25):
            for p in (0.6, 0.9, 0.99):
                assert t_sf2(t_quantile(p, df), df) == pytest.approx(2 * (1 - p), rel=1e-9)

    def test_incomplete_beta_closed_forms(self):
        # I_x(1, b) = 1 - (1-x)^b and I_x(a, 1) = x^a
        for x in (0.1, 0.5, 0.93):
            assert incomplete_beta(1, 3, x) == pytest.approx(1 - (1 - x) ** 3, rel=1e-12)
            assert incomplete_beta(2.5, 1, x) == pytest.approx(x ** 2.5, rel=1e-12)
        with pytest.raises(ValueError):
            incomplete_beta(1, 1, 1.5)

    def test_interval_on_fixed_samples(self):
        xs = [46.37, 39.99, 54.0, 50.1, 44.2, 48.8]
        m, h = mean_interval(xs)
        assert m == pytest.approx(statistics.fmean(xs))
        assert h == pytest.approx(2.5706 * statistics.stdev(xs) / math.sqrt(6), rel=1e-4)
        # wider than the normal interval by 2.5706 / 1.96: about 31 %
        assert h / (1.96 * statistics.stdev(xs) / math.sqrt(6)) == pytest.approx(1.3115,
                                                                               abs=1e-3)
        assert mean_interval([3.0]) == (3.0, None)

    def test_paired_test_on_fixed_samples(self):
        a = {0: 10.0, 1: 12.0, 2: 9.0, 3: 11.0, 4: 13.0}
        b = {0: 8.0, 1: 11.0, 2: 8.5, 3: 8.0, 4: 12.0, 9: 99.0}  # unit 9 is not shared
        r = paired_test(a, b)
        ds = [2.0, 1.0, 0.5, 3.0, 1.0]
        t = statistics.fmean(ds) / (statistics.stdev(ds) / math.sqrt(5))
        assert r.units == 5 and r.diff == pytest.approx(1.5)
        assert r.ci95 == pytest.approx(2.7764 * statistics.stdev(ds) / math.sqrt(5), rel=1e-4)
        assert r.p == pytest.approx(t_sf2(t, 4)) and r.significant  # t = 3.35, p = 0.029
        same = paired_test({0: 1.0, 1: 2.0}, {0: 1.5, 1: 1.5})
        assert not same.significant and same.p == pytest.approx(1.0)
        assert paired_test({0: 1.0}, {1: 1.0}) is None


class TestCounts:
    def test_exact_counts_cut_the_last_graph(self):
        crims, studs = ["toll", "gap-toll", "crowd"], ["robust", "greedy"]
        assert per_graph(crims, studs) == 7
        for n in (1, 6, 7, 8, 24):
            specs = list(iter_schedule(crims, studs, seed=1, games=n))
            assert len(specs) == n and len({s.game_id for s in specs}) == n
            assert max(s.graph_index for s in specs) == (n - 1) // 7

    def test_the_schedule_streams(self):
        # a billion games: the first few come at once, nothing is built up front
        it = iter_schedule(["toll", "crowd"], ["greedy"], seed=0, games=10**9)
        first = list(itertools.islice(it, 5))
        assert [s.graph_index for s in first] == [0, 0, 0, 1, 1]

    def test_run_plays_exactly_n_and_keeps_only_scores(self):
        rep = run_tournament(["gap-toll", "crowd"], ["greedy", "random"], games=5, seed=2,
                             keep_records=False)
        assert rep.games == 5 and rep.new_games == 5 and rep.records == []
        assert rep.tally.judged == {"students": 2, "criminals": 3}
        assert len(rep.tally.graphs) == 2
        kept = run_tournament(["gap-toll", "crowd"], ["greedy", "random"], games=5, seed=2)
        assert rep.summary == summarise(kept.records) == kept.summary

    def test_cli_n_plays_n_games(self, capsys, tmp_path):
        out = tmp_path / "g.jsonl"
        code = main(["deathrun", "tournament", "--criminals", "toll,gap-toll,crowd",
                     "--students", "greedy,random", "-n", "24", "--seed", "1", "-q",
                     "-o", str(out), "--json"])
        cap = capsys.readouterr()
        assert code == 0, cap.err
        summary = json.loads(cap.out)
        assert summary["games"] == 24 and summary["graphs"] == 4
        types = [json.loads(x)["type"] for x in out.read_text().splitlines()]
        assert types.count("deathrun-game") == 24 and types[-1] == "run-summary"
        for row in summary["summary"]["criminals"]:
            assert {"graphs", "games", "n", "ci95", "vs_next", "p_next"} <= set(row)
