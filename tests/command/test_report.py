"""``puzzleproof report RUN.jsonl`` (issue 19): one self-contained page for any run, checked in
headless Chromium; Markdown with the pictures beside it; bad input is exit 2 naming the line."""

from __future__ import annotations

import json

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import INSTANCES, pp


WRONG_SOLVER = """
w, h = int(input()), int(input())
rows = [input() for _ in range(h)]
for y, row in enumerate(rows):  # one bridge between the first two islands of a row: wrong
    xs = [x for x, c in enumerate(row) if c != "."]
    if len(xs) >= 2:
        print(xs[0], y, xs[1], y, 1)
        break
"""


@pytest.fixture(scope="module")
def hashi_run(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("hashi")
    bot = tmp / "wrong.py"
    bot.write_text(WRONG_SOLVER)
    run = tmp / "run.jsonl"
    r = pp("crosscheck", "hashi", str(INSTANCES / "hashi" / "small-5x5.txt"),
           str(INSTANCES / "hashi" / "medium-9x9.tatham"), "--method", "sat,article",
           "--bot-cmd", f"wrong={sys.executable} {bot}", "-j", "1", "-q", "-o", str(run))
    assert r.returncode == 1, r.stderr  # the wrong solver's answers are disagreements
    return run


def _chromium(*args: str, tmp: Path) -> subprocess.CompletedProcess:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        msg = "chromium is not installed (.ci/run installs it: apt-get install chromium)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    proc = subprocess.Popen([exe, "--headless", "--no-sandbox", "--disable-gpu",
                             "--no-first-run", f"--user-data-dir={tmp / 'profile'}", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=90)
    finally:
        try:  # the browser's helpers go with it
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, "")


@pytest.mark.slow
def test_a_cross_check_report_shows_its_tables_and_pictures_in_chromium(hashi_run, tmp_path):
    page = tmp_path / "report.html"
    r = pp("report", str(hashi_run), "-o", str(page))
    assert r.returncode == 0, r.stderr
    text = page.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)  # nothing from a network
    dom = _chromium("--dump-dom", page.as_uri(), tmp=tmp_path).stdout
    assert "<h1>Cross-check of Hashiwokakero</h1>" in dom
    assert dom.count("<table") >= 2
    assert re.search(r"<td>wrong</td>", dom)
    assert "invalid-answer" in dom
    # each disagreement drawn twice (the wrong answer, the checked solution), and the plots
    assert dom.count("<svg") >= 4
    assert "missing bridges" in dom
    assert dom.count('src="data:image/png;base64,') >= 1
    shot = tmp_path / "shot.png"
    _chromium(f"--screenshot={shot}", "--window-size=1000,1400", page.as_uri(), tmp=tmp_path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.image as mpimg

    pixels = mpimg.imread(str(shot))
    assert pixels.shape[0] == 1400 and pixels.shape[1] == 1000
    ink = (pixels[..., :3].mean(axis=2) < 0.6).mean()
    assert ink > 0.01  # tables and pictures drawn, not an empty page


@pytest.mark.slow
def test_markdown_report_writes_its_pictures_beside_it(hashi_run, tmp_path):
    md = tmp_path / "report.md"
    r = pp("report", str(hashi_run), "--format", "md", "-o", str(md))
    assert r.returncode == 0, r.stderr
    text = md.read_text()
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert len(pictures) >= 4
    for p in pictures:
        assert (tmp_path / p).is_file() and (tmp_path / p).stat().st_size > 200
    assert "| method |" in text and "invalid-answer" in text
    again = pp("report", str(hashi_run), "--format", "md", "-o", str(md))
    assert again.returncode == 2 and "exists" in again.stderr  # never overwritten


def _main(*args: str) -> int:  # in this process: no interpreter start-up per run
    from puzzleproof.cli import main

    return main(list(args))


@pytest.mark.slow
def test_reports_of_skynet_city_closing_death_run_and_generator_runs(tmp_path, capsys):
    from puzzleproof.report import build, to_html

    sky, city = tmp_path / "sky.jsonl", tmp_path / "city.jsonl"
    games, gen = tmp_path / "games.jsonl", tmp_path / "gen.jsonl"
    ref = tmp_path / "referee.jsonl"
    breaker = INSTANCES / "skynet" / "breakers" / "breaker-ep2-n12-s1-864.txt"
    assert _main("crosscheck", "skynet", str(breaker), "-j", "1", "-q", "-o", str(sky)) == 0
    assert _main("skynet", "referee", str(breaker), "--all-starts", "--bot", "ep2-slack", "-q",
                 "-j", "1", "-o", str(ref)) == 1  # the bot loses games
    assert _main("crosscheck", "cityclose", str(INSTANCES / "cityclose" / "ring14-s1-0.json"),
                 "--method", "dp,greedy", "-j", "1", "-q", "-o", str(city)) == 0
    assert _main("deathrun", "tournament", "--criminals", "toll,gap-toll", "--students",
                 "robust,greedy", "-n", "1", "-j", "1", "-q", "-o", str(games)) == 0
    assert _main("generate", "hashi", "--size", "7x7", "-n", "2", "--format", "jsonl", "-q",
                 "-j", "1", "-o", str(gen)) == 0
    capsys.readouterr()
    expect = {sky: ["Skynet Revolution", "loses-winnable-game", "winning line in blue"],
              ref: ["Skynet Revolution", "Lost games", "winning line in blue"],
              city: ["City closing", "Wiener number per step", "order (each city labelled"],
              games: ["Death Run games", "Scores per bot and role", "path in its own colour"],
              gen: ["Generated Hashi puzzles", "with its unique solution"]}
    for run, words in expect.items():
        page = to_html(build(run, [str(INSTANCES / "cityclose")]))
        for w in words:
            assert w in page, (run.name, w)
        assert "<table" in page and ("<svg" in page or "data:image/png" in page)


@pytest.mark.parametrize("content, where", [
    ('{"type": "record", "instance": "a"}\n', ":1: a 'record' line without a valid"),
    ('{"type": "instance-done", "instance": "a"}\n[1, 2]\n', ":2: expected a JSON object"),
    ("\n\n", ": holds no records"),
    ('{"type": "instance-done", "instance": "a"}\n', ": holds no cross-check records"),
])
def test_bad_runs_exit_2_with_one_line_naming_the_file_and_line(tmp_path, content, where):
    run = tmp_path / "run.jsonl"
    run.write_text(content)
    r = pp("report", str(run))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and f"{run}{where}" in r.stderr, r.stderr
    assert not run.with_suffix(".html").exists()


def test_evidence_not_as_the_project_writes_it_is_said_not_drawn(tmp_path, capsys):
    from puzzleproof.report import build, to_html

    run = tmp_path / "run.jsonl"
    run.write_text('{"type": "record", "puzzle": "hashi", "instance": "a", "method": "sat", '
                   '"status": "UNIQUE", "wall_time": 0.1, "check_ok": true, '
                   '"answer": [[0, 0, 2, 0, 1]]}\n'
                   '{"type": "disagreement", "instance": "a", "kind": "invalid-answer", '
                   '"methods": ["article"], "evidence": {"answer": [[1, 2]], '
                   '"violations": []}}\n')
    page = to_html(build(run))
    assert "<svg" in page  # the checked solution, rebuilt into its puzzle
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "deathrun-game", "game_id": "g", "graph": {"edges": []}, '
                   '"seats": [5], "scores": {"students": "x"}}\n')
    assert _main("report", str(bad)) == 2
    assert "holds records that are not as the project writes them" in capsys.readouterr().err


@pytest.mark.slow
def test_an_output_whose_ending_names_no_report_format_is_refused(hashi_run, tmp_path):
    """``-o r.pdf`` would hold HTML: refused before any work (exit 2), unless --format says
    which is meant."""
    out = tmp_path / "r.pdf"
    r = pp("report", str(hashi_run), "-o", str(out))
    assert r.returncode == 2 and "end it in .html or .md" in r.stderr and not out.exists()
    r = pp("report", str(hashi_run), "-o", str(out), "--format", "html")
    assert r.returncode == 0 and out.read_text().lstrip().lower().startswith("<!doctype html")


def test_records_without_their_puzzle_are_read_by_their_instances(tmp_path, capsys):
    """Records written before they named their puzzle still read: the puzzle is the one
    their instances are (read from the files they name), never guessed from method names;
    when no instance can be found the report says to name the puzzle."""
    from puzzleproof.report import build, to_html

    puzzle = tmp_path / "p.txt"
    puzzle.write_text("2\n1\n11\n")
    run = tmp_path / "old.jsonl"
    run.write_text(json.dumps({"type": "record", "instance": str(puzzle), "method": "sat",
                               "status": "UNIQUE", "wall_time": 0.1, "check_ok": True,
                               "answer": [[0, 0, 1, 0, 1]]}) + "\n")
    assert "Cross-check of Hashiwokakero" in to_html(build(run))
    lost = tmp_path / "lost.jsonl"
    lost.write_text(run.read_text().replace(str(puzzle), "gone.txt"))
    assert _main("report", str(lost)) == 2
    assert "give --puzzle NAME" in capsys.readouterr().err
    assert _main("report", str(lost), "--puzzle", "hashi", "-o", str(tmp_path / "r.html")) == 0
