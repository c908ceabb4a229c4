"""Fences (:mod:`puzzleproof.encoders.skynet_fences`): the Episode 2 game inside a set of
nodes gives Episode 1 strategies that contain the agent, an upper bound on the value."""

from __future__ import annotations

import json
import random

import pytest

from puzzleproof.encoders.skynet_fences import FenceSearch, boundary, fenced_map
from puzzleproof.encoders.skynet_sat import solve as sat_solve
from puzzleproof.models.skynet import SkynetMap
from puzzleproof.models.skynet_strategy import check_player_strategy, strategy_depth
from puzzleproof.encoders.skynet_explicit import solve as ex_solve
from tests.skynet.test_sat import random_map

# a room {0, 1, 2} with two doors (1-3, 2-4) into a hall {3, 4, 5}; the hub 5 is linked to
# six gateways 6..11. Under ep2 the agent walks to the hub and wins; under ep1 the player
# shuts the two doors (the agent can only ever stand behind one of them): value 2.
ROOM = SkynetMap(12, ((0, 1), (0, 2), (1, 2), (1, 3), (2, 4), (3, 5), (4, 5))
                 + tuple((5, g) for g in range(6, 12)), frozenset(range(6, 12)), start=0)


def test_fenced_map_is_the_episode2_game_inside_the_fence():
    room = frozenset({0, 1, 2})
    fm = fenced_map(ROOM, room, 0)
    assert fm.gateways == {3, 4}  # the nodes just outside
    assert sorted(fm.links) == [(0, 1), (0, 2), (1, 2), (1, 3), (2, 4)]
    assert boundary(ROOM, room) == 2
    whole = frozenset(range(6))  # the whole region: the real map, gateways and all
    assert fenced_map(ROOM, whole, 0).gateways == ROOM.gateways
    assert sorted(fenced_map(ROOM, whole, 0).links) == sorted(ROOM.links)
    assert boundary(ROOM, whole) == 6


def test_room_value_comes_from_a_fence_and_agrees_with_explicit():
    assert sat_solve(ROOM, "ep2").status.value == "LOSS"  # no fence = the whole region
    # the exact fewest-cuts search settles the room first (2 cuts); without it the fence
    r = sat_solve(ROOM, "ep1", value=True)
    assert r.answer["value"] == 2 and r.answer["upper_bound"]["by"].startswith("exact")
    r = sat_solve(ROOM, "ep1", value=True, exact=False)
    assert r.status.value == "WIN" and r.answer["value"] == 2 and r.check["ok"]
    assert r.answer["upper_bound"]["by"].startswith("fence search")
    assert r.answer["upper_bound"]["boundary"] == 2
    assert r.stats["fence_search"]["check_ok"] is True
    assert ex_solve(ROOM, "ep1", value=True).answer["value"] == 2


@pytest.mark.slow
def test_fence_strategies_contain_the_agent_on_random_maps():
    """With the Episode 2 verdicts from the explicit solver (no SAT), every fence the search
    reports is won as an Episode 1 strategy on the real map: its certificate (written by
    the SAT solver for the fenced map) replays under the rules, needs at most the boundary's
    cuts and never fewer than the exact value."""
    rng = random.Random(11)
    found = 0
    for _ in range(60):
        m = random_map(rng, rng.randint(5, 9))
        exact = ex_solve(m, "ep1", value=True)

        def wins(fm: SkynetMap) -> bool:
            return ex_solve(fm, "ep2").status.value == "WIN"

        fs = FenceSearch(m, 0, wins, seed=1)
        best = fs.run(None, max_evaluations=30, patience=40)
        if best is None:
            continue
        size, fence = best
        assert 0 in fence and not fence & m.gateways and size == boundary(m, fence)
        assert exact.status.value == "WIN", m  # a contained agent never wins
        # a plain table for the fenced game (the solver writes its fence strategies so, with
        # no invariant leaf: that leaf is proved on the whole map, and its bound counts every
        # gateway link in reach, not the fence's boundary)
        cert = ex_solve(fenced_map(m, fence, 0), "ep2", 0).certificate
        assert check_player_strategy(m, "ep1", 0, cert) == [], (m, fence)
        assert exact.answer["value"] <= strategy_depth(m, "ep1", 0, cert) <= size
        assert [t[1] for t in fs.trail] == sorted((t[1] for t in fs.trail), reverse=True)
        found += 1
    assert found >= 20


def test_fence_search_repeats_itself_and_stops_at_the_floor():
    calls = []

    def wins(fm: SkynetMap) -> bool:
        calls.append(fm)
        return ex_solve(fm, "ep2").status.value == "WIN"

    a = FenceSearch(ROOM, 0, wins, seed=5).run(None, 100, 50)
    b = FenceSearch(ROOM, 0, wins, seed=5).run(None, 100, 50)
    assert a == b and a[0] == 2
    calls.clear()
    fs = FenceSearch(ROOM, 0, wins, seed=5)
    assert fs.run(None, 100, 50, floor=2)[0] == 2
    assert len(calls) == len(fs.seeds())  # only the seeds: the floor was reached at once


def test_cli_solve_gives_the_fence_and_render_draws_it(tmp_path, capsys):
    """End to end: the fence named in --json is drawn by 'render skynet --fence' (its
    boundary links thick, the caption counting them); a bad --fence is exit 2."""
    from puzzleproof.cli import main
    from puzzleproof.formats.skynet import write_map

    mp = tmp_path / "room.txt"
    mp.write_text(write_map(ROOM))
    assert main(["solve", "skynet", str(mp), "--rule", "ep1", "--min-cuts", "--json",
                 "-q"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["answer"]["value"] == 2  # by the exact search, before any fence
    fence = sat_solve(ROOM, "ep1", value=True, exact=False).answer["upper_bound"]["fence"]
    svg = tmp_path / "fence.svg"
    assert main(["render", "skynet", str(mp), "--fence", ",".join(map(str, fence)),
                 "-o", str(svg)]) == 0
    text = svg.read_text()
    assert text.count('stroke="#dd8a1f"') == 2 and "2 boundary links" in text
    for bad, why in (("1,x", "expected node numbers"), ("1,99", "not on the map"),
                     ("0,6", "is a gateway")):
        assert main(["render", "skynet", str(mp), "--fence", bad]) == 2
        assert why in capsys.readouterr().err


def test_a_start_with_no_links_is_its_own_fence():
    lonely = SkynetMap(4, ((1, 2), (2, 3)), frozenset({3}), start=0)

    def wins(fm: SkynetMap) -> bool:
        raise AssertionError("no game to decide")

    assert FenceSearch(lonely, 0, wins).run(None) == (0, frozenset({0}))
