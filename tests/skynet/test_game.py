"""Skynet: the rules under both episodes, formats, agents, the articles' bots, the referee."""

from __future__ import annotations

import json
import re
import sys
import textwrap

import pytest

from puzzleproof.games.program import Limits, Program
from puzzleproof.cli import main
from puzzleproof.errors import InputError
from puzzleproof.formats.skynet import (read_map, record_from_json, record_to_json, render_svg,
                                        write_map)
from puzzleproof.models.skynet import (GameRecord, SkynetMap, Turn, agent_moves, check_cut,
                                       legal_cuts, outcome, replay)
from puzzleproof.players.skynet_agents import AGENTS, make_agent, measure_traces
from puzzleproof.players.skynet_bots import BOTS, make_bot
from puzzleproof.games.skynet_referee import play, play_external
from tests.conftest import INSTANCES, SHARED, shared_path

# the statement's example: 0-1, 0-2, 1-3, 2-3, gateway 3, start 0
EXAMPLE = "4 4 1\n0 1\n0 2\n1 3\n2 3\n3\n0\n"
# a node (1) linked to two gateways (3, 4): Episode 2 style
DOUBLE = "5 4 2\n0 1\n1 3\n1 4\n0 2\n3\n4\n0\n"
# the same, but the agent also starts next to gateway 5: the player has no free turn
TRAP = "6 5 3\n0 1\n1 3\n1 4\n0 5\n0 2\n3\n4\n5\n0\n"

OFFICIAL = ["01-robust-double-gateways", "02-linked-double-gateways",
            "03-leading-up-to-double-gateway", "04-ordered-gateways", "05-complex-mesh",
            "06-bobnet-core-network"]


def official_maps():
    return [read_map(shared_path(f"instances/skynet/ep2/{k}.txt").read_text(), k)
            for k in OFFICIAL]


class TestRules:
    def test_cuts_under_both_rules(self):
        m = read_map(EXAMPLE)
        s = m.initial_state()
        assert check_cut(m, s, (0, 1), "ep1") is None
        assert "touches no gateway" in check_cut(m, s, (0, 1), "ep2")
        assert check_cut(m, s, (1, 3), "ep2") is None and check_cut(m, s, (3, 1), "ep2") is None
        assert "no link 0-3" in check_cut(m, s, (0, 3), "ep1")
        assert "outside" in check_cut(m, s, (0, 9), "ep1")
        s2 = s.cut((1, 3))
        assert "cut already" in check_cut(m, s2, (1, 3), "ep1")
        assert legal_cuts(s2, "ep2") == [(2, 3)] and len(legal_cuts(s2, "ep1")) == 3

    def test_win_loss_and_moves(self):
        m = read_map(EXAMPLE)
        s = m.initial_state().cut((1, 3))
        assert outcome(s) is None and sorted(agent_moves(s)) == [1, 2]
        assert outcome(s.cut((2, 3))) == "WIN"  # no gateway reachable
        assert outcome(s.move(2).move(3)) == "LOSS"  # agent on the gateway
        # an agent with no link left stays where it is
        iso = s.cut((0, 1)).cut((0, 2))
        assert agent_moves(iso) == [0] and outcome(iso) == "WIN"

    def test_double_gateway_node(self):
        m = read_map(DOUBLE)
        for bot in ("ep2-article", "ep2-slack"):
            # one free turn: cut one link of node 1 now, the other when the agent arrives
            r = play(m, "ep2", make_bot(bot), make_agent("article"))
            assert (r.result, r.cuts) == ("WIN", 2) and replay(r) == []
            # no free turn (gateway 5 next to the start): the agent gets through node 1
            r = play(read_map(TRAP), "ep2", make_bot(bot), make_agent("article"))
            assert (r.result, r.reason) == ("LOSS", "agent-reached-gateway")
            assert replay(r) == []
        # under ep1 rules the player may cut 0-1 at once and win in one cut
        r = GameRecord(m, "ep1", 0, [Turn(0, (0, 1), None)], "WIN", "contained")
        assert replay(r) == []
        r = GameRecord(m, "ep2", 0, [Turn(0, (0, 1), None)], "WIN", "contained")
        assert any("the rules say LOSS" in p for p in replay(r))

    def test_illegal_cut_loses(self):
        m = read_map(EXAMPLE)

        class Cheater(make_bot("ep2-slack").__class__):
            name = "cheater"

            def choose(self, agent):
                return (0, 1)  # not a gateway link

        r = play(m, "ep2", Cheater(), make_agent("article"))
        assert (r.result, r.reason) == ("LOSS", "illegal-cut") and "ep2 rule" in r.detail
        assert replay(r) == []
        r = play(m, "ep1", Cheater(), make_agent("article"))  # legal once under ep1 ...
        assert r.turns[0].cut == (0, 1) and r.turns[0].agent_moved_to is not None
        assert r.reason == "illegal-cut" and "cut already" in r.detail  # ... not twice
        assert replay(r) == []

    def test_replay_catches_a_falsified_record(self):
        m = read_map(EXAMPLE)
        r = play(m, "ep2", make_bot("ep2-slack"), make_agent("article"))
        assert replay(r) == []
        r.result = "LOSS" if r.result == "WIN" else "WIN"
        assert any("the rules say" in p for p in replay(r))
        bad = GameRecord(m, "ep2", 0, [Turn(0, (1, 3), 3)], "LOSS")
        assert any("cannot move from 0 to 3" in p for p in replay(bad))

    def test_map_validation(self):
        for text, what in (("3 1 1\n0 0\n2\n", "joins a node to itself"),
                           ("3 2 1\n0 1\n1 0\n2\n", "appears twice"),
                           ("3 1 1\n0 1\n5\n", "gateway 5 out of range"),
                           ("3 1 1\n0 1\n1\n1\n", "starts on gateway 1"),
                           ("3 1 1\n0 7\n2\n", "node 7 out of range")):
            with pytest.raises(InputError, match=what) as info:
                read_map(text, "m.txt")
            assert info.value.source == "m.txt" and info.value.line is not None
        assert read_map(DOUBLE).ep1_problems() == ["node 1 is linked to 2 gateways (3, 4)"]
        assert read_map(EXAMPLE).ep1_problems() == []


class TestFormats:
    def test_round_trips(self):
        m = read_map(DOUBLE, "d")
        for fmt in ("codingame", "json"):
            assert read_map(write_map(m, fmt)) == m
        c = SkynetMap(m.n, m.links, m.gateways, m.start, tuple((i, i * 2) for i in range(m.n)))
        text = write_map(c, "custom")
        assert text.startswith("LOCKED\n5\n0 0\n") and read_map(text) == c
        r = play(m, "ep2", make_bot("ep2-slack"), make_agent("nearest"))
        back = record_from_json(json.dumps(record_to_json(r)))
        assert replay(back) == [] and back.turns == r.turns and back.result == r.result

    def test_located_errors(self):
        with pytest.raises(InputError) as info:
            read_map("4 4 1\n0 1\n0 x\n", "m.txt")
        assert str(info.value) == "m.txt:3:3: expected link 2's second node (an integer), found 'x'"
        with pytest.raises(InputError, match="found the end of the input"):
            read_map("4 4 1\n0 1\n")
        with pytest.raises(InputError, match=r"node 0's y \(a number\)"):
            read_map("LOCKED\n2\n0 a\n")
        with pytest.raises(InputError, match="invalid JSON"):
            read_map("{nope")

    def test_shared_maps_read(self):
        for m in official_maps():
            assert m.start is not None and m.ep1_problems()  # Episode 2 maps have double nodes
        assert read_map(shared_path("instances/skynet/custom/forum-12-nodes.txt").read_text()).n == 12

    def test_svg(self):
        m = read_map(EXAMPLE, "ex")
        r = play(m, "ep2", make_bot("ep2-slack"), make_agent("article"))
        svg = render_svg(m, r)
        assert svg.startswith("<svg") and svg.count("<rect") == 2  # background + 1 gateway
        assert "stroke-dasharray" in svg  # the cut


class TestBots:
    @pytest.mark.parametrize("bot", ["ep2-article", "ep2-slack"])
    def test_episode2_bots_on_the_official_maps(self, bot):
        """The facts: both Episode 2 bots win all six official maps from their start nodes
        against every agent model and tie-break."""
        for m in official_maps():
            for agent in AGENTS:
                for tb in ("low", "high", "order"):
                    r = play(m, "ep2", make_bot(bot), make_agent(agent, tb, seed=3))
                    assert r.result == "WIN", (m.name, agent, tb, r.reason)
                    assert replay(r) == []

    def test_episode1_bots_on_the_official_maps_record_the_facts(self):
        """Episode 1 bots under ep1 rules (any cut) against the article's agent (low ties):
        which official Episode 2 maps (double-gateway nodes: not Episode 1 maps) they win or
        lose. None crashes: the article port's old crash (graph[undefined]) takes the
        branch the author's text describes."""
        got = {}
        for m in official_maps():
            for bot in ("ep1-article", "ep1-path", "ep1-front"):
                r = play(m, "ep1", make_bot(bot), make_agent("article"))
                assert replay(r) == [] and r.reason in ("contained", "agent-reached-gateway")
                got[(m.name[:2], bot)] = r.result
        W, L = "WIN", "LOSS"
        assert got == {
            ("01", "ep1-article"): L, ("01", "ep1-path"): W, ("01", "ep1-front"): L,
            ("02", "ep1-article"): L, ("02", "ep1-path"): W, ("02", "ep1-front"): L,
            ("03", "ep1-article"): W, ("03", "ep1-path"): W, ("03", "ep1-front"): L,
            ("04", "ep1-article"): L, ("04", "ep1-path"): L, ("04", "ep1-front"): L,
            ("05", "ep1-article"): L, ("05", "ep1-path"): L, ("05", "ep1-front"): L,
            ("06", "ep1-article"): L, ("06", "ep1-path"): L, ("06", "ep1-front"): W,
        }

    def test_ep1_article_port_follows_the_javascript(self):
        m = read_map(EXAMPLE)
        bot = make_bot("ep1-article")
        bot.reset(m)
        # two neighbours 1 and 2, equal degree: the code keeps neighbours[0]
        assert bot.cut(0) == (1, 0)
        # now the agent at 2 is next to gateway 3: cut it
        assert bot.cut(2) == (3, 2)
        # no gateway neighbour with 3 neighbours (the JavaScript's graph[undefined]): the
        # author's fallback, the agent's link to its first neighbour
        lone = read_map("4 3 1\n0 1\n1 2\n2 3\n3\n0\n")
        bot.reset(lone)
        assert bot.cut(0) == (1, 0)

    def test_every_bot_answers_a_legal_cut_while_links_remain(self):
        import random
        rng = random.Random(4)
        for _ in range(40):
            n = rng.randint(4, 12)
            links = set()
            for v in range(1, n):
                links.add((rng.randrange(v), v))
            for _ in range(n):
                a, b = rng.sample(range(n), 2)
                links.add((min(a, b), max(a, b)))
            gates = frozenset(rng.sample(range(1, n), rng.randint(1, 3)))
            m = SkynetMap(n, tuple(sorted(links)), gates, 0)
            for name in BOTS:
                rule = make_bot(name).rule
                r = play(m, rule, make_bot(name), make_agent("random", seed=rng.randrange(99)))
                assert replay(r) == []
                if name.startswith("ep2"):
                    assert r.reason != "illegal-cut"


class TestAgents:
    def test_agents_step_onto_a_gateway_and_follow_shortest_paths(self):
        m = read_map("6 5 1\n0 1\n1 2\n2 5\n0 3\n3 4\n5\n0\n")
        s = m.initial_state()
        for name in ("article", "nearest"):
            a = make_agent(name)
            a.reset(m, "ep2")
            assert a.move(s) == 1  # toward the gateway
            assert a.move(s.move(2)) == 5
        m2 = read_map(DOUBLE)
        a = make_agent("article")
        a.reset(m2, "ep2")
        assert a.move(m2.initial_state().cut((1, 3))) == 1

    def test_article_and_nearest_agents_match_a_plain_reading_of_their_rules(self):
        """The agents keep their own neighbour lists from turn to turn; on random maps and
        random games (cuts in any order, states out of order too), every move equals the
        rules read plainly from the state, for every tie-break."""
        import random

        def plain(name, tiebreak, st):
            m, gates, a = st.map, st.map.gateways, st.agent

            def bfs(src):
                dist, todo = {src: 0}, [src]
                for u in todo:
                    if u in gates and u != src:
                        continue
                    for v in st.neighbours(u):
                        if v not in dist:
                            dist[v] = dist[u] + 1
                            todo.append(v)
                return dist

            def pick(cands, order):
                rank = {v: k for k, v in enumerate(order)}
                key = {"low": lambda v: v, "high": lambda v: -v,
                       "order": lambda v: rank.get(v, len(rank) + v)}[tiebreak]
                return min(cands, key=key)

            nb, order = st.neighbours(a), list(m.neighbours[a])
            if [v for v in nb if v in gates]:
                return pick([v for v in nb if v in gates], order)
            if not nb:
                return a
            dist = bfs(a)
            wants = [lambda v: v in gates]
            if name == "article":
                ng = {v: sum(w in gates for w in st.neighbours(v)) for v in dist
                      if v not in gates}
                wants = [lambda v: ng.get(v, 0) > 1, lambda v: ng.get(v, 0) == 1] + wants
            for want in wants:
                ts = [v for v in dist if v != a and want(v)]
                if ts:
                    d = min(dist[v] for v in ts)
                    back = bfs(pick([v for v in ts if dist[v] == d], list(range(m.n))))
                    best = min(back.get(v, 10 ** 9) for v in nb)
                    return pick([v for v in nb if back.get(v, 10 ** 9) == best], order)
            return pick(nb, order)

        rng, asked = random.Random(11), 0
        for _ in range(60):
            n = rng.randint(5, 30)
            links = {(rng.randrange(v), v) for v in range(1, n)}
            for _ in range(n):
                a, b = sorted(rng.sample(range(n), 2))
                links.add((a, b))
            m = SkynetMap(n, tuple(sorted(links)), frozenset(rng.sample(range(1, n), 3)), 0)
            for name in ("article", "nearest"):
                for tb in ("low", "high", "order"):
                    agent = make_agent(name, tb)
                    agent.reset(m, "ep2")
                    st, seen = m.initial_state(), []
                    while st.links and st.agent not in m.gateways:
                        seen.append(st)
                        if rng.random() < 0.2:  # a state out of order
                            st = rng.choice(seen)
                        assert agent.move(st) == plain(name, tb, st), (name, tb, st)
                        asked += 1
                        st = st.cut(rng.choice(sorted(st.links)))
                        st = st.move(rng.choice(st.neighbours(st.agent) or [st.agent]))
        assert asked > 1000

    def test_trace_measurement(self):
        path = shared_path("instances/skynet/ep2-observed-traces.json")
        traces = json.loads(path.read_text())
        maps = {}
        for key in traces:
            stem = key.split("(")[0].replace("_", "-")
            maps[key] = read_map((SHARED / "instances/skynet/ep2" / f"{stem}.txt").read_text(), key)
        table = measure_traces(traces, maps)
        assert set(table) == set(traces)
        skipped = [k for k, row in table.items() if "skipped" in row]
        assert [k[:2] for k in skipped] == ["03"]  # positions only, no cuts in that log
        for key, row in table.items():
            if key in skipped:
                continue
            assert 0 <= row["best"] <= row["moves"]
            assert set(row["models"]) == {f"{a}/{t}" for a in ("article", "nearest")
                                          for t in ("low", "high", "order")}
        assert sum(r["best"] for r in table.values()) > 0


BOT_SCRIPT = textwrap.dedent("""
    import sys
    n, l, e = map(int, input().split())
    links = [tuple(map(int, input().split())) for _ in range(l)]
    gates = {int(input()) for _ in range(e)}
    while True:
        si = int(input())
        left = [(a, b) for a, b in links if a in gates or b in gates]
        near = [(a, b) for a, b in left if si in (a, b)]
        a, b = (near or left)[0]
        links.remove((a, b))
        print(a, b, flush=True)
""")


class TestReferee:
    def test_external_program_plays_a_whole_game(self, tmp_path):
        prog = tmp_path / "bot.py"
        prog.write_text(BOT_SCRIPT)
        m = read_map(EXAMPLE, "ex")
        r = play_external(m, "ep2", Program.of([sys.executable, str(prog)],
                                               limits=Limits(5.0, 2.0)), make_agent("article"))
        assert r.result == "WIN" and r.reason == "contained" and replay(r) == []

    def test_our_play_command_through_the_referee(self, capsys, tmp_path):
        m_path = tmp_path / "m.txt"
        m_path.write_text(shared_path("instances/skynet/ep2/05-complex-mesh.txt").read_text())
        out = tmp_path / "game.jsonl"
        code = main(["skynet", "referee", str(m_path), "--agent", "article", "-o", str(out),
                     "--init-timeout", "10", "--move-timeout", "2", "--",
                     sys.executable, "-m", "puzzleproof", "skynet", "play", "--bot",
                     "ep2-article"])
        assert code == 0, capsys.readouterr()
        rec = record_from_json(out.read_text().splitlines()[0])
        assert rec.result == "WIN" and replay(rec) == [] and rec.cuts >= 10

    @pytest.mark.slow
    @pytest.mark.parametrize("script,reason", [
        ("import time\ninput(); time.sleep(30)", "init-timeout"),
        ("import sys\nsys.stdin.readline(); print('hello there', flush=True)",
         "malformed-output"),
        ("import sys\nsys.exit(3)", "crash"),
        ("import sys\nfor _ in range(7): sys.stdin.readline()\nprint('0 1', flush=True)",
         "illegal-cut"),
    ])
    def test_bad_programs_get_their_verdict_without_hanging(self, tmp_path, script, reason):
        prog = tmp_path / "bad.py"
        prog.write_text(script)
        m = read_map(EXAMPLE, "ex")
        r = play_external(m, "ep2", Program.of([sys.executable, str(prog)],
                                               limits=Limits(1.5, 0.15)), make_agent("article"))
        assert (r.result, r.reason) == ("LOSS", reason), r.detail
        assert replay(r) == []
        if reason == "crash":
            assert "exit code 3" in r.detail

    def test_play_command_speaks_the_protocol(self, capsys, monkeypatch):
        import io
        monkeypatch.setattr(sys, "stdin", io.StringIO("4 4 1\n0 1\n0 2\n1 3\n2 3\n3\n0\n2\n"))
        code = main(["skynet", "play", "--bot", "ep2-slack"])
        lines = capsys.readouterr().out.splitlines()
        assert code == 0 and len(lines) == 2
        assert all(len(x.split()) == 2 for x in lines)

    @pytest.mark.parametrize("turn", ["42", "-1", "x", "1 2", "3"])
    def test_play_command_rejects_a_bad_turn_line(self, capsys, monkeypatch, turn):
        """A turn line that is no agent node (out of range, negative: it once wrapped to
        node 3, a word, two numbers, a gateway): one line naming it, exit 2 (was an
        internal error or a cut)."""
        import io
        monkeypatch.setattr(sys, "stdin", io.StringIO(f"4 4 1\n0 1\n0 2\n1 3\n2 3\n3\n"
                                                      f"0\n{turn}\n"))
        code = main(["skynet", "play", "--bot", "ep2-slack"])
        out, err = capsys.readouterr()
        assert code == 2 and len(out.splitlines()) == 1
        assert f"<stdin>:8: expected the agent's node (a non-gateway node, 0..3), found " \
               f"{turn!r}" in err

    def test_batch_goes_through_the_harness(self, capsys, tmp_path):
        maps = [str(shared_path(f"instances/skynet/ep2/{k}.txt")) for k in OFFICIAL[:2]]
        out = tmp_path / "batch.jsonl"
        code = main(["skynet", "referee", *maps, "--bot", "ep2-slack,ep1-path", "--agent",
                     "article,nearest", "-q", "-j", "2", "-o", str(out)])
        text = capsys.readouterr().out
        assert "2 map/start pairs x 4 bot/agent pairs" in text
        recs = [json.loads(x) for x in out.read_text().splitlines()]
        games = [r for r in recs if r["type"] == "record"]
        assert len(games) == 8 and all(r["check_ok"] for r in games)
        assert all(replay(record_from_json(json.dumps(r["answer"]))) == [] for r in games)
        assert code == (0 if all(r["status"] == "WIN" for r in games) else 1)
        # the ep2 bots win both maps from their starts; the table says so
        assert all(r["status"] == "WIN" for r in games if r["method"].startswith("ep2"))
        # resume: nothing more to do, same file
        before = out.read_text()
        main(["skynet", "referee", *maps, "--bot", "ep2-slack,ep1-path", "--agent",
              "article,nearest", "-q", "-o", str(out), "--resume"])
        assert out.read_text() == before
        capsys.readouterr()
        code = main(["skynet", "referee", maps[0], "--bot", "ep2-slack", "--all-starts",
                     "--json", "-q"])
        data = json.loads(capsys.readouterr().out)
        assert data["games"] == 8 - 2 and data["type"] == "skynet-batch"
        assert code == (0 if not data["lost"] else 1)
        assert main(["skynet", "referee", maps[0]]) == 2  # neither --bot nor a program
        assert main(["skynet", "referee", maps[0], "--bot", "nope"]) == 2

    def test_render_skynet_with_a_game(self, capsys, tmp_path):
        m = shared_path("instances/skynet/ep2/01-robust-double-gateways.txt")
        game = tmp_path / "g.jsonl"
        assert main(["skynet", "referee", str(m), "--bot", "ep2-slack", "-o", str(game)]) == 0
        capsys.readouterr()
        svg = tmp_path / "g.svg"
        assert main(["render", "skynet", str(m), "--game", str(game), "-o", str(svg)]) == 0
        assert svg.read_text().count("stroke-dasharray") >= 1
        # -o FILE.png is a PNG (it once was SVG text under that name), with or without marks
        for extra in ([], ["--game", str(game)], ["--fence", "0,1,2"]):
            png = tmp_path / f"g{len(extra)}{extra[:1]}.png"
            assert main(["render", "skynet", str(m), *extra, "-o", str(png)]) == 0
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_json_is_one_object_with_the_worst_case_and_external_programs(capsys, tmp_path):
    """``--json`` printed two objects (a batch and its worst-case summary; a cross-check
    and its programs' batch), which ``json.loads`` refuses: now one object each."""
    m = str(shared_path("instances/skynet/ep2/01-robust-double-gateways.txt"))
    code = main(["skynet", "referee", m, "--all-starts", "--agent", "worst", "--bot",
                 "ep2-slack", "--json", "-q"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0 and d["type"] == "skynet-batch"
    assert d["worst_case"]["summary"]["ep2-slack"]["PROVED"] == 3
    bot = tmp_path / "first_link.py"  # cuts the gateway links in the map's order: loses
    bot.write_text("n, l, e = map(int, input().split())\n"
                   "links = [tuple(map(int, input().split())) for _ in range(l)]\n"
                   "gates = {int(input()) for _ in range(e)}\n"
                   "todo = [k for k in links if k[0] in gates or k[1] in gates]\n"
                   "while True:\n    input()\n    print(*todo.pop(0), flush=True)\n")
    code = main(["crosscheck", "skynet", m, "--bot-cmd", f"fl={sys.executable} {bot}",
                 "--json", "-q"])
    d = json.loads(capsys.readouterr().out)
    assert code == 1 and d["type"] == "crosscheck" and d["puzzle"] == "skynet"
    assert "parts" not in d  # the program is a row of the one table
    assert {row["method"] for row in d["summary"]} >= {"sat", "fl"}  # against the worst case
    # with -o the programs' games are in the file too, and the file draws: its first lost
    # game, or the K-th with FILE#K
    recs = tmp_path / "cc.jsonl"
    assert main(["crosscheck", "skynet", m, "--bot-cmd", f"fl={sys.executable} {bot}",
                 "--agent", "article,nearest", "-o", str(recs), "-q"]) == 1
    methods = [json.loads(x).get("method") for x in recs.read_text().splitlines()]
    assert {"sat", "fl/article", "fl/nearest"} <= set(methods)
    for arg in (str(recs), f"{recs}#2"):
        svg = tmp_path / "g.svg"
        assert main(["render", "skynet", m, "--game", arg, "-o", str(svg), "--force"]) == 0
        assert "stroke-dasharray" in svg.read_text()
    capsys.readouterr()
    assert main(["render", "skynet", m, "--game", f"{recs}#99"]) == 2
    assert re.search(r"#99: the file holds \d+ game record\(s\), numbered 1\.\.\d+$",
                     capsys.readouterr().err.strip())
    assert any(x["kind"] == "loses-winnable-game" and x["methods"][0] == "fl"
               for x in d["disagreements"])


def test_a_file_of_games_on_many_maps_draws_the_game_of_the_map_named(capsys, tmp_path):
    """A referee file over a folder holds the games of several maps: rendering one map with
    it draws a game played on that map (the file's first lost game is on another); a map
    none of its games was played on is refused, saying so."""
    ep2 = INSTANCES / "skynet" / "ep2"
    recs = tmp_path / "ref.jsonl"
    main(["skynet", "referee", str(ep2 / "01-robust-double-gateways.txt"),
          str(ep2 / "02-linked-double-gateways.txt"), "--bot", "ep2-article", "-o", str(recs),
          "-q"])
    capsys.readouterr()
    svg = tmp_path / "g.svg"
    for name in ("01-robust-double-gateways", "02-linked-double-gateways"):
        assert main(["render", "skynet", str(ep2 / f"{name}.txt"), "--game", str(recs),
                     "-o", str(svg), "--force"]) == 0, capsys.readouterr().err
        assert "stroke-dasharray" in svg.read_text()
    capsys.readouterr()
    assert main(["render", "skynet", str(ep2 / "04-ordered-gateways.txt"), "--game",
                 str(recs)]) == 2
    assert "was played on this map" in capsys.readouterr().err


@pytest.mark.slow
def test_a_program_that_fails_is_a_defect_on_every_start(capsys, tmp_path):
    """A program that crashes loses every start, the unwinnable ones too; those were filed
    under "lost: unwinnable" alone. Every lost game says whether the program's own failure
    ended it (a defect, whatever the start) or the agent did (play)."""
    m = str(shared_path("instances/skynet/ep2/01-robust-double-gateways.txt"))
    crash = tmp_path / "crash.py"
    crash.write_text("import sys\nsys.exit(3)\n")
    code = main(["skynet", "referee", m, "--all-starts", "--bot-cmd",
                 f"c={sys.executable} {crash}", "--json", "-q"])
    judged = json.loads(capsys.readouterr().out)["judged"]
    assert code == 1 and len(judged) == 6
    assert all(j["defect"] and j["reason"] == "crash" for j in judged)
    assert {j["verdict"] for j in judged} == {"lost-proved-winnable", "lost-proved-lost"}
    code = main(["skynet", "referee", m, "--all-starts", "--bot-cmd",
                 f"c={sys.executable} {crash}", "-q"])
    assert "6 lost games ended by the program's own failure" in capsys.readouterr().out
    code = main(["skynet", "referee", m, "--all-starts", "--bot", "ep2-slack", "--json", "-q"])
    judged = json.loads(capsys.readouterr().out)["judged"]
    assert judged and not any(j["defect"] for j in judged)  # lost by play: unwinnable


def test_ep1_rules_on_an_episode2_map_are_flagged(capsys):
    m = shared_path("instances/skynet/ep2/01-robust-double-gateways.txt")
    main(["skynet", "referee", str(m), "--bot", "ep1-path"])
    err = capsys.readouterr().err
    assert "is not an Episode 1 map (node 3 is linked to 2 gateways (4, 5)" in err
