"""The group every puzzle-dispatched verb is: ``VERB [PUZZLE] INPUTS...``, for the shared
verbs and for a puzzle's own (see :class:`PuzzleGroup`)."""

from __future__ import annotations

from typing import Callable

import click

from puzzleproof import puzzles as registry
from puzzleproof.command.build import inputs_of
from puzzleproof.command.output import Exit, one_json, people, say
from puzzleproof.errors import InputError, UsageError
from puzzleproof.puzzles.base import PuzzlePlugin
from puzzleproof.puzzles.inputs import could_be_input

__all__ = ["PuzzleGroup"]


class PuzzleGroup(click.Group):
    """A verb whose subcommands are puzzles: ``VERB [PUZZLE] INPUTS...``.

    ``build(plugin)`` makes a puzzle's subcommand the first time it is asked for and
    ``has(plugin)`` says which puzzles have one (a shared verb: those with its spec); without
    them the group holds the commands added to it (a puzzle's own verb, such as ``plot``,
    which several puzzles may each add to). Without a puzzle name the puzzle is inferred
    from the inputs (read once), and when they hold several puzzles each puzzle's command
    runs in turn on its own instances (the exit code is the worst of theirs)."""

    def __init__(self, verb: str, help: str = "",
                 build: Callable[[PuzzlePlugin], click.Command] | None = None,
                 has: Callable[[PuzzlePlugin], bool] | None = None,
                 needs_puzzle: bool = False) -> None:
        super().__init__(name=verb, help=help,
                         context_settings={"help_option_names": ["-h", "--help"]})
        self.verb = verb
        self.build, self.has = build, has
        #: verbs that take no inputs to infer from (generate) say so
        self.needs_puzzle = needs_puzzle

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [p.name for p in registry.all_puzzles() if self._has(p)]

    def _has(self, plugin: PuzzlePlugin) -> bool:
        return plugin.name in self.commands if self.has is None else self.has(plugin)

    def get_command(self, ctx: click.Context, name: str):  # aliases: 'solve bridges'
        try:
            plugin = registry.get(name)
        except KeyError:
            return None
        if not self._has(plugin):
            return None
        if plugin.name not in self.commands and self.build is not None:
            self.commands[plugin.name] = self.build(plugin)
        return self.commands[plugin.name]

    def resolve_command(self, ctx: click.Context, args: list[str]):
        cmd = self.get_command(ctx, args[0])
        if cmd is None:
            raise UsageError(self._unknown(args[0]))
        return cmd.name, cmd, args[1:]

    def _unknown(self, word: str) -> str:
        have = self.list_commands(click.get_current_context())
        try:
            known = registry.get(word).name
        except KeyError:
            known = None
        if known is not None:  # a puzzle, without this verb
            return f"{self.verb} does not apply to {known} ({self.verb} knows {', '.join(have)})"
        hint = registry.suggest(word)
        return (f"unknown puzzle {word!r}" + (f"; did you mean {hint!r}?" if hint else "")
                + f" ({self.verb} knows {', '.join(have)})")

    def _value_options(self, ctx: click.Context) -> set[str]:
        takes: set[str] = set()
        for name in self.list_commands(ctx):
            for param in self.get_command(ctx, name).params:
                if isinstance(param, click.Option) and not param.is_flag and not param.count:
                    takes.update(param.opts)
                    takes.update(param.secondary_opts)
        return takes

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or args[0] in ("-h", "--help") or self.get_command(ctx, args[0]):
            return super().parse_args(ctx, args)
        if self.needs_puzzle:
            if not args[0].startswith("-"):
                raise UsageError(self._unknown(args[0]))
            raise click.UsageError(f"name the puzzle: {ctx.command_path} "
                                   f"{{{','.join(self.list_commands(ctx))}}} ...", ctx)
        inputs = self._inputs(ctx, args)
        self._typo(ctx, inputs[0])
        found, problems = inputs_of(ctx).detect(inputs[:1] if self.verb in ("check", "render")
                                                else inputs)
        found = [p for p in found if p in self.list_commands(ctx)]
        if not found:
            raise InputError(problems[0] if problems else
                             f"no instance of {', '.join(self.list_commands(ctx))} found in "
                             f"{' '.join(inputs)}; name the puzzle "
                             f"({ctx.command_path} PUZZLE ...)")
        ctx.meta["puzzleproof.several"] = found if len(found) > 1 else None
        ctx.meta["puzzleproof.args"] = list(args)  # what each puzzle's command is given
        return super().parse_args(ctx, [found[0], *args])

    def _inputs(self, ctx: click.Context, args: list[str]) -> list[str]:
        takes = self._value_options(ctx)
        self._known_options(ctx, args)
        inputs, skip = [], False
        for a in args:
            if skip:
                skip = False
            elif a.startswith("-") and a != "-":
                skip = a in takes and "=" not in a
            else:
                inputs.append(a)
        if not inputs:
            raise click.UsageError(f"give the puzzle and its inputs: {ctx.command_path} "
                                   f"{{{','.join(self.list_commands(ctx))}}} INPUTS...", ctx)
        return inputs

    def _known_options(self, ctx: click.Context, args: list[str]) -> None:
        """An option no puzzle's command of this verb knows is a mistake, said at once (its
        value must not be read as an input): one line with the likeliest option meant."""
        import difflib

        known: set[str] = {"-h", "--help"}
        for name in self.list_commands(ctx):
            for param in self.get_command(ctx, name).params:
                if isinstance(param, click.Option):
                    known.update(param.opts)
                    known.update(param.secondary_opts)
        takes = self._value_options(ctx)
        value_next = False
        for a in args:
            if a == "--":
                return
            if value_next:  # the value of the option before it ('--time-limit -inf')
                value_next = False
                continue
            word = a.split("=", 1)[0]
            value_next = word in takes and "=" not in a
            if a.startswith("-") and a != "-" and word not in known \
                    and not (a.startswith("-") and not a.startswith("--") and len(word) > 2
                             and word[:2] in known):
                hint = difflib.get_close_matches(word, sorted(known), n=1, cutoff=0.6)
                raise click.UsageError(f"no such option: {word}"
                                       + (f" (did you mean {hint[0]}?)" if hint else ""), ctx)

    def _typo(self, ctx: click.Context, word: str) -> None:
        """A word in the puzzle's place that names nothing readable is a mistyped puzzle
        (``solve skynnet MAP``), not an input: one line, exit 2."""
        import re

        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,40}", word) or could_be_input(word):
            return  # a path, a pattern, a game ID: its reader says what is wrong with it
        try:
            c = inputs_of(ctx).read(word)
        except InputError:
            c = None
        if c is None or not c.is_instance:
            raise UsageError(self._unknown(word))

    def invoke(self, ctx: click.Context):
        several = ctx.meta.get("puzzleproof.several")
        if not several:
            return super().invoke(ctx)
        rest = list(ctx.meta["puzzleproof.args"])
        worst = 0
        # for scripts stdout holds JSON only: the puzzles' headers go to stderr, and --json
        # is still one object (each puzzle's under "parts")
        scripted = "--json" in rest or "--jsonl" in rest
        skipped = inputs_of(ctx).skipped_text()  # said once for the run, not per puzzle
        if skipped:
            say(skipped)
        with one_json({"type": ctx.info_name, "puzzles": list(several)}, "--json" in rest):
            for k, name in enumerate(several):
                worst = max(worst, self._invoke_one(ctx, name, rest, k, scripted))
                if worst == 130:
                    break
        raise Exit(worst)

    def _invoke_one(self, ctx: click.Context, name: str, rest: list[str], k: int,
                    scripted: bool) -> int:
        cmd = self.get_command(ctx, name)
        if k and not scripted:
            people().print("")
        header = f"== {registry.get(name).title} =="
        say(header) if scripted else people().print(header, markup=False)
        args, dropped = _options_for(cmd, rest, self._value_options(ctx))
        if dropped:
            say(f"note: {', '.join(dict.fromkeys(dropped))} "
                f"{'does' if len(set(dropped)) == 1 else 'do'} not apply to "
                f"{registry.get(name).title}; ignored there")
        with ctx:
            sub = cmd.make_context(name, args, parent=ctx)
            sub.meta["puzzleproof.mixed"] = True
            try:
                with sub:
                    cmd.invoke(sub)
                return 0
            except Exit as e:
                return e.code


def _options_for(cmd: click.Command, args: list[str], takes_value: set[str]
                 ) -> tuple[list[str], list[str]]:
    """``args`` without the options ``cmd`` does not know (each dropped with its value when
    the option takes one), and the names dropped: in a mixed run, ``--time-limit`` means
    nothing to a puzzle whose command has no such option."""
    known: set[str] = {"-h", "--help"}
    for param in cmd.params:
        if isinstance(param, click.Option):
            known.update(param.opts)
            known.update(param.secondary_opts)
    kept: list[str] = []
    dropped: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a.startswith("-") and a != "-" and a != "--":
            name = a.split("=", 1)[0]
            if name not in known:
                dropped.append(name)
                skip = name in takes_value and "=" not in a
                continue
        kept.append(a)
    return kept, dropped


