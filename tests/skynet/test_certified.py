"""The bot that plays a checked player strategy (players/skynet_certified.py): from every
start the solver proves won, it beats every agent line (the worst-case agent's search), and
the judge of a lost game shows that game without deciding the start again."""

from __future__ import annotations

import pytest

from puzzleproof.clock import Deadline
from puzzleproof.encoders.skynet_sat import solve
from puzzleproof.formats.skynet import read_map
from puzzleproof.games.skynet_adversary import BotPlayer, adversary
from puzzleproof.games.skynet_referee import play
from puzzleproof.models.skynet import replay
from puzzleproof.players.skynet_agents import make_agent
from puzzleproof.players.skynet_certified import CertificateBot
from tests.conftest import ROOT

#: maps whose won starts need the table (04: 3 cuts over 3 starts; 06: 149 over 12) and not
#: only the invariant
MAPS = [ROOT / "instances/skynet/ep2" / f"{name}.txt" for name in
        ("04-ordered-gateways", "06-bobnet-core-network")]


def _won_starts(m, rule, most: int | None = None):
    """(start, certificate) of the won starts; with ``most``, the ``most`` whose tables
    hold the most cuts."""
    won = []
    for s in range(m.n):
        if s in m.gateways:
            continue
        res = solve(m, rule, s, deadline=Deadline(60))
        if res.status.value == "WIN" and res.check_ok:
            won.append((s, res.certificate))
    won.sort(key=lambda sc: -sum("cut" in x for x in sc[1]["nodes"].values()))
    return won[:most]


@pytest.mark.parametrize("path", MAPS, ids=lambda p: p.stem)
def test_a_proved_strategy_beats_every_agent_line(path):
    m = read_map(path.read_text(), path.name)
    n = 0
    for s, cert in _won_starts(m, "ep2", most=4):
        player = BotPlayer("certificate", factory=lambda c=cert: CertificateBot(c))
        got = adversary(m, "ep2", s, player, deadline=Deadline(60), certificate=False)
        assert got.verdict == "PROVED", (path.stem, s, got.summary())
        for agent in ("article", "nearest"):
            game = play(m, "ep2", CertificateBot(cert), make_agent(agent), s)
            assert game.result == "WIN" and replay(game) == [], (path.stem, s, agent)
        n += 1
    assert n >= 1


def test_the_invariant_rule_is_played_where_the_table_hands_over():
    """A start whose certificate is one invariant node: every cut comes from the rule."""
    m = read_map((ROOT / "instances/skynet/ep2/01-robust-double-gateways.txt").read_text())
    found = [(s, c) for s, c in _won_starts(m, "ep2") if len(c["nodes"]) == 1
             and "invariant" in next(iter(c["nodes"].values()))]
    assert found, "no start of the map is won by the invariant alone"
    s, cert = found[0]
    game = play(m, "ep2", CertificateBot(cert), make_agent("article"), s)
    assert game.result == "WIN" and replay(game) == []
