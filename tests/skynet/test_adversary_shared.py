"""The adversary on the large official maps, with what one start settles shared by the next
(issue 32): PROVED certificates replayed by the rules-only checker and made of the bot's own
cuts, a bot that depends on its start caught, knowledge passed between processes."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap

import pytest

from puzzleproof.games.program import Limits, Program
from puzzleproof.clock import Deadline
from puzzleproof.formats.skynet import read_map
from puzzleproof.models.skynet import SkynetMap, replay
from puzzleproof.models.skynet_strategy import check_player_strategy
from puzzleproof.games.skynet_adversary import BotPlayer, adversary
from puzzleproof.players.skynet_bots import Bot, make_bot
from puzzleproof.games.skynet_settled import STORE_ENV
from tests.conftest import shared_path
from tests.skynet.test_adversary import brute_losing_line, random_small_map
from tests.conftest import ROOT


def official(name: str) -> SkynetMap:
    path = shared_path(f"instances/skynet/ep2/{name}.txt")
    return read_map(path.read_text(), path.name)


def bot_cut_at(m: SkynetMap, name: str, agent: int, links: frozenset) -> tuple[int, int]:
    """The bot's cut at a position, asked of a fresh bot that sees only these links (our
    slack bot decides from its view of the links alone)."""
    bot = make_bot(name)
    # the links in the map's order (its tie-breaks follow the order of its neighbours)
    bot.reset(SkynetMap(m.n, tuple(l for l in m.links if l in links), m.gateways, agent))
    u, v = bot.cut(agent)
    return (min(u, v), max(u, v))


@pytest.mark.slow
def test_proved_certificates_on_maps_05_and_06_hold_by_the_rules_alone():
    """Each start after the first takes positions the earlier ones settled; every
    certificate is replayed by the rules-only checker (it shares nothing with the search)
    and a sample of its nodes is compared with the bot's own cut there."""
    rng = random.Random(32)
    for name, starts in (("05-complex-mesh", (34, 35, 33)),
                         ("06-bobnet-core-network", (48, 46))):
        m = official(name)
        index = {l: k for k, l in enumerate(m.links)}
        shared = 0
        for s in starts:
            r = adversary(m, "ep2", s, BotPlayer("ep2-slack"), deadline=Deadline(600))
            assert r.verdict == "PROVED", (name, s, r.summary())
            cert = r.certificate
            assert check_player_strategy(m, "ep2", s, cert) == [], (name, s)
            shared += r.shared
            nodes = sorted(cert["nodes"].items())
            for nid, node in rng.sample(nodes, min(300, len(nodes))):
                mask = int(nid.split(":")[1], 16)
                links = frozenset(l for l, k in index.items() if mask >> k & 1)
                assert tuple(node["cut"]) == bot_cut_at(m, "ep2-slack", node["agent"],
                                                        links), (name, s, nid)
        assert shared > 0, name  # later starts ended on positions settled before


class StartBot(Bot):
    """Cuts the agent's gateway link when it has one, else the lowest gateway link from
    an even start and the highest from an odd one: position-determined within a start, not
    across starts."""

    name = "by-start"

    def reset(self, m):
        super().reset(m)
        self.start = None

    def choose(self, agent):
        if self.start is None:
            self.start = agent
        forced = self.forced_cut(agent)
        if forced:
            return forced
        links = sorted((u, g) for u in range(self.map.n) for g in self.gate_links(u)
                       if u not in self.map.gateways)
        return (links[0] if self.start % 2 == 0 else links[-1]) if links \
            else self.fallback(agent)


def test_a_bot_that_depends_on_its_start_is_judged_start_by_start():
    rng = random.Random(11)
    caught = 0
    for _ in range(400):
        m = random_small_map(rng)
        player = BotPlayer("by-start", StartBot)
        for s in [v for v in range(m.n) if v not in m.gateways]:
            r = adversary(m, "ep2", s, player, deadline=Deadline(30))
            truth = brute_losing_line(m.with_start(s), "ep2", StartBot())
            assert (r.verdict == "PROVED") == (not truth), (m, s, r.summary())
            if r.verdict == "PROVED":
                assert check_player_strategy(m, "ep2", s, r.certificate) == []
            else:
                assert replay(r.record) == []
            caught += "no longer shared" in r.note
        if caught >= 3:
            break
    assert caught >= 3


RUN = textwrap.dedent('''
    import json, sys
    from puzzleproof.clock import Deadline
    from puzzleproof.formats.skynet import read_map
    from puzzleproof.games.skynet_adversary import BotPlayer, adversary
    path, start = sys.argv[1], int(sys.argv[2])
    m = read_map(open(path).read(), path)
    r = adversary(m, "ep2", start, BotPlayer("ep2-slack"), deadline=Deadline(300))
    print(json.dumps({"verdict": r.verdict, "shared": r.shared, "positions": r.positions}))
''')


def test_knowledge_passes_between_processes_through_the_store(tmp_path):
    """Two processes (as two pool workers' tasks are), one store: the second start ends
    on positions the first settled; a store marked mixed shares nothing."""
    path = str(shared_path("instances/skynet/ep2/04-ordered-gateways.txt"))
    env = {**os.environ, STORE_ENV: str(tmp_path / "store")}

    def run(start: int) -> dict:
        out = subprocess.run([sys.executable, "-c", RUN, path, str(start)], env=env,
                             capture_output=True, text=True, timeout=300, check=True)
        return json.loads(out.stdout)

    first = run(0)
    assert first["verdict"] == "PROVED" and first["shared"] == 0
    second = run(2)
    assert second["verdict"] == "PROVED" and second["shared"] > 0
    files = list((tmp_path / "store").iterdir())
    assert len(files) == 1 and files[0].stat().st_size > 0
    (tmp_path / "store" / (files[0].name + ".mixed")).write_text("")
    again = run(2)
    assert again["verdict"] == "PROVED" and again["shared"] == 0


@pytest.mark.slow
def test_a_forked_programs_proved_certificate_on_map_05_holds_by_the_rules_alone():
    """An external program judged on a large official map: a plain Python bot
    (``benchmarks/skynet_slack_bot.py``) run under the fork host, every line a forked copy
    of the one it branched from, is PROVED from one start of the complex mesh (about 10,000
    positions asked), and the certificate, made of the program's own answers, is replayed
    by the rules-only checker. Map 06 and the other starts: ``benchmarks/skynet_adversary.py``."""

    from puzzleproof.games.skynet_adversary import ProgramPlayer
    from tests.skynet.test_fork import still_running

    bot = ROOT / "benchmarks" / "skynet_slack_bot.py"
    for name, start in (("05-complex-mesh", 34),):
        m = official(name)
        p = ProgramPlayer(Program("slack", tuple([sys.executable, str(bot)]),
                                  limits=Limits(first=10, turn=5)), parallel=2)
        r = adversary(m, "ep2", start, p, deadline=Deadline(900), share=False)
        assert r.verdict == "PROVED", (name, r.summary())
        assert r.forks > 1000 and r.replays <= 3, (name, r.summary())
        assert len(r.certificate["nodes"]) == r.positions
        assert check_player_strategy(m, "ep2", start, r.certificate) == [], name
    assert still_running(str(bot)) == []


def test_a_search_shares_what_it_settled_while_it_runs(tmp_path, monkeypatch):
    """With knowledge on disk (pool workers), a search hands over its settled positions as
    it goes, from a copy of its table taken under its lock: they are the positions its own
    end-of-search walk finds settled, and every one of them is in the store."""
    from puzzleproof.games import skynet_settled, skynet_adversary_search

    monkeypatch.setenv(STORE_ENV, str(tmp_path / "store"))
    monkeypatch.setattr(skynet_settled, "_MEMORY", {})
    monkeypatch.setattr(skynet_adversary_search, "SYNC_SECONDS", 0.0)
    seen: list = []
    original = skynet_adversary_search.Search.sync

    def spy(self):
        before = self.synced
        original(self)
        if self.synced != before:
            seen.append(self)

    monkeypatch.setattr(skynet_adversary_search.Search, "sync", spy)
    m = official("04-ordered-gateways")
    r = adversary(m, "ep2", 0, BotPlayer("ep2-slack"), deadline=Deadline(300))
    assert r.verdict == "PROVED" and seen
    s = seen[-1]
    settled = dict(s.complete())
    assert settled and dict(s.complete(dict(s.table), dict(s.expanded))) == settled
    fresh = skynet_settled.Knowledge(len(m.links), s.knowledge.path)
    fresh.refresh()
    assert set(settled) <= fresh.settled
    assert all(fresh.cuts[key] == cut for key, cut in settled.items())
