"""Output a script can trust: when stdout carries data (``-o -``, ``--json``, ``--jsonl``, a
converted instance, generated lines) it carries only that, and every line for a person goes
to stderr; an internal error has an exit code of its own."""

from __future__ import annotations

import json

import pytest

from puzzleproof.cli import main
from tests.conftest import INSTANCES

INPUTS = {"hashi": INSTANCES / "hashi" / "small-5x5.txt",
          "skynet": INSTANCES / "skynet" / "breakers" / "breaker-ep2-n12-s1-864.txt",
          "cityclose": INSTANCES / "cityclose" / "ring14-s1-0.json",
          "deathrun": INSTANCES / "deathrun" / "graphs" / "gap-s1-1.json"}

#: (verb and options, what stdout holds); {f} stands for the puzzle's input
CASES = [
    (["solve", "{f}", "--json"], "json"),
    (["solve", "{f}", "--jsonl"], "jsonl"),
    (["solve", "{f}", "-o", "-", "--format", "json"], "json"),
    (["check", "{f}", "{f}", "--json"], "json"),
    (["crosscheck", "{f}", "--json", "-q"], "json"),
    (["crosscheck", "{f}", "--jsonl", "-q"], "jsonl"),
]
EXTRA = [
    ("hashi", ["solve", "{f}", "-o", "-", "--format", "lines"], "lines"),
    ("cityclose", ["solve", "{f}", "-o", "-", "--format", "lines"], "lines"),
    ("hashi", ["convert", "{f}", "--format", "json"], "json"),
    ("cityclose", ["convert", "{f}", "--format", "json"], "json"),
    ("skynet", ["render", "{f}", "-o", "-", "--format", "svg"], "svg"),
    ("hashi", ["generate", "hashi", "--size", "7x7", "-n", "1"], "jsonl"),
    ("skynet", ["skynet", "referee", "{f}", "--bot", "ep2-slack", "--json"], "json"),
]


def _parses(out: str, kind: str) -> bool:
    if kind == "json":
        json.loads(out)
    elif kind == "jsonl":
        lines = [json.loads(x) for x in out.splitlines()]
        assert lines and all(isinstance(x, dict) for x in lines)
    elif kind == "lines":
        assert out.strip() and all(x.strip() for x in out.strip().splitlines())
        assert not any(x.lstrip().startswith(("│", "┃", "solve", "UNIQUE", "total"))
                       for x in out.splitlines())
    elif kind == "svg":
        assert out.lstrip().startswith("<svg") and out.rstrip().endswith("</svg>")
    return True


def _cases():
    for puzzle in INPUTS:
        for args, kind in CASES:
            if args[0] == "check" and puzzle != "cityclose":
                continue  # the others' answers are other files (strategies, records)
            yield puzzle, args, kind
    yield from EXTRA


@pytest.mark.parametrize("puzzle, args, kind", list(_cases()),
                         ids=lambda x: x if isinstance(x, str) else None)
def test_stdout_holds_only_the_data(puzzle, args, kind, capsys, tmp_path):
    f = INPUTS[puzzle]
    if args[0] == "check":  # an order file written by solve, then checked
        order = tmp_path / "order.json"
        assert main(["solve", str(f), "-o", str(order), "-q"]) == 0
        capsys.readouterr()
        args = ["check", "{f}", str(order), "--json"]
    argv = [a.format(f=f) for a in args]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    assert _parses(out, kind), out[:300]


def test_an_internal_error_has_its_own_exit_code(monkeypatch, capsys):
    from puzzleproof.puzzles import hashi

    def broken(*args, **kwargs):
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(hashi.SOLVE, "run", broken)
    code = main(["solve", str(INPUTS["hashi"])])
    err = capsys.readouterr().err
    assert code == 3 and "internal error: ZeroDivisionError: planted" in err
    assert "please report it" in err
