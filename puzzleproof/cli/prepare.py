"""The ``prepare`` verb: what each puzzle does once after installing (city closing and
Skynet compile their loops), so that no first run of a real command pays for it."""

from __future__ import annotations

import time

import click

from puzzleproof import puzzles as registry
from puzzleproof.command.output import emit, out, say
from puzzleproof.errors import UsageError
from puzzleproof.method import load_ref


@click.command(name="prepare")
@click.argument("names", nargs=-1, metavar="[PUZZLE]...")
@click.option("--json", "as_json", is_flag=True, help="One JSON object: per puzzle, what was "
              "done and how long it took.")
def prepare_command(names: tuple[str, ...], as_json: bool) -> None:
    """Do once after installing what the puzzles would otherwise do on their first run:
    'prepare [PUZZLE]...' (default: every puzzle).

    \b
    City closing's exact search and heuristics, and the inner loop of Skynet's exact
    fewest-cuts search, are compiled (numba) the first time they run, about 20 s and 5 s;
    prepare compiles them into the cache now, so the first real run is as fast as later
    ones. Running it again only loads the cache (about a second).
    Example, right after 'pip install -e .':
      puzzleproof prepare
    """
    plugins = registry.all_puzzles()
    if names:
        try:
            plugins = [registry.get(n) for n in names]
        except KeyError as exc:
            raise UsageError(exc.args[0]) from None
    done: dict[str, dict] = {}
    for p in plugins:
        if p.prepare is None:
            done[p.name] = {"done": "nothing to prepare", "seconds": 0.0}
            continue
        if not as_json:
            say(f"{p.name}: preparing ...")
        t0 = time.monotonic()
        got = dict(load_ref(p.prepare)())
        got["seconds"] = round(time.monotonic() - t0, 2)
        done[p.name] = got
    if as_json:
        emit({"prepared": done})
        return
    for name, got in done.items():
        out.print(f"{name:<10} {got['done']}" + (f" ({got['seconds']:.1f} s)" if got["seconds"]
                                           else ""))
