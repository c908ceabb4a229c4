"""Skynet Revolution decided exactly: the verdict, the fewest cuts, bounded questions.

:func:`solve` answers one question about one start and returns the winner's strategy,
replayed by the rules-only checker (:mod:`puzzleproof.models.skynet_strategy`) before it
counts. It asks, in order, the searches that settle most questions cheaply, and the SAT
CEGAR when they leave the question open:

- **Episode 2 verdicts**: the fork search from the agent's side (:mod:`.skynet_forks`:
  fixed-path leaves, the agent's forks between them) proves most lost starts at once; the
  table search (:mod:`.skynet_table`: the player's invariant and the agent's fixed paths as
  leaves, its memo shared by the starts of a map) most won ones; the CEGAR decides the
  rest. Only gateway links can be cut and the agent roams its component, so a won game
  contains the agent after every gateway link of the component is cut: that is the value.
- **Episode 1 values** (:mod:`.skynet_value`): the exact fewest-cuts search
  (:mod:`.skynet_fewest`), fences (:mod:`.skynet_fences`), the containment search
  (:mod:`.skynet_contain`) and SAT bracket the value; every strategy is replayed, and every
  refutation of the exact search is written as an escape the checker proves node by node
  (:mod:`.skynet_refutation`).

**The CEGAR** (:mod:`.skynet_cegar`, over :func:`puzzleproof.encoders.cegar.cegar_loop`):
the game bounded to ``H`` turns is decided by two incremental SAT solvers. The proposer
holds a prefix tree of agent move sequences (the counterexamples so far) and chooses the
player's cut at every tree node so that every sequence in the tree is beaten (it uses a cut
link, is contained, or never steps onto a gateway); no proposal means the agent wins. The
refuter looks for one agent sequence that beats the proposal completed off the tree by a
default policy (:meth:`Reduced.policy`); the tree's cuts come in as assumptions, so it is
built once and reused, and a cheap abstract test (:class:`PolicyCheck`) often answers
first. Passing is never better than cutting (fewer links only take moves away from the
agent), so the real strategy replaces every pass by a legal cut and still wins. The
verdict is asked at the horizon ``K`` (the links that matter: after ``K`` cuts nothing is
left to cross), the value by deepening ``H`` from a minimum-cut bound.

Reductions: only the agent's region (non-gateway nodes it can reach) and the links touching
it matter (:mod:`.skynet_reduced`). Limits: the task's
:class:`~puzzleproof.clock.Deadline` bounds everything done for the question (minimum cuts,
every search and its share of the time, every SAT call, writing and replaying
certificates), and a conflict budget bounds the SAT calls; a spent limit is UNKNOWN with the
bounds proved so far, and a verdict or value is never reported unchecked. Modules:
:mod:`.skynet_question` holds one question's clock, budget and answer;
:mod:`.skynet_certify` writes strategies from decisions; :mod:`.skynet_leaves` the leaf
tests; :mod:`.skynet_tree` the tree of agent lines.
"""

from __future__ import annotations

import time
from typing import Callable

from puzzleproof.encoders.skynet_cegar import (DEFAULT_SOLVER, PolicyCheck, Proposer, Refuter,
                                               SolverCache, decide)
from puzzleproof.encoders.skynet_certify import PlayerStrategy
from puzzleproof.encoders.skynet_question import Question
from puzzleproof.encoders.skynet_reduced import Reduced
from puzzleproof.encoders.skynet_tree import TNode
from puzzleproof.encoders.skynet_value import Ep1Value
from puzzleproof.errors import InputError
from puzzleproof.clock import Deadline
from puzzleproof.models.skynet import SkynetMap
from puzzleproof.result import Result

# the CEGAR's pieces, importable from here
__all__ = ["Reduced", "Proposer", "Refuter", "PolicyCheck", "TNode", "SolverCache",
           "PlayerStrategy", "decide", "solve", "DEFAULT_SOLVER"]


def solve(m: SkynetMap, rule: str = "ep2", start: int | None = None, *, value: bool = False,
          horizon: int | None = None, deadline: Deadline | None = None,
          conflicts: int | None = None, solver: str = DEFAULT_SOLVER,
          certificate: bool = True, cache: SolverCache | None = None,
          on_progress: Callable[[str], None] | None = None, exact: bool = True) -> Result:
    """Decide the game from ``start`` (default: the map's start).

    - default: the verdict, WIN or LOSS, with the winner's strategy as a certificate;
    - ``value``: also the fewest cuts that contain the agent (``answer["value"]``), the
      player's certificate achieving it;
    - ``horizon``: only "can the player contain the agent within ``horizon`` cuts?" (WIN
      or LOSS for that bounded game).

    ``deadline`` (the task's clock; None: no limit) bounds everything done for the
    question. ``exact=False`` leaves out the exact fewest-cuts search (:mod:`.skynet_fewest`)
    of ``ep1`` values (to see what the fence search, the containment search and SAT do
    alone). A spent limit gives UNKNOWN with the bounds proved so far in ``answer``.
    ``cache`` (a :class:`SolverCache`) shares reductions and refuters between calls on the
    same map, as for every start of a map.
    """
    t0 = time.monotonic()
    clock = deadline if deadline is not None else Deadline(None)
    s = m.start if start is None else start
    if s is None:
        raise InputError("the map gives no start node; name one")
    if horizon is not None and horizon < 0:
        raise InputError(f"horizon {horizon}: expected a number of cuts, 0 or more")
    m.initial_state(s)  # validates the start
    q = Question(m, rule, s, value=value, horizon=horizon, clock=clock,
                 conflicts=conflicts, solver=solver, certificate=certificate, cache=cache,
                 on_progress=on_progress, exact=exact, t0=t0)
    ask = Ep1Value(q).solve if value and rule == "ep1" and horizon is None else q.ask
    return q.guarded(ask)
