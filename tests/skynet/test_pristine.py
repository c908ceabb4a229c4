"""Games started as copies of a pristine run (a Python program started once and left
waiting for its input), and the adversary's search for a loss only (a hunt's question): the
same losses as fresh runs, each confirmed by a fresh run; one program start per process
instead of one per game; a copy's first answer gets what the start-up left of the
first-turn limit; nothing left running when the hunt ends or the run is left unused."""

from __future__ import annotations

import random
import sys
import textwrap
import time

import pytest

from puzzleproof.clock import Deadline
from puzzleproof.games import forking, skynet_sessions
from puzzleproof.games.program import Limits, Program
from puzzleproof.games.skynet_adversary import ProgramPlayer, adversary
from puzzleproof.generate.hunt import hunt
from puzzleproof.generate.hunt_skynet import SkynetHunter
from puzzleproof.models.skynet import replay
from tests.command.test_hunt import SKYNET_NEAREST_LINK
from tests.skynet.test_fork import GOOD, official, still_running


def _player(path, limits: Limits = Limits(first=10, turn=5)) -> ProgramPlayer:
    return ProgramPlayer(Program("prog", (sys.executable, str(path)), limits=limits),
                         parallel=1)


def test_a_search_for_a_loss_from_pristine_copies_finds_the_losses_fresh_runs_find(
        tmp_path, starts):
    """A program that cuts the gateway link nearest the agent, on 12 random maps of 8 nodes
    (hunt draws, among them two it loses from a winnable start):
    where fresh runs prove it wins, the search for a loss finds none (and claims no proof);
    where they beat it, so does the search, and its loss is confirmed by a fresh run."""
    bot = tmp_path / "near_bot.py"
    bot.write_text(textwrap.dedent(SKYNET_NEAREST_LINK))
    hunter = SkynetHunter(Program("near", (sys.executable, str(bot))), "ep2", "worst")
    verdicts = []
    try:
        for k in (*range(10), 24, 46):
            m = hunter.candidate(random.Random(f"pristine:{k}"), 8)
            fresh = adversary(m, "ep2", m.start, _player(bot), deadline=Deadline(120),
                              certificate=False, share=False)
            before = starts[0]
            with forking.pristine_runs(end=False):  # the run is kept from map to map
                sought = adversary(m, "ep2", m.start, _player(bot), deadline=Deadline(120),
                                   certificate=False, share=False, seek=True)
            verdicts.append(fresh.verdict)
            assert fresh.verdict in ("PROVED", "BEATEN", "UNWINNABLE"), fresh.summary()
            if fresh.verdict == "PROVED":
                assert sought.verdict == "UNKNOWN" and "no line lost" in sought.note
                assert sought.record is None
                assert starts[0] - before <= 1  # at most the pristine run's own start
                continue
            assert sought.verdict == fresh.verdict, (k, sought.summary())
            assert replay(sought.record) == [] and sought.record.result == "LOSS"
            if sought.verdict == "BEATEN":  # confirmed by a fresh run, its stderr kept
                assert "agent at" in (sought.stderr or "")
                assert 1 <= starts[0] - before <= 2
        assert {"PROVED", "BEATEN"} <= set(verdicts)
    finally:
        forking.close_pristine()
    assert still_running(str(tmp_path)) == []


SLOW_START = textwrap.dedent('''
    import sys, time
    time.sleep({before})
    n, l, e = map(int, input().split())
    links = [tuple(map(int, input().split())) for _ in range(l)]
    gates = {{int(input()) for _ in range(e)}}
    time.sleep({after})
    while True:
        si = int(input())
        gl = [k for k in links if k[0] in gates or k[1] in gates]
        near = [k for k in gl if si in k]
        cut = (near or gl)[0]
        links.remove(cut)
        print(*cut, flush=True)
''')


@pytest.mark.parametrize("before, after, fails", [(1.2, 1.2, True), (0.4, 0.4, False)])
def test_a_copys_first_answer_has_what_the_start_up_left_of_the_first_limit(
        tmp_path, before, after, fails):
    """2 s for start-up and the first answer: 1.2 s before reading and 1.2 s after is a
    time-out for a fresh run, and so for a copy of a run that took 1.2 s to be ready."""
    bot = tmp_path / "slow_bot.py"
    bot.write_text(SLOW_START.format(before=before, after=after))
    m = official("01-robust-double-gateways")
    p = _player(bot, Limits(first=2.0, turn=5))
    with forking.pristine_runs():
        r = adversary(m, "ep2", m.start, p, deadline=Deadline(60), certificate=False,
                      seek=True)
    if fails:
        assert r.verdict in ("BEATEN", "UNWINNABLE") and r.record.reason == "init-timeout", \
            r.summary()
    else:
        assert r.record is None or r.record.reason == "agent-reached-gateway", r.summary()
    assert still_running(str(tmp_path)) == []


EXACT = """\
import sys
from puzzleproof.cli import main
sys.exit(main(["skynet", "play", "--bot", "exact"]))
"""


def test_one_program_start_serves_a_hunt_and_ends_with_it(tmp_path, starts):
    """Our exact bot as a program, judged here (``jobs=1``) against the worst-case agent on
    24 small maps: no breaker, one program start in all, nothing left running after."""
    bot = tmp_path / "exact_bot.py"
    bot.write_text(EXACT)
    program = Program("exact", (sys.executable, str(bot)), limits=Limits(first=20, turn=5))
    hunter = SkynetHunter(program, "ep2", "worst", sizes=(5, 6))
    tried = []
    found = list(hunt(hunter, seed=3, deadline=Deadline(240), max_attempts=24,
                      on_attempt=lambda k, _kept: tried.append(k)))
    assert found == [] and max(tried) == 24
    assert starts[0] == 1
    assert still_running(str(tmp_path)) == []


def test_a_pristine_run_left_unused_is_ended(tmp_path, monkeypatch):
    monkeypatch.setattr(forking, "PRISTINE_IDLE_SECONDS", 0.4)
    bot = tmp_path / "good_bot.py"
    bot.write_text(GOOD)
    m = official("01-robust-double-gateways")
    assert skynet_sessions.pristine_copy(_player(bot), m) is None  # outside a hunt: none
    with forking.pristine_runs(end=False):
        copy = skynet_sessions.pristine_copy(_player(bot), m)
    assert copy is not None
    try:
        cut, _ = copy.ask(m.start)
        assert any(g in cut for g in m.gateways) or cut
    finally:
        copy.close()
    deadline = time.monotonic() + 10
    while still_running(str(tmp_path), 0.0) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert still_running(str(tmp_path)) == []


def test_a_pristine_copy_answers_as_a_fresh_run(tmp_path):
    """Random maps, random agent walks: the copy's cuts are the fresh run's, turn by turn."""
    from puzzleproof.generate.skynet import SkyParams, _random_map

    bot = tmp_path / "good_bot.py"
    bot.write_text(GOOD)
    rng = random.Random(5)
    with forking.pristine_runs():
        for _ in range(6):
            m = _random_map(rng, SkyParams(nodes=9, extra=0.6, gateways=3))
            if m is None:
                continue
            sessions = [skynet_sessions.pristine_copy(_player(bot), m),
                        _player(bot).open(m, plain=True)]
            assert sessions[0] is not None
            try:
                agent = m.start
                for _turn in range(3):
                    cuts = [s.ask(agent)[0] for s in sessions]
                    assert cuts[0] == cuts[1]
                    nxt = [v for a, b in m.links for v in (a, b)
                           if agent in (a, b) and v != agent and v not in m.gateways]
                    if not nxt:
                        break
                    agent = rng.choice(sorted(nxt))
            finally:
                for s in sessions:
                    s.close()
    assert still_running(str(tmp_path)) == []
