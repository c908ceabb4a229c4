"""The ``report`` verb: any run the project wrote, as a page a person would rather look at."""

from __future__ import annotations

import os
from pathlib import Path

import click

from puzzleproof.command.output import check_output, say
from puzzleproof.command.options import option
from puzzleproof.puzzles.options import FORCE
from puzzleproof.errors import InputError


@click.command(name="report")
@click.argument("run", type=click.Path(dir_okay=True))
@click.argument("inputs", nargs=-1)
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="The report file (default: RUN with .html or .md). Never overwrites an "
                   "existing file unless --force.")
@click.option("--format", "fmt", type=click.Choice(["html", "md"]), default=None,
              help="html: one self-contained page (inline CSS, pictures inside: no network "
                   "needed); md: Markdown with the pictures as files in OUTPUT-files/ beside "
                   "it. Default: from the -o name, else html.")
@click.option("--puzzle", default=None, metavar="NAME",
              help="The puzzle of a cross-check run (default: the one its records name; "
                   "records written before they named it are recognised by their instances).")
@option(FORCE)
def report_command(run, inputs, output, fmt, puzzle, force) -> None:
    """Turn a run into a report: 'report RUN.jsonl [INPUTS...]'.

    \b
    RUN is a JSONL file a batch wrote with -o: a cross-check of any puzzle, a Skynet
    referee batch, a Death Run tournament or cross-check, a Hashi generator run. The
    report holds the summary tables, every disagreement with its evidence drawn (the
    Hashi puzzle with the heuristic's wrong or missing bridges, the Skynet map with
    the agent's winning line, the city map with both orders, the Death Run game) and
    plots (time and effort per instance size per method, Wiener number per step,
    score distributions). INPUTS, the instances the run was made from, let it draw
    instances the run names but does not carry.

    \b
    Examples:
      puzzleproof crosscheck hashi instances/hashi/ -o run.jsonl
      puzzleproof report run.jsonl -o report.html
      puzzleproof report games.jsonl --format md -o games.md
    """
    from puzzleproof import puzzles as registry
    from puzzleproof.report import build, to_html, to_markdown

    if puzzle is not None:
        try:
            puzzle = registry.get(puzzle).name
        except KeyError:
            raise click.UsageError(f"unknown puzzle {puzzle!r}; expected one of "
                                   f"{', '.join(registry.names())}") from None
    if fmt is None:
        fmt = "md" if output and output.lower().endswith(".md") else "html"
        ending = Path(output).suffix.lower() if output else ""
        if ending and ending not in (".md", ".html", ".htm"):  # r.pdf would hold HTML
            raise click.UsageError(f"cannot tell the format from {output!r}: end it in .html "
                                   "or .md, or give --format html|md")
    if output is None:
        output = str(Path(run).with_suffix(".md" if fmt == "md" else ".html"))
    if os.path.realpath(output) == os.path.realpath(run):
        raise InputError("is the run itself; choose another output", output)
    check_output(output, force)
    try:
        rep = build(run, inputs, puzzle)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise InputError("holds records that are not as the project writes them "
                         f"({type(exc).__name__}: {str(exc)[:200]})", run) from None
    from puzzleproof.formats import write_atomic

    if fmt == "html":
        write_atomic(output, to_html(rep))
        say(f"wrote {output}")
        return
    target = Path(output)
    text, files = to_markdown(rep, target.stem)
    for name, data in files.items():
        path = target.parent / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(str(path), data)
    write_atomic(output, text)
    say(f"wrote {output} and {len(files)} picture(s) in {target.stem}-files/")
