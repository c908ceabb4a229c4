"""The shared verbs: ``solve``, ``check``, ``render``, ``convert``, ``crosscheck`` and
``generate``, each written once over the puzzle plugins (one module a verb), and the group
that gives every verb the shape ``VERB [PUZZLE] INPUTS...``.

A verb's subcommand for a puzzle is built from the puzzle's spec of that verb the first time
it is asked for; a puzzle without the spec has no such subcommand. Without a puzzle name the
puzzle is inferred from the inputs (read once; :class:`~puzzleproof.puzzles.inputs.Inputs`),
and when they hold several puzzles each puzzle's command runs in turn on its own instances
(the exit code is the worst of theirs).
"""

from __future__ import annotations

import importlib

import click

from puzzleproof import puzzles as registry
from puzzleproof.cli.common import Exit, one_json, out, say
from puzzleproof.cli.verbs.build import inputs_of
from puzzleproof.errors import InputError, UsageError
from puzzleproof.puzzles.inputs import could_be_input

__all__ = ["VERBS", "PuzzleVerb", "verb_groups"]

#: verb -> (the spec's attribute on a plugin, the module that builds its command, help)
VERBS = {
    "solve": ("solve", "Solve exactly, with the answer checked: 'solve [PUZZLE] INPUTS...'.\n\n"
              "The puzzle is inferred from the inputs when it is not named. Exit 0 solved "
              "(or WIN), 1 a proved INFEASIBLE or LOSS or a failed check, 2 unreadable "
              "input."),
    "check": ("check", "Check an answer written by anything else: 'check [PUZZLE] INSTANCE "
              "ANSWER'.\n\nHashi: a solution (CodinGame lines or JSON). Skynet: a strategy "
              "certificate (its rule and start are read from the file). City closing: an "
              "order. Death Run: a game record. Exit 0 it holds, 1 it breaks a rule, 2 it "
              "cannot be read."),
    "render": ("render", "Draw an instance, alone or with an answer or game on it: 'render "
               "[PUZZLE] INPUT'.\n\nWith -o the picture goes to the file (.svg or .png); "
               "without, a text picture (Hashi, city maps) or the SVG (maps) goes to stdout."),
    "crosscheck": ("crosscheck", "Run exact methods and heuristics on the same instances and "
                   "report every disagreement with its evidence: 'crosscheck [PUZZLE] "
                   "INPUTS...'.\n\nA folder may hold several puzzles: each gets its own "
                   "table. Exit 1 if any disagreement (or an unconfirmed finding) is found, 0 "
                   "if none."),
    "generate": ("generate", "Make new instances that are hard in a stated, measured way: "
                 "'generate PUZZLE'."),
    "convert": ("convert", "Convert an instance between formats: 'convert [PUZZLE] INPUT "
                "--format NAME'."),
}


def _builder(verb: str):
    return importlib.import_module(f"puzzleproof.cli.verbs.{verb}").build


class PuzzleVerb(click.Group):
    """A verb whose subcommands are puzzles (see the module docstring)."""

    def __init__(self, verb: str, help: str | None = None) -> None:
        attr, help_text = VERBS.get(verb, (None, help or ""))
        super().__init__(name=verb, help=help_text,
                         context_settings={"help_option_names": ["-h", "--help"]})
        self.verb = verb
        #: the plugin attribute of a shared verb's spec; None for a puzzle's own verb
        #: (``plot``), whose commands are added to the group by the puzzle
        self.attr = attr
        #: verbs that take no inputs to infer from (generate) say so
        self.needs_puzzle = verb == "generate"

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [p.name for p in registry.all_puzzles() if self._has(p)]

    def _has(self, plugin) -> bool:
        if self.attr is None:
            return plugin.name in self.commands
        return getattr(plugin, self.attr, None) is not None

    def get_command(self, ctx: click.Context, name: str):  # aliases: 'solve bridges'
        try:
            plugin = registry.get(name)
        except KeyError:
            return None
        if not self._has(plugin):
            return None
        if plugin.name not in self.commands:
            self.commands[plugin.name] = _builder(self.verb)(plugin)
        return self.commands[plugin.name]

    def resolve_command(self, ctx: click.Context, args: list[str]):
        cmd = self.get_command(ctx, args[0])
        if cmd is None:
            raise UsageError(self._unknown(args[0]))
        return cmd.name, cmd, args[1:]

    def _unknown(self, word: str) -> str:
        hint = registry.suggest(word)
        have = self.list_commands(click.get_current_context())
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
            out.print("")
        header = f"== {registry.get(name).title} =="
        say(header) if scripted else out.print(header, markup=False)
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


def verb_groups() -> list[PuzzleVerb]:
    """One group a shared verb, in the order ``--help`` lists them."""
    return [PuzzleVerb(v) for v in ("solve", "check", "render", "crosscheck", "generate",
                                    "convert")]
