"""Death Run tournaments: fair seating, parallel runs, resume, summary, plot, cross-check."""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest

from puzzleproof.games.deathrun_tournament import (crosscheck_records, plot_scores,
                                                    run_tournament, schedule, summarise)

from tests.conftest import ROOT
CRIMS = ["crowd", "gap-toll", "random"]
STUDS = ["greedy", "cautious", "random", "robust"]


class TestSchedule:
    def test_fair_seating(self):
        specs = schedule(CRIMS, STUDS, 4, seed=3)
        by_graph = Counter(s.graph_index for s in specs)
        assert set(by_graph.values()) == {1 + 6}  # one student group, 6 ordered pairs
        for s in specs:
            assert Counter(s.students) == Counter({b: 2 for b in STUDS})
        crim_games = [s for s in specs if s.judged == "criminals"]
        pairs = Counter(s.criminals for s in crim_games)
        assert all(a != b for a, b in pairs) and set(pairs.values()) == {4}
        assert all((b, a) in pairs for a, b in pairs)
        # every pairing on the same graphs
        graphs = {}
        for s in crim_games:
            graphs.setdefault(s.criminals, set()).add(json.dumps(s.graph))
        assert len({frozenset(v) for v in graphs.values()}) == 1
        # the first mover among the students rotates
        assert len({s.students[0] for s in specs if s.judged == "students"}) == 4
        assert len({s.game_id for s in specs}) == len(specs)

    def test_groups_rotate_through_a_larger_pool(self):
        specs = schedule(["crowd"], list("abcde"), 2, seed=1)
        assert all(s.judged == "students" for s in specs)  # one criminal: no criminal games
        assert len(specs) == 2 * 5  # the 5 groups of 4 on each graph
        seats = Counter(b for s in specs for b in s.students)
        assert set(seats.values()) == {2 * 4 * 2}  # 4 groups x 2 seats x 2 graphs


class TestRun:
    @pytest.mark.slow
    def test_parallel_resume_summary_plot(self, tmp_path):
        out = tmp_path / "games.jsonl"
        full = run_tournament(CRIMS, STUDS, 2, seed=5, jobs=2)
        assert full.new_games == 14 and not full.invalid
        # a killed run: some games written, the last line torn
        lines = [json.dumps(r) for r in full.records[:5]]
        out.write_text("\n".join(lines) + "\n" + lines[5][:40] if len(lines) > 5
                       else "\n".join(lines) + "\n" + json.dumps(full.records[5])[:40])
        with pytest.raises(FileExistsError):
            run_tournament(CRIMS, STUDS, 2, seed=5, out_path=out)
        seen = []
        rep = run_tournament(CRIMS, STUDS, 2, seed=5, jobs=2, out_path=out, resume=True,
                             on_record=lambda r: seen.append(r["game_id"]))
        assert rep.skipped == 5 and rep.new_games == 9 and len(seen) == 9
        saved = [json.loads(x) for x in out.read_text().splitlines()]
        ids = [r["game_id"] for r in saved]
        assert len(ids) == len(set(ids)) == 14
        key = lambda r: r["game_id"]  # noqa: E731
        strip = lambda r: {k: v for k, v in r.items() if k != "wall_time"}  # noqa: E731
        assert [strip(r) for r in sorted(saved, key=key)] == \
            [strip(r) for r in sorted(full.records, key=key)]
        summ = rep.summary
        assert [r["rank"] for r in summ["students"]] == [1, 2, 3, 4]
        means = [r["mean"] for r in summ["students"]]
        assert means == sorted(means)
        crim_means = [r["mean"] for r in summ["criminals"]]
        assert crim_means == sorted(crim_means, reverse=True)
        assert all(r["n"] == 8 for r in summ["criminals"])  # 4 games x 2 graphs each
        assert summ == summarise(saved)
        plot_scores(saved, tmp_path / "scores.png")
        assert (tmp_path / "scores.png").read_bytes()[:4] == b"\x89PNG"
        plot_scores(saved, tmp_path / "scores.svg")
        assert "<svg" in (tmp_path / "scores.svg").read_text()[:500]

    @pytest.mark.slow
    def test_bot_files_in_a_tournament(self):
        rep = run_tournament(["gap-toll", str(ROOT / "instances/deathrun/bots/criminal.py")],
                             ["greedy", str(ROOT / "instances/deathrun/bots/student.py")], 1,
                             seed=2, jobs=1)
        assert rep.new_games == 3 and not rep.invalid

    def test_crosscheck_flags_a_student_above_the_bound(self):
        rep = run_tournament(["gap-toll", "crowd"], ["greedy", "robust"], 1, seed=9)
        cc = crosscheck_records(rep.records, criminal_games=1)
        assert cc["flags"] == []
        assert {r["bot"] for r in cc["students"]} == {"greedy", "robust"}
        rob = next(r for r in cc["students"] if r["bot"] == "robust")
        assert rob["mean_cost"] <= rob["mean_bound"]
        bad = copy.deepcopy(rep.records[0])
        bad["scores"]["students"][0] = 10_000.0
        cc = crosscheck_records([bad], criminal_games=0)
        assert len(cc["flags"]) == 1 and cc["flags"][0]["kind"] == "exploitable"
        assert cc["flags"][0]["game_id"] == bad["game_id"]
        assert all(r["mean_single_round_optimum_sum"] >= 0
                   for r in crosscheck_records(rep.records[:1])["criminals"])


def test_generate_orders_by_the_greedy_gap():
    from puzzleproof.generate.deathrun import generate

    out = generate(2, seed=4, candidates=4)
    assert len(out) == 2
    gaps = [ev["gap"] for _, ev in out]
    assert gaps == sorted(gaps, reverse=True)
    for g, ev in out:
        assert ev["greedy_cost"] - ev["robust_bound"] == ev["gap"]
        assert ev["nominal"] <= ev["robust_bound"]
