"""``skynet referee --agent worst``: one bot against the adversary, and the per-bot summary
of a batch (starts PROVED, BEATEN, lost because unwinnable, UNKNOWN)."""

from __future__ import annotations

import json

from rich.table import Table

from puzzleproof.cli.legacy import deliver, emit, out, say


def referee_worst(m, st, who, externals, rule, limits, worst, jobs, target, force,
                   as_json) -> int:
    """One bot against the adversary from one start: the verdict, the line or the proof."""
    from puzzleproof.cli.legacy import cores
    from puzzleproof.cli.skynet import _print_game, _stamp_certificate
    from puzzleproof.formats import skynet as sfmt
    from puzzleproof.verify.skynet_adversary import BotPlayer, ProgramPlayer, adversary
    from puzzleproof.verify.skynet_bots import make_bot

    if who in externals:
        player = ProgramPlayer(who, externals[who], parallel=max(1, jobs or cores()),
                               fork_lines=None if worst.get("fork", True) else False,
                               **limits)
        rule = rule or "ep2"
    else:
        player = BotPlayer(who)
        rule = rule or make_bot(who).rule
    res = adversary(m, rule, st, player, per_line=worst["per_line"],
                    time_limit=worst["time_limit"], max_lines=worst["max_lines"])
    if target and res.record is not None:
        deliver(json.dumps({"schema_version": 1, **sfmt.record_to_json(res.record)}) + "\n",
                str(target), force)
    elif target and res.certificate is not None:
        deliver(json.dumps(_stamp_certificate(res.certificate, m, rule, st)) + "\n",
                str(target), force)
    elif target:
        say(f"nothing written to {target}: the search is {res.verdict}")
    if as_json:
        emit({"schema_version": 1, **res.to_json(), "map": m.name})
    else:
        out.print(f"{m.name}: {who} vs the worst-case agent ({rule}, start {st}): "
                  f"{res.summary()}", markup=False)
        if res.record is not None:
            _print_game(res.record)
    return 1 if res.verdict == "BEATEN" else 0


def worst_counts(searched: list[dict]) -> dict[str, dict]:
    """Per bot: starts PROVED, BEATEN, UNWINNABLE, UNKNOWN; lines and program runs."""
    rows: dict[str, dict] = {}
    for r in searched:
        bot = r["method"].rsplit("/", 1)[0]
        st = r.get("stats") or {}
        row = rows.setdefault(bot, {"starts": 0, "PROVED": 0, "BEATEN": 0, "UNWINNABLE": 0,
                                    "UNKNOWN": 0, "lines": 0, "replays": 0, "forks": 0,
                                    "seconds": 0.0,
                                    "max_seconds": 0.0})
        row["starts"] += 1
        row[st.get("adversary") or "UNKNOWN"] += 1
        row["lines"] += st.get("lines") or 0
        row["replays"] += st.get("replays") or 0
        row["forks"] += st.get("forks") or 0
        row["seconds"] += r.get("wall_time") or 0.0
        row["max_seconds"] = max(row["max_seconds"], r.get("wall_time") or 0.0)
    return rows


def print_worst_summary(searched: list[dict]) -> None:
    from puzzleproof.cli.skynet import _line_text
    from puzzleproof.verify.skynet_methods import lost_game_lines

    table = Table(title="against the worst-case agent (every agent line searched)",
                  title_justify="left")
    for col in ("bot", "starts", "PROVED", "BEATEN", "lost: unwinnable", "UNKNOWN",
                "lines", "runs from start", "forked", "max s"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for bot, row in worst_counts(searched).items():
        table.add_row(bot, str(row["starts"]), str(row["PROVED"]), str(row["BEATEN"]),
                      str(row["UNWINNABLE"]), str(row["UNKNOWN"]), str(row["lines"]),
                      str(row["replays"]), str(row["forks"]), f"{row['max_seconds']:.2f}")
    out.print(table)
    shown = {"BEATEN": 0, "UNKNOWN": 0}
    for r in sorted(searched, key=lambda x: (x["method"], x["instance"])):
        st = r.get("stats") or {}
        a = r.get("answer") if isinstance(r.get("answer"), dict) else {}
        kind = st.get("adversary") or "UNKNOWN"
        if kind in shown:
            shown[kind] += 1
            if shown[kind] > 20:
                continue
        if kind == "BEATEN":
            out.print(f"  BEATEN: {r['instance']} {r['method'].rsplit('/', 1)[0]}: "
                      f"{st.get('reason')}; line: "
                      f"{_line_text(lost_game_lines(a.get('record') or {}))}", markup=False)
        elif kind == "UNKNOWN":
            out.print(f"  UNKNOWN: {r['instance']} {r['method'].rsplit('/', 1)[0]}: "
                      + (st.get("note") or r.get("error") or "no answer"), markup=False)
        for flag in ("nondeterministic", "history_dependent"):
            if a.get(flag):
                out.print(f"  note: {r['instance']} {r['method'].rsplit('/', 1)[0]}: the bot is "
                          f"{flag.replace('_', '-').replace('nond', 'non-d')}", markup=False)
    for kind, n in shown.items():
        if n > 20:
            out.print(f"  ... and {n - 20} more {kind} starts (all in the records)",
                      markup=False)
