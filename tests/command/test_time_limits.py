"""A time limit the user sets holds, for every method of every puzzle.

The rule (README, "Trust and limits"): a solver's own reported wall time stays within
10 % + 0.2 s of ``--time-limit``, and the whole command within that plus its start-up; a
limit that runs out gives UNKNOWN, never a verdict, and the note names the limit.

These tests look at the clock because a limit is a feature the user relies on; the margins
are the promised ones, not speed targets. Start-up is measured here as the time of the same
command on a trivial instance of the puzzle (it imports the same solver libraries).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT, shared_path

LIMIT = 0.5


def _run(*args: str, timeout: float = 120) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "puzzleproof", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    return proc, time.monotonic() - t0


def _startup(*args: str) -> float:
    """The command's own cost on an instance it answers at once (best of two)."""
    return min(_run(*args)[1] for _ in range(2))


def _within(reported: float, total: float, startup: float, limit: float = LIMIT) -> None:
    bound = limit * 1.1 + 0.2
    assert reported <= bound, f"the solver reported {reported:.3f} s for a {limit} s limit"
    assert total <= bound + startup + 0.3, (
        f"the command took {total:.3f} s for a {limit} s limit (start-up {startup:.3f} s)")


def _unknown_names_limit(obj: dict) -> None:
    if obj["status"] == "UNKNOWN":
        note = json.dumps(obj.get("note") or obj.get("certificate") or obj.get("answer"))
        assert "limit" in note, obj


SKYNET_05 = "instances/skynet/ep2/05-complex-mesh.txt"
SKYNET_SMALL = "instances/skynet/ep2/01-robust-double-gateways.txt"


@pytest.mark.slow
@pytest.mark.parametrize("method,extra", [
    ("sat", []), ("sat", ["--min-cuts"]), ("sat", ["--rule", "ep1", "--min-cuts"]),
    ("explicit", []), ("explicit", ["--rule", "ep1", "--min-cuts"]),
])
def test_skynet_limit_holds(method, extra, tmp_path):
    big = str(shared_path(SKYNET_05))
    small = str(shared_path(SKYNET_SMALL))
    if method == "sat" and "--rule" not in extra:  # map 05 is decided at once under ep2:
        from puzzleproof.formats.skynet import write_map  # a map at CodinGame's limits
        from puzzleproof.generate.skynet_large import codingame_limits_map

        big = str(tmp_path / "codingame-limits-s3.txt")
        (tmp_path / "codingame-limits-s3.txt").write_text(
            write_map(codingame_limits_map(3), "codingame"))
    startup = _startup("solve", "skynet", small, "--method", method, *extra, "--jsonl")
    proc, total = _run("solve", "skynet", big, "--method", method, *extra,
                       "--time-limit", str(LIMIT), "--jsonl")
    assert proc.returncode in (0, 1), proc.stderr
    obj = json.loads(proc.stdout.splitlines()[0])
    assert obj["status"] == "UNKNOWN", f"{big} is not decided and certified in 0.5 s"
    _unknown_names_limit(obj)
    _within(obj["wall_time"], total, startup)


HASHI_400 = "instances/hashi/coelho2019/400/Hs_34_400_75_00_001.has"
HASHI_SMALL = "instances/hashi/coelho2019/100/Hs_16_100_25_00_001.has"


@pytest.mark.slow
@pytest.mark.parametrize("method", ["sat", "cpsat", "article"])
def test_hashi_limit_holds(method):
    big = str(shared_path(HASHI_400))
    small = str(shared_path(HASHI_SMALL))
    startup = _startup("solve", "hashi", small, "--method", method, "--json")
    limit = 0.05  # the 400-island puzzles take longer than this to prove unique
    question = [] if method == "article" else ["--unique"]  # the heuristic has no --unique
    proc, total = _run("solve", "hashi", big, "--method", method, *question,
                       "--time-limit", str(limit), "--json")
    assert proc.returncode in (0, 1), proc.stderr
    obj = json.loads(proc.stdout)
    _unknown_names_limit(obj)
    _within(obj["wall_time"], total, startup, limit)


EUROPE41 = "instances/cityclose/europe41-land-borders.json"
ROUNDABOUT = "instances/cityclose/two-spies-roundabout.json"


@pytest.mark.slow
@pytest.mark.parametrize("method", ["exact", "ilp", "merged-beam"])
def test_cityclose_limit_holds(method):
    big = str(shared_path(EUROPE41))
    small = str(shared_path(ROUNDABOUT))
    # (the ILP does not prove even the 11-city map at once: its start-up is measured under a
    # 0.3 s limit, which makes this bound 0.3 s looser)
    startup = _startup("solve", "cityclose", small, "--method", method, "--jsonl",
                       "--time-limit", "0.3")
    # europe41 is not proved (nor, by the merged beam, always finished) in these limits on
    # this kind of machine; one that proves (finishes) it in time honours the limit too
    limit = 0.5 if method == "exact" else 1.0
    proc, total = _run("solve", "cityclose", big, "--method", method,
                       "--time-limit", str(limit), "--jsonl")
    assert proc.returncode in (0, 1), proc.stderr
    obj = json.loads(proc.stdout.splitlines()[0])
    done = "SOLVED" if method == "merged-beam" else "OPTIMAL"  # a heuristic proves nothing
    assert obj["status"] in ("UNKNOWN", done), obj["status"]
    if obj["status"] == "UNKNOWN":
        assert "time limit" in str(obj["stats"].get("reason")) + str(obj.get("certificate"))
    _within(obj["wall_time"], total, startup, limit)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["exact", "ilp", "greedy", "beam", "merged-beam"])
def test_cityclose_limit_holds_on_thousands_of_cities(method):
    """On a map of 2,000 cities each step the methods take is long (a Wiener number, the
    root of the exact search): they still read the clock often enough. The margin is wider
    than the promised one by a second, a single step on such a map; before, the article's
    greedy ignored the limit (hours) and a single Wiener number in the beams' and the ILP's
    set-up took seconds."""
    from puzzleproof.models.cityclose import CityMap, Rules
    from puzzleproof.clock import Deadline
    from puzzleproof.verify.cityclose_methods import run

    n = 2000
    links = [(i, i + 1) for i in range(n - 1)] + [(i, i + 7) for i in range(0, n - 7, 50)]
    m = CityMap(tuple(f"c{i}" for i in range(n)), tuple(links), name="chain2000")
    limit = 2.0
    t0 = time.monotonic()
    res = run(method, m, Rules(), deadline=Deadline(limit))
    took = time.monotonic() - t0
    assert res.status.value in ("UNKNOWN", "SOLVED"), res.status
    assert took <= limit * 1.1 + 0.2 + 1.0, f"{method} took {took:.2f} s for a {limit} s limit"
