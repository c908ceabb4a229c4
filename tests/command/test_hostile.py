"""Hostile input, table-driven over every verb of every puzzle (from the registry: a new
puzzle or verb is covered without editing this file): the inputs that once hung the tool,
filled its memory or ended in an "internal error" are each one clear line and exit 2.

- ``/dev/zero`` (an endless input) and a FIFO no one writes: in a subprocess, which must end
  within its timeout and stay within 1 GB;
- an empty file, a binary file, a symbolic link loop and a file above the input limit: in
  this process, each one line naming the file, exit 2.

Structured hostile values (huge, negative, non-ASCII and non-finite numbers, wrong JSON
types, deep nesting...) in every file type are ``tests/command/test_fuzz.py``'s; the cases of
issue 29 are named tests below.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from tests import fuzzlib

from puzzleproof.cli import main  # noqa: E402
from puzzleproof.formats import MAX_INPUT_BYTES  # noqa: E402
from tests.conftest import INSTANCES, shared_path  # noqa: E402

#: the (verb, puzzle) pairs whose command reads an instance ({in})
READING = sorted(k for k, t in fuzzlib.COMMANDS.items() if "{in}" in t)


def _argv(verb: str, puzzle: str, path: str, folder: Path) -> list[str]:
    """The verb's command with ``path`` as its instance (an answer, when the verb needs
    one, is a valid sample written into ``folder``)."""
    argv = []
    for a in fuzzlib.COMMANDS[(verb, puzzle)]:
        if a == "{in}":
            argv.append(path)
        elif a == "{ans}":
            rel = fuzzlib.ANSWER_SEEDS[puzzle][1]
            got = fuzzlib.seed_text(rel)
            if got is None:  # outside data: skipped, or failed under CI=true
                if rel.startswith("shared/"):
                    shared_path("instances/" + rel[len("shared/"):])
                pytest.fail(f"{rel}: the plugin's sample answer is missing")
            (folder / got[1]).write_text(got[0])
            argv.append(str(folder / got[1]))
        elif a.startswith("out."):
            argv.append(str(folder / a))
        else:
            argv.append(a)
    return argv


def _one_error_line(err: str, name: str) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err and "internal error" not in err, err[-800:]
    ours = [ln for ln in lines if ln.startswith("puzzleproof: error:")]
    assert len(ours) == 1 and name in ours[0], err[-800:]


@pytest.mark.parametrize("kind", ["dev-zero", "fifo"])
@pytest.mark.parametrize("verb, puzzle", READING, ids=[f"{v}-{p}" for v, p in READING])
def test_endless_inputs_end_at_once(verb, puzzle, kind, tmp_path):
    """An input that never ends (/dev/zero) is refused at the input limit, a FIFO without a
    writer is refused without being opened: exit 2 in seconds, within 1 GB."""
    if kind == "fifo":
        path = tmp_path / "pipe"
        os.mkfifo(path)
    else:
        path = Path("/dev/zero")
    argv = [sys.executable, "-m", "puzzleproof", *_argv(verb, puzzle, str(path), tmp_path)]
    code, out, err, peak = fuzzlib._run(argv, tmp_path, 60.0)
    assert code == 2, (code, err[-800:])
    assert peak < fuzzlib.MAX_MB, f"{peak:.0f} MB"
    _one_error_line(err, str(path))
    assert not list(tmp_path.glob("out.*"))


def _in_process(argv: list[str], capsys) -> tuple[int, str, str]:
    def hung(*_):
        raise TimeoutError("the command did not end within 60 s")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        code = main(argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _hostile_file(kind: str, folder: Path, suffix: str) -> Path:
    path = folder / f"hostile{suffix}"
    if kind == "empty":
        path.write_text("")
    elif kind == "binary":
        path.write_bytes(bytes(range(256)) * 64)
    elif kind == "loop":
        (folder / "a").symlink_to(folder / "b")
        (folder / "b").symlink_to(folder / "a")
        path = folder / "a"
    elif kind == "oversized":
        with open(path, "wb") as fh:
            fh.truncate(MAX_INPUT_BYTES + 1)  # sparse: no disk used
    return path


@pytest.mark.parametrize("kind", ["empty", "binary", "loop", "oversized"])
@pytest.mark.parametrize("verb, puzzle", READING, ids=[f"{v}-{p}" for v, p in READING])
def test_unreadable_files_are_one_line(verb, puzzle, kind, tmp_path, capsys):
    from puzzleproof import puzzles as registry

    suffix = registry.get(puzzle).reader.suffixes[0]
    path = _hostile_file(kind, tmp_path, suffix)
    code, out, err = _in_process(_argv(verb, puzzle, str(path), tmp_path), capsys)
    assert code == 2, (code, err[-800:])
    _one_error_line(err, str(path))
    if kind == "oversized":
        assert "above the limit" in err and "--max-size" in err
    assert not list(tmp_path.glob("out.*"))


# -- the cases of issue 29, by number --------------------------------------------------------

def test_1_malformed_side_files_are_one_line(tmp_path, capsys):
    """An Episode 1 cuts record or a breaker's evidence whose fields are not of their shape
    is one line naming the file and the field."""
    src = INSTANCES / "skynet" / "ep1"
    (tmp_path / "m.txt").write_text((src / "01-line.txt").read_text())
    rec = json.loads((src / "01-line.cuts.json").read_text())
    for field, value in (("fewest", "x"), ("start", "3"), ("bots", [1])):
        bad = dict(rec, **{field: value})
        (tmp_path / "m.cuts.json").write_text(json.dumps(bad))
        code, out, err = _in_process(["crosscheck", "skynet", str(tmp_path / "m.txt"), "-q",
                                      "-j", "1"], capsys)
        assert code == 2 and "m.cuts.json" in err and field in err, err
    (tmp_path / "m.cuts.json").unlink()
    ev = json.loads((INSTANCES / "skynet/breakers/breaker-ep2-n12-s1-864.evidence.json")
                    .read_text())
    (tmp_path / "b.txt").write_text((INSTANCES / "skynet/breakers/breaker-ep2-n12-s1-864.txt")
                                    .read_text())
    (tmp_path / "b.evidence.json").write_text(json.dumps(dict(ev, lost_by=True)))
    code, out, err = _in_process(["crosscheck", "skynet", str(tmp_path / "b.txt"), "-q",
                                  "-j", "1"], capsys)
    assert code == 2 and "b.evidence.json" in err and "lost_by" in err, err


def test_2_a_run_to_resume_that_is_not_a_run(tmp_path, capsys):
    small = str(INSTANCES / "hashi" / "small-5x5.txt")
    cases = {"not-utf8.jsonl": b"\xff\xfe\x00", "not-object.jsonl": b"[1, 2]\n"}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "loop.jsonl").symlink_to(tmp_path / "loop2.jsonl")
    (tmp_path / "loop2.jsonl").symlink_to(tmp_path / "loop.jsonl")
    for name in [*cases, "loop.jsonl"]:
        code, out, err = _in_process(["crosscheck", small, "-q", "-j", "1", "--resume",
                                      "-o", str(tmp_path / name)], capsys)
        assert code == 2 and name in err and "internal error" not in err, err
        code, out, err = _in_process(["report", str(tmp_path / name), "-o",
                                      str(tmp_path / "r.html")], capsys)
        assert code == 2 and name in err and "internal error" not in err, err


def test_4_numeric_options_have_ranges(capsys):
    small = str(INSTANCES / "hashi" / "small-5x5.txt")
    for argv in (["solve", small, "--method", "cpsat", "--workers", "100000"],
                 ["crosscheck", small, "--scheduler", "garbage"],
                 ["solve", "skynet", str(INSTANCES / "skynet/ep1/01-line.txt"), "-H",
                  "1000000000"],
                 ["solve", small, "-n", "99999999999999999999", "--all"]):
        code, out, err = _in_process(argv, capsys)
        assert code == 2 and "invalid value" in err and "expected" in err, (argv, err)


def test_9_an_output_folder_that_does_not_exist_is_refused(tmp_path, capsys):
    target = tmp_path / "no" / "such" / "x.json"
    code, out, err = _in_process(["solve", str(INSTANCES / "hashi" / "small-5x5.txt"), "-o",
                                  str(target)], capsys)
    assert code == 2 and "does not exist" in err and not (tmp_path / "no").exists()


def test_a_record_named_by_anything_but_its_number_is_told_so(capsys):
    """FILE#N picks a record by number; a name after the # is not taken for a missing file
    (the file exists), and a number past the end says how many there are."""
    base = str(INSTANCES / "hashi" / "examples.jsonl")
    for k in ("two-solutions-3x3", "-1"):
        code, _, err = _in_process(["solve", f"{base}#{k}"], capsys)
        assert code == 2 and "no such file" not in err and "FILE#N" in err, err
    code, _, err = _in_process(["solve", f"{base}#9"], capsys)
    assert code == 2 and "the file holds 2" in err


def test_9_a_has_file_is_read_as_hashi_only(tmp_path, capsys):
    f = tmp_path / "x.has"
    f.write_text("1 1000000 2\n0 0\n")
    code, out, err = _in_process(["solve", str(f)], capsys)
    assert code == 2 and "limit of 200" in err and "Skynet" not in err + out


def test_9_evidence_with_nan_is_refused(tmp_path, capsys):
    base = INSTANCES / "skynet/breakers/breaker-ep2-n12-s1-864"
    text = Path(f"{base}.evidence.json").read_text().replace('"schema_version": 2',
                                                             '"schema_version": NaN', 1)
    (tmp_path / "e.json").write_text(text)
    code, out, err = _in_process(["render", "skynet", f"{base}.txt", "--game",
                                  str(tmp_path / "e.json"), "-o", str(tmp_path / "g.svg")],
                                 capsys)
    assert code == 2 and "NaN" in err and not (tmp_path / "g.svg").exists()


def test_shared_samples_are_there():
    """The samples above read ../shared: absent, this says so (or fails under CI)."""
    shared_path("instances/skynet/ep2")
