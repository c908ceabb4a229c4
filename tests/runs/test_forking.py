"""One answer from a copy of a pristine run (a Python program started once and kept waiting
for its input): the output a fresh run gives, within the limit, nothing left running; a hunt
starts a program once, not once an instance, and reports only what a fresh run confirms."""

from __future__ import annotations

import json
import random
import sys
import textwrap
import time

import pytest

from puzzleproof.clock import Deadline
from puzzleproof.games import forking, runner
from puzzleproof.games.program import Limits, Program
from puzzleproof.generate.hunt import hunt
from puzzleproof.generate.hunt_cityclose import CitycloseHunter
from tests.command.test_hunt import CITY_SMALLEST_DEGREE
from tests.skynet.test_fork import still_running

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="a program waiting for input is seen in Linux's /proc")

PY = sys.executable

ECHO = """\
import sys
text = sys.stdin.read()
print(len(text.split()), text.split()[-1] if text.split() else "-")
"""


def _program(tmp_path, name: str, body: str, first: float = 10.0) -> Program:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return Program(name.split(".")[0], (PY, str(path)), limits=Limits(first=first))


def test_a_copy_answers_as_a_fresh_run_and_the_program_starts_once(tmp_path, starts):
    prog = _program(tmp_path, "echo.py", ECHO)
    with forking.pristine_runs():
        for k in range(5):
            text = " ".join(str(i) for i in range(k * 7)) + "\n"
            quick = forking.answer_from_copy(prog, text, Deadline(10.0))
            fresh = runner.answer(prog, text, Deadline(10.0), close_input=True)
            assert quick is not None and quick.finished and quick.verdict is None
            assert quick.output == fresh.output and fresh.verdict is None
        assert starts[0] == 1 + 5  # the pristine run, then each fresh run
    assert still_running(str(tmp_path)) == []


def test_what_cannot_be_copied_is_said_with_none(tmp_path):
    prog = _program(tmp_path, "echo.py", ECHO)
    # outside a hunt (a breaker judged again): one judge, run afresh
    assert forking.answer_from_copy(prog, "1\n", Deadline(10.0)) is None
    with forking.pristine_runs():
        assert forking.answer_from_copy(prog, "x" * (forking.PRISTINE_INPUT_BYTES + 1),
                                        Deadline(10.0)) is None  # too long to write ahead
        shell = Program("sh", ("sh", "-c", "cat"))
        assert forking.answer_from_copy(shell, "1\n", Deadline(5.0)) is None  # not Python
        early = _program(tmp_path, "early.py", "raise SystemExit(3)\n")
        # it never waits for its input
        assert forking.answer_from_copy(early, "1\n", Deadline(5.0)) is None
    assert still_running(str(tmp_path)) == []


def test_a_copy_that_never_ends_is_cut_at_the_limit_and_killed(tmp_path):
    prog = _program(tmp_path, "spin.py", "input()\nwhile True:\n    pass\n", first=1.0)
    with forking.pristine_runs():
        t0 = time.monotonic()
        got = forking.answer_from_copy(prog, "1\n", Deadline(1.0))
        assert got is not None and not got.finished and got.verdict[0] == "timeout"
        assert time.monotonic() - t0 < 6
        flood = _program(tmp_path, "flood.py",
                         "input()\nimport sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n")
        got = forking.answer_from_copy(flood, "1\n", Deadline(30.0))
        assert got is not None and got.verdict[0] == "output-too-long"
    assert still_running(str(tmp_path)) == []


def test_a_city_hunt_starts_its_program_once_and_reports_fresh_failures(tmp_path, starts):
    """Judged here (one process): the smallest-degree program on 30 maps is one start, plus
    one fresh run for each failure a copy shows (the hunt reports those alone)."""
    prog = _program(tmp_path, "deg.py", CITY_SMALLEST_DEGREE)
    hunter = CitycloseHunter(prog, min_gap=0.05, sizes=(6, 7))
    found = list(hunt(hunter, seed=1, deadline=Deadline(120), max_attempts=30, confirm=0))
    if found:
        b = found[0]
        assert b.failure.kind == "gap" and b.failure.evidence["stderr"] == []
    assert 1 <= starts[0] < 15
    assert still_running(str(tmp_path)) == []


def test_a_copy_reads_what_a_fresh_run_reads(tmp_path):
    """City maps as a program reads them: the same order from a copy and from a fresh run."""
    from puzzleproof.games.cityclose_program import program_input
    from puzzleproof.models.cityclose import Rules

    prog = _program(tmp_path, "deg.py", CITY_SMALLEST_DEGREE)
    hunter = CitycloseHunter(prog, min_gap=0.05)
    with forking.pristine_runs():
        for k in range(4):
            m = hunter.candidate(random.Random(k), 9)
            text = program_input(m, Rules())
            json.loads(text)
            quick = forking.answer_from_copy(prog, text, Deadline(10.0))
            fresh = runner.answer(prog, text, Deadline(10.0), close_input=True)
            assert quick is not None and quick.output == fresh.output != ""


def test_copies_are_given_up_when_they_save_little(tmp_path):
    """A program whose work comes after its input (0.8 s here, its start-up a fraction of
    that) gains little from copies: after three answers it is run afresh (None)."""
    prog = _program(tmp_path, "late.py", "import sys, time\nsys.stdin.read()\n"
                                         "time.sleep(0.8)\nprint('done')\n")
    with forking.pristine_runs():
        got = [forking.answer_from_copy(prog, "1\n", Deadline(10.0)) for _ in range(4)]
        assert all(g is not None and g.output == "done\n" for g in got[:3])
        assert got[3] is None
    assert still_running(str(tmp_path)) == []
