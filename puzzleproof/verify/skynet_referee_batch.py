"""A batch of refereed Skynet games: bots and programs against agent models over maps and
starts, run through the cross-check harness (processes, JSONL records, resume), every lost
game judged against the exact solver, and the batch's summary.

Games against the agent ``worst`` are the adversary's searches (every agent line searched
against the bot); their per-bot counts are :func:`worst_counts`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from puzzleproof.clock import Deadline, PerTask
from puzzleproof.verify.skynet_methods import (game_instances, games_kind, judge_lost_games,
                                               lost_game_lines)

__all__ = ["Batch", "referee_batch", "worst_counts"]


@dataclass
class Batch:
    """What a referee batch found: the harness's report, its instances and methods, the
    games lost (not the worst-case searches), the judged lost games, and the searches."""

    report: Any
    instances: list
    methods: list[str]
    lost: list[dict] = field(default_factory=list)
    judged: list[dict] = field(default_factory=list)
    searched: list[dict] = field(default_factory=list)

    @property
    def beaten(self) -> list[dict]:
        return [r for r in self.searched if (r.get("stats") or {}).get("adversary") == "BEATEN"]

    @property
    def winnable(self) -> list[dict]:
        return [j for j in self.judged if j.get("verdict") == "lost-proved-winnable"]

    @property
    def code(self) -> int:
        """130 interrupted; 1 a lost or beaten game or a record that fails the rules."""
        if self.report.interrupted:
            return 130
        return 1 if self.report.disagreements or self.lost or self.beaten else 0

    def record(self) -> dict:
        """The ``--json`` summary (``"type": "skynet-batch"``)."""
        rec = {"type": "skynet-batch", "games": len(self.report.records),
               "agents": sorted({m.rsplit("/", 1)[-1] for m in self.methods}),
               "rules": sorted({str(((r.get("answer") or {}).get("rule")
                                     if isinstance(r.get("answer"), dict) else None)
                                    or (r.get("stats") or {}).get("rule") or "ep2")
                                for r in self.report.records}),
               "summary": self.report.summary(),
               "lost": [{"game": r["instance"], "method": r["method"], "status": r["status"],
                         "reason": (r.get("stats") or {}).get("reason"),
                         "error": r.get("error")} for r in self.lost],
               "judged": self.judged, "disagreements": self.report.disagreements}
        if self.searched:
            rec["worst_case"] = {
                "summary": worst_counts(self.searched),
                "beaten": [{"game": r["instance"], "method": r["method"],
                            "line": lost_game_lines((r.get("answer") or {}).get("record")
                                                    or {})} for r in self.beaten]}
        rec["counts"] = self.counts(rec)
        return rec

    @staticmethod
    def counts(rec: dict) -> dict[str, int]:
        """What the batch's last line says: games, lost, lost on winnable starts, defects,
        disagreements, unknown."""
        worst = (rec.get("worst_case") or {}).get("summary") or {}
        judged = rec.get("judged") or []
        return {"games": int(rec.get("games") or 0),
                "lost": len(rec.get("lost") or []) + sum(int(r.get("BEATEN", 0))
                                                          for r in worst.values()),
                "lost_winnable": sum(j.get("verdict") == "lost-proved-winnable"
                                     for j in judged),
                "defects": sum(bool(j.get("defect")) for j in judged),
                "disagreements": len(rec.get("disagreements") or []),
                "unknown": sum(int(r.get("UNKNOWN", 0)) for r in worst.values())}


def referee_batch(maps: list, starts_of: dict, bots: list[str], agents: list[str],
                  tiebreak: str, seed: int, rule: str | None, target: Path | None,
                  resume: bool, executor: Any, externals: dict | None = None,
                  each: PerTask = PerTask(30.0),
                  worst: dict | None = None,
                  progress: Callable[[int, int | None, str], None] | None = None,
                  known: dict | None = None,
                  echo: Callable[[dict], None] | None = None) -> Batch:
    """Play every bot and program against every agent from every start; judge the lost
    games (``worst``: the adversary's per_line, max_lines, time_limit and fork; ``known``:
    verdicts already proved, not solved again)."""
    from puzzleproof.verify.crosscheck import run_crosscheck

    worst = worst or {}
    kind = games_kind(bots, agents, tiebreak, seed, rule, external=externals or {},
                      per_line=worst.get("per_line", False),
                      max_lines=worst.get("max_lines"), fork_lines=worst.get("fork", True))
    instances = game_instances(maps, starts_of)
    report = run_crosscheck(kind, instances, list(kind.methods), target, resume=resume,
                            jobs=executor, progress=progress,
                            each=PerTask(worst.get("time_limit", each.seconds)), echo=echo)
    batch = Batch(report, instances, list(kind.methods))
    batch.searched = [r for r in report.records if r["method"].endswith("/worst")]
    batch.lost = [r for r in report.records if r["status"] != "WIN"
                  and not r["method"].endswith("/worst")]
    if batch.lost and not report.interrupted:
        batch.judged = judge_lost_games(report.records, instances, each=each,
                                        known=known, executor=executor, progress=progress)
        _append(target, batch.judged)
    return batch


def _append(target: Path | None, items: list[dict]) -> None:
    """The judged lost games go to the run's file too: the report reads them there."""
    if target is None or not items:
        return
    import json

    with open(target, "a", encoding="utf-8") as fh:
        for item in items:
            fh.write(json.dumps(item) + "\n")


def worst_counts(searched: list[dict]) -> dict[str, dict]:
    """Per bot: starts PROVED, BEATEN, UNWINNABLE, UNKNOWN; lines and program runs."""
    rows: dict[str, dict] = {}
    for r in searched:
        bot = r["method"].rsplit("/", 1)[0]
        st = r.get("stats") or {}
        row = rows.setdefault(bot, {"starts": 0, "PROVED": 0, "BEATEN": 0, "UNWINNABLE": 0,
                                    "UNKNOWN": 0, "lines": 0, "replays": 0, "forks": 0,
                                    "seconds": 0.0, "max_seconds": 0.0})
        row["starts"] += 1
        row[st.get("adversary") or "UNKNOWN"] += 1
        row["lines"] += st.get("lines") or 0
        row["replays"] += st.get("replays") or 0
        row["forks"] += st.get("forks") or 0
        row["seconds"] += r.get("wall_time") or 0.0
        row["max_seconds"] = max(row["max_seconds"], r.get("wall_time") or 0.0)
    return rows


def worst_one(m: Any, start: int, who: str, externals: dict, rule: str | None,
              worst: dict, parallel: int) -> tuple[Any, str]:
    """One bot or program against the adversary from one start: ``(its answer, the rule
    played)`` (the verdict, the beating line or the bot's certificate)."""
    from puzzleproof.games.skynet_adversary import BotPlayer, ProgramPlayer, adversary
    from puzzleproof.players.skynet_bots import make_bot

    if who in externals:
        player = ProgramPlayer(externals[who], parallel=max(1, parallel),
                               fork_lines=None if worst.get("fork", True) else False)
        rule = rule or m.rule or "ep2"
    else:
        player = BotPlayer(who)
        rule = rule or m.rule or make_bot(who).rule
    res = adversary(m, rule, start, player, per_line=worst["per_line"],
                    deadline=Deadline(worst["time_limit"]), max_lines=worst["max_lines"])
    return res, rule
