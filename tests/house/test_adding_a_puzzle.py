"""A new puzzle is one plugin and no edit of the package: the toy Latin square of
``tests/toy_puzzle`` is installed as a distribution of its own (its ``.dist-info`` with the
entry point on the path, found by ``importlib.metadata`` as any installed package is) and
driven through every shared verb and the Python API; ``docs/ADDING_A_PUZZLE.md`` quotes its
code as it is."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

TOY = ROOT / "tests" / "toy_puzzle"
GUIDE = ROOT / "docs" / "ADDING_A_PUZZLE.md"
SQUARE = "latin 3\n1..\n.2.\n..3\n"
NONE = "latin 2\n11\n..\n"  # two 1s in a row: no completion


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A folder on sys.path holding the toy package and its distribution's metadata."""
    where = tmp_path_factory.mktemp("site")
    shutil.copytree(TOY / "latin_puzzle", where / "latin_puzzle")
    info = where / "latin_puzzle-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: latin-puzzle\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[puzzleproof.puzzles]\n"
                                           "latin = latin_puzzle.plugin:PLUGIN\n")
    (where / "a.latin").write_text(SQUARE)
    (where / "none.latin").write_text(NONE)
    return where


def pp(site: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, "-m", "puzzleproof", *args], cwd=site, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_plugin_is_found_as_an_installed_distribution(site):
    r = pp(site, "--help")
    assert r.returncode == 0 and "latin" in r.stdout and "Latin" not in r.stderr
    r = pp(site, "solve", "--help")
    assert "latin" in r.stdout


@pytest.mark.slow
def test_solve_infers_the_puzzle_and_proves_uniqueness(site):
    r = pp(site, "solve", "a.latin")
    assert r.returncode == 0 and "UNIQUE (brute force)" in r.stdout and "1 3 2" in r.stdout
    r = pp(site, "solve", "latin", "a.latin", "--method", "smallest", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["status"] == "SOLVED"
    r = pp(site, "solve", "none.latin")
    assert r.returncode == 1 and "INFEASIBLE" in r.stdout  # a proved "no"
    r = pp(site, "solve", "a.latin", "--method", "nope")
    assert r.returncode == 2 and "unknown method nope" in r.stderr


@pytest.mark.slow
def test_check_render_and_convert(site):
    (site / "right.json").write_text("[[1, 3, 2], [3, 2, 1], [2, 1, 3]]")
    (site / "wrong.json").write_text("[[1, 2, 3], [3, 2, 1], [2, 1, 3]]")
    assert pp(site, "check", "a.latin", "right.json").returncode == 0
    r = pp(site, "check", "a.latin", "wrong.json")
    assert r.returncode == 1 and "does NOT solve" in r.stdout
    r = pp(site, "render", "a.latin")
    assert r.returncode == 0 and r.stdout.splitlines()[0] == "1 . ."
    r = pp(site, "convert", "a.latin", "--format", "json")
    assert r.returncode == 0 and json.loads(r.stdout)["n"] == 3


@pytest.mark.slow
def test_crosscheck_and_its_report(site):
    run = site / "run.jsonl"
    r = pp(site, "crosscheck", "a.latin", "none.latin", "-q", "-o", str(run), "--force")
    assert r.returncode == 0 and "no disagreement" in r.stdout, r.stderr
    records = [json.loads(x) for x in run.read_text().splitlines()]
    assert {x["puzzle"] for x in records if x["type"] == "record"} == {"latin"}
    r = pp(site, "report", str(run), "-o", str(site / "run.html"), "--force")
    assert r.returncode == 0
    assert "Cross-check of Latin square" in (site / "run.html").read_text()


@pytest.mark.slow
def test_generate_proves_what_it_keeps(site):
    r = pp(site, "generate", "latin", "-n", "2", "--seed", "3")
    assert r.returncode == 0
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(lines) == 2
    for k, rec in enumerate(lines):
        (site / f"g{k}.latin").write_text(rec["text"])
        assert "UNIQUE" in pp(site, "solve", f"g{k}.latin").stdout


def test_the_python_api_is_the_same_plugin(site):
    code = ("import puzzleproof\n"
            "res = puzzleproof.solve('a.latin')\n"
            "print(res.status.value, res.check['ok'])\n"
            "print(puzzleproof.check('a.latin', [[1, 3, 2], [3, 2, 1], [2, 1, 3]]).ok)\n"
            "print(puzzleproof.render('a.latin').data.splitlines()[0])\n"
            "print(puzzleproof.crosscheck(['a.latin']).record['disagreements'])\n"
            "print(len(list(puzzleproof.generate('latin', count=1, seed=2))))\n")
    env = {**os.environ, "PYTHONPATH": str(site)}
    r = subprocess.run([sys.executable, "-c", code], cwd=site, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["UNIQUE True", "True", "1 . .", "[]", "1"]


def test_the_toy_imports_only_the_public_plugin_module():
    """An author needs one import: every ``puzzleproof`` name the toy uses comes from
    ``puzzleproof.plugin``."""
    import ast

    used = set()
    for path in (TOY / "latin_puzzle").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("puzzleproof"):
                used.add(node.module)
            elif isinstance(node, ast.Import):
                used.update(a.name for a in node.names if a.name.startswith("puzzleproof"))
    assert used == {"puzzleproof.plugin"}


def test_a_command_of_its_own_and_a_plot_merged_with_another_puzzles(site):
    r = pp(site, "latin", "givens", "a.latin")
    assert r.returncode == 0 and r.stdout.strip() == "3 givens of 9", r.stderr
    r = pp(site, "plot", "--help")  # two puzzles each give 'plot': one group holds both
    assert r.returncode == 0 and "latin" in r.stdout and "cityclose" in r.stdout
    r = pp(site, "plot", "latin", "a.latin", "-o", str(site / "bars.txt"))
    assert r.returncode == 0 and (site / "bars.txt").read_text().splitlines()[0] == " 0 #"
    r = pp(site, "plot", "a.latin", "-o", str(site / "bars2.txt"))  # the puzzle inferred
    assert r.returncode == 0 and (site / "bars2.txt").exists(), r.stderr
    r = pp(site, "plot", "cityclose", "--help")
    assert r.returncode == 0 and "Wiener" in r.stdout


def test_no_file_of_the_package_names_the_toy():
    hits = [str(p) for p in (ROOT / "puzzleproof").rglob("*.py")
            if re.search(r"latin", p.read_text(), re.I)]
    assert not hits


def test_a_plugin_that_cannot_load_is_said_once_and_left_out(tmp_path):
    info = tmp_path / "broken-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[puzzleproof.puzzles]\nbroken = no_such_module:X\n")
    r = pp(tmp_path, "solve", "--help")
    assert r.returncode == 0 and "hashi" in r.stdout
    assert r.stderr.count("cannot be loaded") == 1 and "no_such_module" in r.stderr


def test_the_guide_quotes_the_toy_as_it_is():
    """Every Python block of docs/ADDING_A_PUZZLE.md stands, line for line, in the toy's
    files: the guide cannot drift from the code the tests run."""
    sources = "\n".join(p.read_text() for p in (TOY / "latin_puzzle").glob("*.py"))
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)
    assert len(blocks) >= 5
    for block in blocks:
        assert block.strip() in sources, block[:200]
