"""The explicit-state Skynet solver: verdicts, values, and certificates checked by replay."""

from __future__ import annotations

import copy
import random

import pytest

from puzzleproof.clock import Deadline
from puzzleproof.formats.skynet import read_map
from puzzleproof.models.skynet import SkynetMap
from puzzleproof.result import Status
from puzzleproof.encoders.skynet_explicit import (check_agent_strategy, check_player_strategy,
                                                solve)
from tests.skynet.test_game import DOUBLE, EXAMPLE, TRAP, official_maps


def random_map(rng: random.Random) -> SkynetMap:
    n = rng.randint(4, 9)
    gates = set(rng.sample(range(1, n), rng.randint(1, 3)))
    links = set()
    for v in range(1, n):
        links.add((rng.randrange(v), v))
    for _ in range(rng.randint(0, n)):
        a, b = rng.sample(range(n), 2)
        links.add((min(a, b), max(a, b)))
    start = rng.choice([x for x in range(n) if x not in gates])
    return SkynetMap(n, tuple(sorted(links)), frozenset(gates), start)


def test_hand_checked_cases():
    r = solve(read_map(EXAMPLE), "ep2", value=True)
    assert r.status is Status.WIN and r.answer == {"verdict": "WIN", "value": 2}
    r = solve(read_map(DOUBLE), "ep2", value=True)
    assert r.answer["value"] == 2  # cut one link of node 1 now, the other on arrival
    assert solve(read_map(DOUBLE), "ep1", value=True).answer["value"] == 1  # cut 0-1
    r = solve(read_map(TRAP), "ep2")
    assert r.status is Status.LOSS and r.check["ok"]
    assert solve(read_map(TRAP), "ep1").status is Status.LOSS


@pytest.mark.slow
def test_random_small_maps_certificates_both_rules():
    rng = random.Random(12)
    seen = {Status.WIN: 0, Status.LOSS: 0}
    for _ in range(150):
        m = random_map(rng)
        for rule in ("ep1", "ep2"):
            r = solve(m, rule, value=True)
            assert r.status in (Status.WIN, Status.LOSS)
            assert r.check["ok"], (m, rule, r.check)
            seen[r.status] += 1
            if r.status is Status.WIN:
                assert r.answer["value"] >= 0
            else:
                assert "value" not in r.answer
        # any cut allowed under ep1 can only help the player
        if solve(m, "ep2").status is Status.WIN:
            assert solve(m, "ep1").status is Status.WIN
    assert min(seen.values()) >= 20


@pytest.mark.slow
def test_official_maps_are_won_from_their_starts_with_checked_strategies():
    for m in official_maps():
        r = solve(m, "ep2", deadline=Deadline(120))
        assert r.status is Status.WIN, m.name
        assert r.check["ok"] and check_player_strategy(m, "ep2", m.start, r.certificate) == []


def test_corrupted_certificates_fail():
    m = read_map(EXAMPLE)
    good = solve(m, "ep2").certificate
    assert check_player_strategy(m, "ep2", 0, good) == []
    bad = copy.deepcopy(good)
    bad["nodes"][bad["root"]]["cut"] = [0, 1]  # not a gateway link
    assert "illegal cut" in check_player_strategy(m, "ep2", 0, bad)[0]
    bad = copy.deepcopy(good)
    root = bad["nodes"][bad["root"]]
    root["next"].pop(next(iter(root["next"])))
    assert "no answer when the agent moves" in check_player_strategy(m, "ep2", 0, bad)[0]
    assert check_player_strategy(m, "ep2", 0, {"type": "nope"})[0].startswith("expected")
    t = read_map(TRAP)
    agent = solve(t, "ep2").certificate
    assert check_agent_strategy(t, "ep2", 0, agent) == []
    bad = copy.deepcopy(agent)
    first = next(iter(bad["nodes"][bad["root"]]["replies"]))
    bad["nodes"][bad["root"]]["replies"][first]["move"] = 2  # a dead end, not a gateway
    assert check_agent_strategy(t, "ep2", 0, bad)
    # a player strategy cannot pass as a winning one on a lost map
    assert check_player_strategy(t, "ep2", 0, good)


def test_budget_gives_unknown():
    m = official_maps()[4]
    r = solve(m, "ep2", max_nodes=50)
    assert r.status is Status.UNKNOWN and "verdict" not in r.answer
    assert r.answer["note"] == "node budget (50) reached"
    r = solve(m, "ep2", deadline=Deadline(0.05))
    assert r.status is Status.UNKNOWN and r.answer["note"] == "time limit (0.05 s) reached"


def test_check_skynet_command(capsys, tmp_path):
    import json

    from puzzleproof.cli import main
    from tests.conftest import shared_path

    mpath = shared_path("instances/skynet/ep2/02-linked-double-gateways.txt")
    m = read_map(mpath.read_text())
    cert = tmp_path / "s.json"
    cert.write_text(json.dumps(solve(m, "ep2").certificate))
    assert main(["check", "skynet", str(mpath), str(cert)]) == 0
    assert "against every opponent move" in capsys.readouterr().out
    assert main(["check", "skynet", str(mpath), str(cert), "--start", "2"]) == 1
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    assert main(["check", "skynet", str(mpath), str(bad)]) == 2
    assert "invalid JSON" in capsys.readouterr().err
    trap = tmp_path / "trap.txt"
    trap.write_text(TRAP)
    agent = tmp_path / "agent.json"
    agent.write_text(json.dumps(solve(read_map(TRAP), "ep2").certificate))
    assert main(["check", "skynet", str(trap), str(agent), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["strategy"] == "agent"
