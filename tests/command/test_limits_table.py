"""Every method of every puzzle honours a time limit on its puzzle's hardest shipped
instance: at 1 s it ends within 2 x the limit + 5 s (a generous bound; the tight one,
limit x 1.1 + 0.2 s + start-up, is measured by ``benchmarks/limits.py``). The table comes
from the registry: a new method is timed without editing this file."""

from __future__ import annotations


import pytest

from tests import limitslib

from tests.conftest import shared_path  # noqa: E402

CASES = limitslib.cases()
LIMIT = 1.0


@pytest.mark.slow
@pytest.mark.parametrize("puzzle, method, rel", CASES, ids=[f"{p}-{m}" for p, m, _ in CASES])
def test_every_method_honours_a_one_second_limit(puzzle, method, rel):
    if rel.startswith("shared/"):
        shared_path("instances/" + rel[len("shared/"):])
    got = limitslib.timed(puzzle, method, rel, LIMIT, timeout=120)
    assert got["status"] not in ("HUNG", "ERROR"), got
    assert got["wall"] <= 2 * LIMIT + 5, got
