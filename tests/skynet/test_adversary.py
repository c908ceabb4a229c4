"""The worst-case adversary (issue 18): every agent line searched against a bot or a program."""

from __future__ import annotations

import copy
import json
import random
import sys
import textwrap
from pathlib import Path

import pytest

from puzzleproof.games.program import Limits, Program
from puzzleproof.clock import Deadline
from puzzleproof.cli import main
from puzzleproof.encoders.skynet_sat import solve as sat_solve
from puzzleproof.formats.skynet import read_map, record_from_json
from puzzleproof.models.skynet import (SkynetMap, agent_moves, check_cut, outcome,
                                       replay)
from puzzleproof.models.skynet_strategy import check_player_strategy
from puzzleproof.games.skynet_adversary import BotPlayer, ProgramPlayer, adversary
from puzzleproof.players.skynet_bots import Bot, make_bot
from puzzleproof.encoders.skynet_explicit import solve as ex_solve
from tests.conftest import shared_path

from tests.conftest import ROOT
OFFICIAL = ["01-robust-double-gateways", "02-linked-double-gateways",
            "03-leading-up-to-double-gateway", "04-ordered-gateways",
            "05-complex-mesh", "06-bobnet-core-network"]


def official(name: str) -> SkynetMap:
    path = shared_path(f"instances/skynet/ep2/{name}.txt")
    return read_map(path.read_text(), path.name)


class NoPrecutBot(Bot):
    """Cuts the agent's gateway link when it has one, else a gateway link of the nearest node
    with a single gateway link: it never pre-cuts a node linked to two gateways."""

    name = "no-precut"

    def choose(self, agent):
        forced = self.forced_cut(agent)
        if forced:
            return forced
        counts = self.gateway_link_counts()
        order = sorted(range(self.map.n), key=lambda x: (counts[x] != 1, x))
        x = next((y for y in order if counts[y] > 0), None)
        return (x, self.gate_links(x)[0]) if x is not None else self.fallback(agent)


class RandomBot(Bot):
    """A legal gateway link at random (seeded): a bot with no plan."""

    name = "random"

    def reset(self, m):
        super().reset(m)
        self.rng = random.Random(7)

    def choose(self, agent):
        links = sorted((u, g) for u in range(self.map.n) for g in self.gate_links(u)
                       if u not in self.map.gateways)
        return self.rng.choice(links) if links else self.fallback(agent)


def test_a_bot_that_never_precuts_double_gateways_is_beaten_on_map_01():
    m = official(OFFICIAL[0])
    beaten = []
    for s in [v for v in range(m.n) if v not in m.gateways]:
        r = adversary(m, "ep2", s, BotPlayer("no-precut", NoPrecutBot), deadline=Deadline(60))
        assert r.verdict in ("BEATEN", "UNWINNABLE", "PROVED"), r.summary()
        if r.verdict == "BEATEN":
            assert r.winnable is True
            assert replay(r.record) == [] and r.record.result == "LOSS"
            assert r.record.reason == "agent-reached-gateway"
            beaten.append(s)
    assert beaten, "the bot that never pre-cuts is beaten from no start of map 01"


def test_the_exact_bot_is_proved_from_every_winnable_start():
    """Maps 01-04, every start (05 and 06 take minutes: benchmarks/skynet_bots.py)."""
    proved = 0
    for name in OFFICIAL[:4]:
        m = official(name)
        for s in [v for v in range(m.n) if v not in m.gateways]:
            truth = sat_solve(m, "ep2", s, certificate=False).status.value
            r = adversary(m, "ep2", s, BotPlayer("exact"), deadline=Deadline(60))
            if truth == "WIN":
                assert r.verdict == "PROVED", (name, s, r.summary())
                assert check_player_strategy(m, "ep2", s, r.certificate) == []
                assert r.mode == "position" and not r.nondeterministic
                proved += 1
            else:
                assert r.verdict == "UNWINNABLE" and replay(r.record) == [], (name, s)
    assert proved == 10


def test_the_certificate_is_a_position_table_check_skynet_accepts(tmp_path, capsys):
    m_path = shared_path("instances/skynet/ep2/04-ordered-gateways.txt")
    out = tmp_path / "cert.json"
    code = main(["skynet", "referee", str(m_path), "--agent", "worst", "--bot", "ep2-slack",
                 "--start", "0", "-o", str(out)])
    assert code == 0 and "PROVED" in capsys.readouterr().out
    cert = json.loads(out.read_text())
    ids = set(cert["nodes"])
    assert all(i.count(":") == 1 for i in ids)  # keyed by position: agent:links left
    assert main(["check", "skynet", str(m_path), str(out)]) == 0


def test_a_random_bot_is_beaten():
    m = official(OFFICIAL[3])
    r = adversary(m, "ep2", m.start, BotPlayer("random", RandomBot), deadline=Deadline(60))
    assert r.verdict == "BEATEN" and replay(r.record) == []
    assert r.record.bot == "random" and r.record.agent == "worst"


NONDETERMINISTIC = textwrap.dedent('''
    import random, sys, os
    state = os.path.join(os.path.dirname(os.path.abspath(__file__)), "last.txt")
    n, l, e = map(int, input().split())
    links = [tuple(map(int, input().split())) for _ in range(l)]
    gw = {int(input()) for _ in range(e)}
    cands = [x for x in links if x[0] in gw or x[1] in gw]
    last = open(state).read() if os.path.exists(state) else ""
    rng = random.SystemRandom()
    first = True
    while True:
        si = int(input())
        pick = [x for x in cands if si in x] or cands
        if first:  # a coin of its own, never the same as the run before
            pick = [x for x in pick if f"{x[0]} {x[1]}" != last] or pick
        x = rng.choice(pick)
        if first:
            open(state, "w").write(f"{x[0]} {x[1]}")
            first = False
        cands.remove(x)
        print(*x, flush=True)
''')


def test_a_non_deterministic_program_is_reported(tmp_path):
    prog = tmp_path / "coin.py"
    prog.write_text(NONDETERMINISTIC)
    m = official(OFFICIAL[4])
    player = ProgramPlayer(Program("coin", tuple([sys.executable, str(prog)]),
                                   limits=Limits(first=10, turn=5)), parallel=1)
    r = adversary(m, "ep2", m.start, player, deadline=Deadline(60))
    assert r.nondeterministic, r.summary()
    assert "non-deterministic" in r.summary()
    assert r.verdict != "PROVED"
    if r.record is not None:
        assert replay(r.record) == []


def test_a_tiny_max_replays_gives_unknown_with_the_counts():
    m = official(OFFICIAL[3])
    r = adversary(m, "ep2", 0, BotPlayer("ep2-slack"), max_lines=3, deadline=Deadline(60),
                  share=False)
    assert r.verdict == "UNKNOWN" and r.record is None and r.certificate is None
    assert "--max-replays 3" in r.note and r.lines == 3 and r.positions > 0
    assert "UNKNOWN" in r.summary() and "positions" in r.summary()


@pytest.mark.slow
def test_episode_1_rules_are_bounded_by_the_time_limit():
    m = official(OFFICIAL[4])
    r = adversary(m, "ep1", m.start, BotPlayer("ep2-slack"), deadline=Deadline(3))
    assert r.seconds < 3 + 3  # the limit holds (a slack for the last solver call)
    assert r.verdict in ("UNKNOWN", "BEATEN", "PROVED", "UNWINNABLE")


# -- the property test: the adversary against an independent brute force over agent lines --

def random_small_map(rng: random.Random) -> SkynetMap:
    n = rng.randint(4, 7)
    links = set()
    for v in range(1, n):
        links.add((rng.randrange(v), v))
    for _ in range(rng.randint(0, n)):
        u, v = sorted(rng.sample(range(n), 2))
        links.add((u, v))
    gates = frozenset(rng.sample(range(n), rng.randint(1, 2)))
    free = [v for v in range(n) if v not in gates]
    return SkynetMap(n, tuple(sorted(links)), gates, start=rng.choice(free))


def brute_losing_line(m: SkynetMap, rule: str, bot: Bot) -> bool:
    """Whether some agent line beats ``bot`` (a copy of the bot at every branch, no memo)."""
    def lost(state, b) -> bool:
        try:
            cut = b.cut(state.agent)
        except Exception:
            return True
        if check_cut(m, state, cut, rule):
            return True
        after = state.cut(cut)
        if outcome(after) == "WIN":
            return False
        for v in agent_moves(after):
            if v in m.gateways or lost(after.move(v), copy.deepcopy(b)):
                return True
        return False

    bot.reset(m)
    return lost(m.initial_state(), bot)


def test_property_proved_never_beaten_and_every_brute_force_loss_found():
    rng = random.Random(18)
    factories = {"ep2-slack": lambda: make_bot("ep2-slack"),
                 "ep2-article": lambda: make_bot("ep2-article"),
                 "no-precut": NoPrecutBot, "random": RandomBot}
    seen = {"PROVED": 0, "BEATEN": 0, "UNWINNABLE": 0}
    for k in range(220):
        m = random_small_map(rng)
        rule = "ep2" if k % 3 else "ep1"
        name = rng.choice(sorted(factories))
        r = adversary(m, rule, m.start, BotPlayer(name, factories[name]), deadline=Deadline(30))
        assert r.verdict != "UNKNOWN", (m, rule, name, r.summary())
        brute = brute_losing_line(m, rule, factories[name]())
        winnable = ex_solve(m, rule, m.start, max_nodes=None,
                            certificate=False).status.value == "WIN"
        seen[r.verdict] += 1
        if r.verdict == "PROVED":
            assert not brute, (m, rule, name)
            assert check_player_strategy(m, rule, m.start, r.certificate) == []
        else:
            assert replay(r.record) == [] and r.record.result == "LOSS"
        if brute and winnable:
            assert r.verdict == "BEATEN", (m, rule, name)
        if not brute:
            assert r.verdict == "PROVED", (m, rule, name, r.summary())
        assert (r.verdict == "UNWINNABLE") == (not winnable), (m, rule, name)
    assert min(seen.values()) >= 10, seen


class PathBot(Bot):
    """Decides by where the agent came from (a history, not the position): after a move up
    (to a higher node) it cuts the lowest gateway link, after a move down the highest."""

    name = "path"

    def reset(self, m):
        super().reset(m)
        self.last = None

    def choose(self, agent):
        forced = self.forced_cut(agent)
        up = self.last is None or agent > self.last
        self.last = agent
        if forced:
            return forced
        links = sorted((u, g) for u in range(self.map.n) for g in self.gate_links(u)
                       if u not in self.map.gateways)
        return (links[0] if up else links[-1]) if links else self.fallback(agent)


def test_a_history_dependent_bot_is_found_and_judged_line_by_line():
    rng = random.Random(5)
    found = 0
    for k in range(300):
        m = random_small_map(rng)
        r = adversary(m, "ep2", m.start, BotPlayer("path", PathBot), deadline=Deadline(30))
        brute = brute_losing_line(m, "ep2", PathBot())
        assert (r.verdict == "PROVED") == (not brute), (m, r.summary())
        if r.history_dependent:
            found += 1
            assert r.mode == "per-line" and "history-dependent" in r.summary()
            if r.verdict == "PROVED":
                assert check_player_strategy(m, "ep2", m.start, r.certificate) == []
        if found >= 3:
            break
    assert found >= 3


def test_the_oracle_agrees_with_explicit_search_on_random_positions():
    """Its answers, looked up by subsets and supersets of links, against a fresh search."""
    from puzzleproof.games.skynet_adversary import Oracle

    rng = random.Random(3)
    answers = set()
    for _ in range(40):
        m = random_small_map(rng)
        rule = rng.choice(["ep1", "ep2"])
        oracle = Oracle(m, rule)
        try:
            for _ in range(25):
                links = frozenset(l for l in m.links if rng.random() < 0.7)
                a = rng.choice([v for v in range(m.n) if v not in m.gateways])
                sub = SkynetMap(m.n, tuple(sorted(links)) or m.links[:1], m.gateways, a)
                if not links:
                    continue
                truth = ex_solve(sub, rule, a, max_nodes=None,
                                 certificate=False).status.value == "WIN"
                got = oracle.player_wins(a, links)
                assert got == truth, (m, rule, a, sorted(links))
                answers.add(got)
        finally:
            oracle.close()
    assert answers == {True, False}


@pytest.mark.slow
def test_cli_a_program_judged_by_the_worst_case_over_every_start(tmp_path, capsys):
    maps = [str(shared_path(f"instances/skynet/ep2/{n}.txt")) for n in OFFICIAL]
    out = tmp_path / "games.jsonl"
    bot = ROOT / "instances" / "skynet" / "examples" / "first-link-bot.py"
    code = main(["skynet", "referee", *maps, "--all-starts", "--agent", "worst",
                 "--bot-cmd", f"first={sys.executable} {bot}", "-j", "2",
                 "--time-limit", "30", "-o", str(out)])
    text = capsys.readouterr().out
    assert code == 1  # beaten on starts it could have won
    assert "against the worst-case agent" in text and "BEATEN:" in text
    recs = [json.loads(x) for x in out.read_text().splitlines() if x.strip()]
    games = [r for r in recs if r.get("type") == "record"]
    starts = sum(1 for n in maps for v in range(read_map(Path(n).read_text()).n)
                 if v not in read_map(Path(n).read_text()).gateways)
    assert len(games) == starts
    verdicts = {g["answer"]["adversary"] for g in games}
    assert verdicts <= {"BEATEN", "UNWINNABLE"}, verdicts
    for g in games:
        rec = record_from_json(json.dumps(g["answer"]["record"]))
        assert replay(rec) == [] and rec.result == "LOSS"
    # the BEATEN line renders
    beaten = next(g for g in games if g["answer"]["adversary"] == "BEATEN")
    line = tmp_path / "line.json"
    line.write_text(json.dumps(beaten["answer"]["record"]))
    svg = tmp_path / "line.svg"
    assert main(["render", "skynet", beaten["answer"]["record"]["map"]["name"], "--game",
                 str(line), "-o", str(svg)]) == 0
    assert svg.read_text().startswith("<svg") or "<svg" in svg.read_text()[:400]


def test_cli_bad_input_exits_2_with_one_line(tmp_path, capsys):
    m_path = shared_path("instances/skynet/ep2/01-robust-double-gateways.txt")
    assert main(["skynet", "referee", str(m_path), "--agent", "worst", "--bot", "ep2-slack",
                 "--max-replays", "0"]) == 2
    assert main(["skynet", "referee", str(m_path), "--agent", "worst", "--bot", "ep2-slack",
                 "--start", "99"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err and "start 99" in err[-1]
