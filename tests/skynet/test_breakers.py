"""Breakers that mean something: bots as people write them, the Episode 1 article port's
old crash, defects that are not findings, locally minimal shrinking, the shipped breakers'
evidence replayed, and the Episode 1 map set with its cuts."""

from __future__ import annotations

import json

import pytest

from tests.conftest import shared_path
from puzzleproof.formats.skynet import read_map, record_from_json, write_map
from puzzleproof.generate.skynet import (_without_node, beaten_by, breaks, locally_minimal,
                                         shrink)
from puzzleproof.generate.skynet_ep1 import EP1_BOTS, ep1_set
from puzzleproof.models.skynet import SkynetMap, replay
from puzzleproof.models.skynet_strategy import check_player_strategy
from puzzleproof.players.skynet_agents import make_agent
from puzzleproof.players.skynet_bots import BOTS, Ep2SlackBot, make_bot
from puzzleproof.verify.skynet_ep1_cuts import article_cuts, worst_cuts
from puzzleproof.games.skynet_referee import play
from puzzleproof.games.skynet_adversary import BotPlayer, adversary

def beaten(m, rule, start, factory):
    """The bot's result against every agent line (the adversary) and the line that beats it."""
    res = adversary(m, rule, start, BotPlayer("bot", factory),
                    max_lines=200_000, certificate=False)
    return res.bot_result, res.record


from tests.conftest import ROOT
BREAKERS = sorted((ROOT / "instances/skynet/breakers").glob("*.txt"))
EP1 = ROOT / "instances/skynet/ep1"
OFFICIAL = ["01-robust-double-gateways", "02-linked-double-gateways",
            "03-leading-up-to-double-gateway", "04-ordered-gateways", "05-complex-mesh",
            "06-bobnet-core-network"]
NEW_BOTS = ("ep1-front", "ep2-double", "ep2-nearest", "ep2-pqdfs")

# the two Episode 1 "breakers" shipped before: our port of the article's bot crashed on
# them (the JavaScript's graph[undefined]); no bot loses them by play
OLD_EP1_BREAKERS = ["5 4 2\n0 4\n1 3\n2 4\n3 4\n1\n2\n4\n", "5 4 2\n0 2\n1 3\n2 3\n2 4\n1\n4\n2\n"]


def test_ep1_article_port_no_longer_crashes_on_the_old_breakers():
    for text in OLD_EP1_BREAKERS:
        m = read_map(text)
        for agent in ("article", "nearest"):
            r = play(m, "ep1", make_bot("ep1-article"), make_agent(agent))
            assert replay(r) == [] and r.result == "WIN", (text, agent, r.reason)
        verdict, record = beaten(m, "ep1", m.start, lambda: make_bot("ep1-article"))
        assert verdict == "WIN" and record is None


@pytest.mark.parametrize("bot", NEW_BOTS)
def test_new_bots_play_legal_games_on_the_official_maps(bot):
    rule = make_bot(bot).rule
    for name in OFFICIAL:
        m = read_map(shared_path(f"instances/skynet/ep2/{name}.txt").read_text(), name)
        for agent in ("article", "nearest", "random"):
            r = play(m, rule, make_bot(bot), make_agent(agent, seed=5))
            assert replay(r) == [], (name, agent)
            assert r.reason in ("contained", "agent-reached-gateway"), (name, agent, r.reason)


def test_new_bots_are_position_determined_and_distinct():
    """Replayed from a fresh bot, a position gets the same cut; and the bots differ."""
    m = read_map(shared_path("instances/skynet/ep2/05-complex-mesh.txt").read_text())
    firsts = {}
    for bot in NEW_BOTS[1:] + ("ep2-article", "ep2-slack"):
        r = play(m, "ep2", make_bot(bot), make_agent("article"))
        firsts[bot] = [tuple(t.cut) for t in r.turns if t.cut]
        again = play(m, "ep2", make_bot(bot), make_agent("article"))
        assert [tuple(t.cut) for t in again.turns if t.cut] == firsts[bot]
    assert len({tuple(c) for c in firsts.values()}) >= 3


class CrashingBot(Ep2SlackBot):
    """A bot with a bug: it crashes on its second turn."""

    name = "test-crash"

    def reset(self, m: SkynetMap) -> None:
        super().reset(m)
        self.turn = 0

    def choose(self, agent: int):
        self.turn += 1
        if self.turn == 2:
            raise IndexError("list index out of range")
        return super().choose(agent)


def test_a_crashing_bot_gives_a_defect_report_not_a_breaker(monkeypatch):
    monkeypatch.setitem(BOTS, "test-crash", CrashingBot)
    m = read_map(shared_path("instances/skynet/ep2/03-leading-up-to-double-gateway.txt")
                 .read_text())
    for agent in ("article", "worst"):
        games, defects = beaten_by(m, ("test-crash", "ep2-slack"), agent)
        assert games == {} and [b for b, _ in defects] == ["test-crash"]
        assert defects[0][1]["reason"] == "crash"
        # the crash alone never makes a breaker
        assert breaks(m, ("test-crash",), False, agent) is None


def _with_dangling_node(m: SkynetMap) -> SkynetMap:
    """The map with one more node hanging off the start (nothing the breaker needs)."""
    links = m.links + ((m.start, m.n),)
    return SkynetMap(m.n + 1, links, m.gateways, m.start, gateway_order=m.gateway_order)


def test_shrinking_gives_a_locally_minimal_map():
    path = ROOT / "instances/skynet/breakers/breaker-ep2-n12-s1-864.txt"
    m = read_map(path.read_text())
    bots = ("ep2-double", "ep2-nearest")
    bigger = _with_dangling_node(m)
    assert breaks(bigger, bots, True, "article") is not None
    assert not locally_minimal(bigger, bots, "article")
    small = shrink(bigger, bots, agent="article")
    assert small.n < bigger.n and locally_minimal(small, bots, "article")
    assert breaks(small, bots, True, "article") is not None
    # a node whose removal renumbers the others is handled (the start is never removed)
    assert _without_node(small, small.start) is None


@pytest.mark.parametrize("path", BREAKERS, ids=lambda p: p.stem)
def test_every_shipped_breaker_replays(path):
    m = read_map(path.read_text(), path.name)
    ev = json.loads(path.with_name(path.stem + ".evidence.json").read_text())
    rule, agent = ev["rule"], ev["agent"]
    assert ev["type"] == "skynet-breaker" and agent in ("article", "worst")
    assert len(ev["lost_by"]) >= 2  # at least two distinct strategies
    # winnable: the player's strategy, checked by the rules against every agent move
    strat = json.loads(path.with_name(ev["strategy"]).read_text())
    assert strat["start"] == m.start and strat["rule"] == rule
    assert check_player_strategy(m, rule, m.start, strat) == []
    for bot in ev["lost_by"]:
        game = record_from_json(json.dumps(ev["games"][bot]))
        assert replay(game) == [] and game.reason == "agent-reached-gateway"
        if agent == "article":  # beaten by play: the same game again
            r = play(m, rule, make_bot(bot), make_agent("article"))
            assert r.result == "LOSS" and r.reason == "agent-reached-gateway"
        verdict, record = beaten(m, rule, m.start, lambda b=bot: make_bot(b))
        assert verdict == "LOSS" and record.reason == "agent-reached-gateway"
    assert ev["locally_minimal"] is True


def test_ep1_set_regenerates_exactly_and_every_bot_wins_it():
    maps = ep1_set(seed=1)
    shipped = sorted(EP1.glob("*.txt"))
    assert [p.stem for p in shipped] == [m.name for m in maps]
    for m, p in zip(maps, shipped):
        assert write_map(m, "codingame") == p.read_text(), p.name
        assert not m.ep1_problems() and m.n <= 500 and len(m.links) <= 1000
        rec = json.loads(p.with_name(p.stem + ".cuts.json").read_text())
        assert rec["type"] == "skynet-ep1-cuts" and rec["start"] == m.start
        f = rec["fewest"]
        assert f.get("value") is not None or f["lower"] <= f["upper"]
        if m.n <= 40:  # the small ones: every bot's recorded cuts, played again
            for bot in EP1_BOTS:
                a = article_cuts(m, "ep1", m.start, bot)
                assert a["result"] == "WIN" and a == rec["bots"][bot]["article"]
    assert [len(m.gateways) for m in maps][-1] == 20 and maps[-1].n == 500


def test_an_escape_too_large_to_ship_is_named_not_written(monkeypatch):
    """The Episode 1 set ships an escape as a file up to SHIPPED_ESCAPE_BYTES; a larger one
    is left out and the record says its horizon, size and how it is written (for a proved
    value: the test suite writes and replays it; else solve --min-cuts returns it)."""
    from puzzleproof.puzzles import skynet_generate as gen

    star = ep1_set(seed=1)[1]
    esc = json.loads((EP1 / "02-star.lower.strategy.json").read_text())
    files, not_shipped = gen.ep1_proof_files(star, {"value": 11, "escape": esc})
    assert list(files) == ["02-star.lower.strategy.json"] and not_shipped == {}
    monkeypatch.setattr(gen, "SHIPPED_ESCAPE_BYTES", 100)
    files, not_shipped = gen.ep1_proof_files(star, {"value": 11, "escape": esc})
    assert files == {} and not_shipped["lower"].startswith(
        f"the agent's escape from 10 cuts: {len(esc['nodes'])} nodes")
    assert "the test suite writes and replays it" in not_shipped["lower"]
    _, open_bound = gen.ep1_proof_files(star, {"value": None, "escape": esc})
    assert "--min-cuts --json` returns it" in open_bound["lower"]


def test_episode1_cuts_are_never_below_the_fewest_and_a_crash_is_no_count(monkeypatch):
    star = ep1_set(seed=1)[1]  # a gateway in a ring of 11: the fewest cuts are 11
    for bot in EP1_BOTS:
        w = worst_cuts(star, "ep1", star.start, bot)
        a = article_cuts(star, "ep1", star.start, bot)
        assert w["exact"] and w["cuts"] >= 11 and w["cuts"] >= a["cuts"], bot
    assert worst_cuts(star, "ep1", star.start, "ep1-article")["cuts"] == 12  # one wasted
    monkeypatch.setitem(BOTS, "test-crash", CrashingBot)
    bad = worst_cuts(star, "ep1", star.start, "test-crash")
    assert bad["cuts"] is None and bad["lost"].startswith("crash")


def test_ep1_gap_search_keeps_maps_where_a_bot_spends_more_than_the_fewest():
    from puzzleproof.generate.skynet_ep1 import GapParams, search_gap
    from puzzleproof.encoders.skynet_explicit import solve as explicit_solve

    got = list(search_gap(GapParams(nodes=8, attempts=12, count=2, seed=1)))
    assert got and [g.excess for g in got] == sorted((g.excess for g in got), reverse=True)
    for g in got:
        m = g.map
        assert not m.ep1_problems()
        fewest = explicit_solve(m, "ep1", m.start, value=True).answer["value"]
        assert g.report["fewest"]["value"] == fewest
        for b in g.worst_bots:
            w = worst_cuts(m, "ep1", m.start, b)
            assert w["exact"] and w["cuts"] - fewest == g.excess >= 1


@pytest.mark.parametrize("path", sorted((ROOT / "instances/skynet/ep1-gap").glob("*.txt")),
                         ids=lambda p: p.stem)
def test_shipped_ep1_gap_maps_replay(path):
    """Each shipped gap map: the fewest cuts proved again, every bot's cuts played again."""
    from puzzleproof.encoders.skynet_explicit import solve as explicit_solve

    m = read_map(path.read_text(), path.name)
    rec = json.loads(path.with_name(path.stem + ".cuts.json").read_text())
    res = explicit_solve(m, "ep1", m.start, value=True)
    assert res.check["ok"] and res.answer["value"] == rec["fewest"]["value"]
    for bot, row in rec["bots"].items():
        assert article_cuts(m, "ep1", m.start, bot) == row["article"]
        w = worst_cuts(m, "ep1", m.start, bot)
        assert w["cuts"] == row["worst"]["cuts"] >= rec["fewest"]["value"]
        assert row["excess"] == w["cuts"] - rec["fewest"]["value"]
    assert rec["excess"] == max(r["excess"] for r in rec["bots"].values()) >= 1


def test_generate_gives_the_same_breakers_on_any_executor():
    """Attempts are tasks judged a round at a time and yielded in attempt order: one process
    and two give the same breaker (attempt 8940 of seed 3, reached by skipping the others)."""
    from puzzleproof.generate.skynet import SkyParams, generate

    p = SkyParams(nodes=9, bots=("ep2-article",), seed=3, count=1, max_attempts=8944,
                  skip=frozenset(range(8935)))
    runs = [[(type(b).__name__, b.attempt, b.map.name, b.map.links) for b in generate(p, jobs)]
            for jobs in (1, 2)]
    assert runs[0] == runs[1]
    assert [r[:3] for r in runs[0] if r[0] == "Breaker"] == [
        ("Breaker", 8940, "breaker-ep2-worst-n9-s3-8940")]
