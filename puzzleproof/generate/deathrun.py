"""Seeded Death Run graphs where greedy play is punished hardest, with the evidence.

Each candidate is a contest graph (``generate_graph(f"{seed}:{i}")``). On it, the greedy
student's realised cost (the worst of a field of eight greedy students) is measured in a game
against a ``toll`` pair (the strongest built-in criminals; ``criminals`` to change it) and
compared with the robust student's certified bound on that graph (step 1, combined budget
200): the graphs kept are those with the widest ``greedy cost - robust bound``, ties by the
greedy cost. A positive gap means greedy paid more than the robust student is guaranteed
never to pay against any criminals (measured: on about a fifth of contest graphs against
``toll``, by up to about 80; against ``gap-toll`` the gap stays negative).
"""

from __future__ import annotations

from typing import Any, Sequence

from puzzleproof.models.deathrun import Graph, generate_graph, nominal_distance, play_game

__all__ = ["generate"]


def generate(count: int, seed: int | str = 0, *, candidates: int | None = None,
             criminals: Sequence[str] = ("toll", "toll")
             ) -> list[tuple[Graph, dict[str, Any]]]:
    """The ``count`` candidates (of ``candidates``, default ``10 * count``) with the widest
    gap, best first, each with its evidence (bound, greedy cost, the game's seed)."""
    from puzzleproof.encoders.deathrun_student import robust_table
    from puzzleproof.verify.deathrun_bots import builtin_player

    n = candidates or 10 * count
    scored = []
    for i in range(n):
        gseed = f"{seed}:{i}"
        g = generate_graph(gseed)
        bound = robust_table(g, 200, 1.0, lower=False).bound()
        rec = play_game(g, [builtin_player(c, "criminal") for c in criminals],
                        [builtin_player("greedy", "student") for _ in range(8)], seed=gseed)
        cost = max(rec["scores"]["students"])
        ev = {"graph_seed": gseed, "robust_bound": bound, "greedy_cost": cost,
              "gap": cost - bound, "nominal": nominal_distance(g),
              "criminals": list(criminals), "game_seed": gseed}
        scored.append((cost - bound, cost, i, g, ev))
    scored.sort(key=lambda x: (-x[0], -x[1], x[2]))
    return [(g, ev) for _, _, _, g, ev in scored[:count]]
