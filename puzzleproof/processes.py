"""Process hygiene: a run that ends, however it ends, leaves no process behind.

Every process the package starts is covered by one of these helpers:

- **Pool workers** (:func:`process_pool`, or ``initializer=``:func:`pool_worker_init` for any
  ``multiprocessing`` pool) are at most :data:`WORKERS_PER_CORE` per core (:func:`cap_jobs`:
  ``-j 100000`` once forked until the machine stalled) and die with their parent: on Linux
  the kernel sends them SIGKILL when the parent dies (``prctl(PR_SET_PDEATHSIG)``), and the
  worker checks its parent right after asking for it, in case the parent died in between;
  on other POSIX systems a watchdog thread polls ``os.getppid()`` twice a second instead.
  Every pool resolves its start method (``fork``, ``forkserver`` or ``spawn``: the
  interpreter's default or the context given) where it is made, and its workers are told
  it: a ``forkserver`` worker's parent is the fork server, which outlives the pool's owner
  while workers live, so such a worker watches the owner's sentinel instead.
- **The main process of a batch command that runs a pool** (:func:`sigterm_exits`) answers
  SIGTERM by killing its pool workers (every process it started in its own process group,
  read from the process tree: a worker forked but not yet listed by its pool too) at once
  and raising ``SystemExit(143)``, so the command's ``finally`` blocks run: records already
  appended stay whole, files being gathered are written, external programs are stopped. A second SIGTERM exits at once. The exit is put
  off (by 10 ms steps, SIGALRM) while the signal lands in code that would swallow it or hold a
  lock through it - ``logging``'s fork hooks run around every worker started, finalizers - as
  an exception raised there is printed ("Exception ignored in ...") and lost, and the run went
  on; the timer is disarmed before the exit is raised. What the pool's own teardown then
  reports about its killed workers (Python 3.11's races) is not printed. (Without a pool
  the default stays: a Python handler would wait until a solver's C code returns, and the
  kernel's default ends the process at once; records are flushed one by one, and the guardian
  below stops the programs it ran.)
- **External programs and bot workers** (:func:`child_setup`, :func:`kill_tree`) start in a
  session of their own (so a process group of their own), with the parent-death signal and a
  memory limit set before ``exec``; they are stopped by killing the whole group, and any
  descendant still attached by its parent links. A small **guardian** process (one per
  process that starts such programs, stdlib only, in its own session) holds the list of those
  process groups over a pipe; when the pipe closes - every holder gone, including by
  SIGKILL - it kills the groups still listed. So even a ``kill -9`` of the command takes a
  bot's own children (``bash -c 'sleep 100; ...'``) with it.

What remains impossible: a descendant that starts a session of its own (``setsid``) leaves the
process group and is found only while its chain of parents to the program is intact (or, for
Death Run bot workers, which are child subreapers on Linux, while that worker lives); a
process that escapes that way when its program is SIGKILLed survives. Parent-death signals
follow the *thread* that started the child: the package starts pools and programs from the
thread that uses them. Nothing here is a sandbox: programs run with the user's rights.

Platforms: Linux has all of it. Other POSIX systems (macOS) have sessions, process groups and
the guardian but no parent-death signal (the watchdog polls instead) and may ignore the memory
limit. Windows has none of these; there each helper degrades to plain behaviour and says so in
one line on stderr (:func:`note`), never silently.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import weakref
from typing import Any, Callable, Iterator

__all__ = ["note", "set_parent_death_signal", "set_child_subreaper", "die_with_parent",
           "pool_worker_init", "worker_initargs", "process_pool", "kill_pool_workers",
           "sigterm_exits", "child_setup", "kill_tree",
           "guardian_register", "guardian_unregister", "helper_pids", "descendants",
           "EXIT_SIGTERM", "WORKERS_PER_CORE", "cap_jobs", "terminating", "exit_if_terminated"]

#: The exit code of a run ended by SIGTERM (128 + 15, as a shell reports it).
EXIT_SIGTERM = 143
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_LINUX = sys.platform.startswith("linux")
#: The most pool workers per core, whatever was asked: tasks are CPU-bound, so more workers only
#: wait for the cores while each holds its memory (and starting them is what a run then does).
WORKERS_PER_CORE = 4
_POSIX = os.name == "posix"

#: the package's logger: notes are its warnings
LOG = logging.getLogger("puzzleproof")
_said: set[str] = set()


def note(text: str) -> None:
    """Say ``text`` once per process, as a warning of the ``puzzleproof`` logger (how a
    missing feature is told): the command shows it on stderr as one line; a library user's
    logging configuration decides (Jupyter, pytest's capture)."""
    if text in _said:
        return
    _said.add(text)
    LOG.warning(text)


# --------------------------------------------------------------------------------------------
# Kernel features


_libc_cache: list[Any] = []


def _libc() -> Any:
    """The C library (Linux), loaded once; None where there is no ``prctl``."""
    if not _LINUX:
        return None
    if not _libc_cache:
        try:
            import ctypes

            lib = ctypes.CDLL(None, use_errno=True)
            lib.prctl  # noqa: B018 - raises AttributeError when absent
        except (OSError, AttributeError, ImportError):
            lib = None
        _libc_cache.append(lib)
    return _libc_cache[0]


def _prctl(option: int, arg: int) -> bool:
    lib = _libc()
    return lib is not None and lib.prctl(option, arg, 0, 0, 0) == 0


def set_parent_death_signal(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent dies (Linux only)."""
    return _prctl(_PR_SET_PDEATHSIG, int(sig))


def set_child_subreaper() -> bool:
    """Adopt orphaned descendants of this process instead of init (Linux only), so that they
    stay findable by their parent links."""
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent(parent: int | None = None, sig: int = signal.SIGKILL,
                    on_death: Callable[[], None] | None = None,
                    watchdog: bool | None = None, poll: float = 0.5) -> bool:
    """Make this process end when ``parent`` (default: the current parent) dies.

    Sets the parent-death signal, then checks the parent pid (the parent may have died before
    the signal was set). ``on_death`` is what is done when the parent is found gone (default:
    kill this process with ``sig``). The watchdog thread that polls the parent pid runs where
    there is no parent-death signal, or always with ``watchdog=True``. Returns whether the
    kernel's signal is set.
    """
    parent = os.getppid() if parent is None else parent

    def gone() -> None:
        if on_death is not None:
            on_death()
        os.kill(os.getpid(), sig)
        os._exit(EXIT_SIGTERM)

    kernel = set_parent_death_signal(sig)
    if _POSIX and os.getppid() != parent:
        gone()
    if _POSIX and (watchdog or (watchdog is None and not kernel)):
        def watch() -> None:
            while True:
                time.sleep(poll)
                if os.getppid() != parent:
                    gone()

        threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()
    return kernel


# --------------------------------------------------------------------------------------------
# Pools


#: the start methods ``multiprocessing`` knows (``ctx.get_start_method()`` of a context)
START_METHODS = ("fork", "forkserver", "spawn")


def pool_worker_init(parent: int, start_method: str, roll: Any = None) -> None:
    """Initializer for pool workers: die with the parent, leave the parent's SIGTERM
    handler (inherited by ``fork``) behind, and ignore SIGINT: Ctrl-C reaches the whole
    foreground process group, and a worker that took it as KeyboardInterrupt reported the
    task as failed and started the next one (its programs) before the parent killed it;
    the parent alone answers Ctrl-C, by killing the workers.

    ``start_method`` is the pool's actual method, resolved in the parent
    (:func:`worker_initargs`), never None: a ``forkserver`` worker is a child of the fork
    server, not of ``parent`` (taken for a child of ``parent`` it would find its parent
    "gone" and die at once, as every worker would where ``forkserver`` is the unset default,
    Python 3.14 on Linux), and the server outlives ``parent`` while its workers live, so
    such a worker watches ``parent`` itself (:func:`_die_with_pool_owner`).
    ``roll``: a queue the worker puts its pid on, so that the parent can end this pool's
    workers and no other process (:func:`kill_pool_workers`)."""
    if start_method not in START_METHODS:
        raise ValueError(f"pool_worker_init needs the pool's start method, one of "
                         f"{', '.join(START_METHODS)}; found {start_method!r}")
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ValueError, OSError):
        pass
    if roll is not None:
        roll.put(os.getpid())
    if not _POSIX:
        return
    if start_method == "forkserver":
        _die_with_pool_owner()
    else:
        die_with_parent(parent, signal.SIGKILL)


def _die_with_pool_owner() -> None:
    """End this ``forkserver`` worker when the process that made its pool ends. Its parent is
    the fork server, which lives as long as any of its workers (each holds the server's
    "alive" pipe), so a parent-death signal would never come: the worker waits instead, in a
    thread, on the pool owner's sentinel (``multiprocessing.parent_process()``: a pipe that
    the owner alone holds open), and kills itself when it is ready."""
    import multiprocessing
    from multiprocessing.connection import wait

    owner = multiprocessing.parent_process()
    sentinel = getattr(owner, "sentinel", None) if owner is not None else None
    if sentinel is None:
        note("a forkserver pool worker cannot see the process that made its pool: if that "
             "process is killed, end the workers by hand")
        return

    def watch() -> None:
        wait([sentinel])
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="pool-owner-watch", daemon=True).start()


def worker_initargs(context: Any, roll: Any = None) -> tuple[int, str, Any]:
    """``initargs`` of :func:`pool_worker_init` for a pool of ``context`` (a
    ``multiprocessing`` context): this process, the context's actual start method and the
    pool's roll (a ``context.SimpleQueue()``, or None)."""
    return os.getpid(), context.get_start_method(), roll


#: pool -> [its roll queue, the workers read from it so far (psutil processes)]
_ROLLS: "weakref.WeakKeyDictionary[Any, list[Any]]" = weakref.WeakKeyDictionary()


def _pool_support_note() -> None:
    if not _POSIX:
        note(f"on {sys.platform} pool workers cannot be tied to this process: if it is killed, "
             "end them by hand (parent-death signals and process groups are POSIX/Linux)")
    elif not _LINUX:
        note(f"on {sys.platform} pool workers notice a killed parent by polling (within 0.5 s); "
             "only Linux is tested")


def cap_jobs(jobs: int, tasks: int | None = None) -> int:
    """How many worker processes to start for ``jobs`` asked and ``tasks`` to run: at most
    :data:`WORKERS_PER_CORE` per core (said once on stderr when a request is lowered) and no
    more than the tasks (an idle worker is a fork for nothing); at least one."""
    n = max(1, int(jobs))
    ceiling = WORKERS_PER_CORE * (os.cpu_count() or 1)
    if n > ceiling:
        note(f"{jobs} worker processes asked for; using {ceiling} ({WORKERS_PER_CORE} per "
             "core): more would only wait for the cores, each holding its memory")
        n = ceiling
    if tasks is not None:
        n = min(n, max(1, int(tasks)))
    return n


def process_pool(jobs: int, context: Any = None, **kwargs: Any):
    """A :class:`~concurrent.futures.ProcessPoolExecutor` whose workers die with this process
    and are killed by :func:`sigterm_exits`'s handler; ``jobs`` is capped (:func:`cap_jobs`)
    here, where every pool of the package is made. With ``fork`` the executor starts all its
    workers at the first task, so the cap is what keeps a large ``-j`` from forking at once.

    ``context`` is a ``multiprocessing`` context (default: the interpreter's, ``fork`` on
    Linux up to Python 3.13, ``forkserver`` from 3.14, ``spawn`` on macOS and Windows, or
    what the program chose with ``set_start_method``); it is resolved here, and its actual
    start method given to the workers, whatever the default is."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    jobs = cap_jobs(jobs)
    _pool_support_note()
    _quiet_manager_race()
    ctx = context if context is not None else multiprocessing.get_context()
    roll = ctx.SimpleQueue()
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=pool_worker_init,
                               initargs=worker_initargs(ctx, roll), **kwargs)
    _ROLLS[pool] = [roll, []]
    return pool


_prev_excepthook: list[Any] = []


def _manager_race(args: Any) -> None:
    """``threading.excepthook`` that drops one known race of Python 3.11's process pool: when
    its workers die (killed on SIGTERM, or when a batch is abandoned) while the main thread
    cancels the futures, the pool's manager thread marks a future broken that is cancelled
    already and dies printing ``InvalidStateError`` (Python 3.12 catches it itself). Told
    by the exception and its traceback, which runs through ``concurrent.futures``' own code;
    anything else goes to the hook before."""
    from concurrent.futures import InvalidStateError

    if not (isinstance(args.exc_value, InvalidStateError)
            and _passes_through(args.exc_traceback, _POOL_MODULES)):
        (_prev_excepthook[0] if _prev_excepthook else threading.__excepthook__)(args)


def _quiet_manager_race() -> None:
    if sys.version_info < (3, 12) and threading.excepthook is not _manager_race:
        _prev_excepthook[:] = [threading.excepthook]
        threading.excepthook = _manager_race


def _rolled(pool: Any) -> list[Any]:
    """The live workers of a pool made by :func:`process_pool`, as they put themselves on
    its roll (psutil processes: a pid reused by another process is not taken for them)."""
    import psutil

    entry = _ROLLS.get(pool)
    if entry is None:
        return []
    roll, seen = entry
    with contextlib.suppress(OSError, EOFError, ValueError):
        while not roll.empty():
            with contextlib.suppress(psutil.Error):
                seen.append(psutil.Process(roll.get()))
    alive = []
    for p in seen:
        with contextlib.suppress(psutil.Error):
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                alive.append(p)
    return alive


def _worker_tree() -> list[Any]:
    """Every process this one started in its own process group, read from the process tree
    (psutil): pool workers (the ``forkserver`` ones are children of the fork server, which
    is taken too), a worker forked but not yet listed by its pool, a local Dask cluster's
    workers. External programs, bot workers, the guardian and tasks' forked children each
    have a group of their own; ``multiprocessing``'s resource tracker is left (it must
    outlive the pools: killed, it is started again with a warning)."""
    import psutil

    try:
        group = os.getpgid(0)
        tree = psutil.Process().children(recursive=True)
    except (psutil.Error, OSError):
        return []
    out = []
    for p in tree:
        try:
            if p.status() == psutil.STATUS_ZOMBIE or os.getpgid(p.pid) != group \
                    or "multiprocessing.resource_tracker" in " ".join(p.cmdline()[:4]):
                continue
        except (psutil.Error, OSError):
            continue
        out.append(p)
    return out


def kill_pool_workers(pool: Any = None) -> int:
    """SIGKILL pool workers and return how many were signalled.

    ``pool`` given (made by :func:`process_pool`): its workers only (Python 3.14's
    ``kill_workers`` where the pool has it; elsewhere those on its roll). Without ``pool``
    (SIGTERM): every process this one started in its process group (:func:`_worker_tree`),
    as a SIGTERM while a pool forks can land after a worker started and before the pool
    knew it, and the interpreter's exit then waited for that idle worker forever. Nothing is
    reaped here (a reap could steal a wait in progress)."""
    victims = _worker_tree() if pool is None else _rolled(pool)
    if pool is not None and callable(getattr(pool, "kill_workers", None)):
        with contextlib.suppress(Exception):
            pool.kill_workers()  # Python 3.14+: the pool's own (then shutdown(wait=False))
            return len(victims)
    n = 0
    for p in victims:
        try:
            os.kill(p.pid, signal.SIGKILL)
            n += 1
        except OSError:
            pass
    return n


_terminating = [False]
_pending = [False]  # a SIGTERM's SystemExit not raised yet (it came at an unsafe point)
_prev_unraisable: list[Any] = []

#: modules whose code an exception must not be raised into: ``logging`` (its fork hooks run
#: from C around every fork, where an exception is printed and dropped; elsewhere it holds its
#: lock or prints the error itself) and finalizers (also run where exceptions are dropped)
_UNSAFE_MODULES = ("logging", "weakref", "_weakrefset", "multiprocessing.util")


def _unsafe_at(frame: Any) -> bool:
    """Whether an exception raised at ``frame`` (the signal's) could be swallowed or leave a
    lock held: the innermost frames are in :data:`_UNSAFE_MODULES` or in a ``__del__``. Only
    a few frames are looked at: a caller blocked for long further out must still be ended."""
    f, depth = frame, 0
    while f is not None and depth < 4:
        mod = f.f_globals.get("__name__") or ""
        if f.f_code.co_name == "__del__" or any(mod == m or mod.startswith(m + ".")
                                                for m in _UNSAFE_MODULES):
            return True
        f, depth = f.f_back, depth + 1
    return False


def _retry_soon() -> None:
    """Have :func:`_on_retry` run in 10 ms (SIGALRM, unless someone else handles it; then the
    batch loop's :func:`exit_if_terminated` raises)."""
    try:
        if signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, _on_retry):
            signal.signal(signal.SIGALRM, _on_retry)
            signal.setitimer(signal.ITIMER_REAL, 0.01)
    except (AttributeError, ValueError, OSError):  # no SIGALRM (Windows), not main thread
        pass


def _cancel_retry() -> None:
    """Disarm :func:`_retry_soon`'s timer before the exit is raised: the interpreter resets
    its signal handlers to the default as it shuts down, and a SIGALRM still due then ended
    the run by that signal (exit -14) instead of 143."""
    try:
        if signal.getsignal(signal.SIGALRM) is _on_retry:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except (AttributeError, ValueError, OSError):
        pass


def _quiet_unraisable(unraisable: Any) -> None:
    """Our SystemExit dropped by code that cannot raise (a case :func:`_unsafe_at` missed):
    not printed as "Exception ignored", raised again soon instead."""
    exc = unraisable.exc_value
    if isinstance(exc, SystemExit) and exc.code == EXIT_SIGTERM and _terminating[0]:
        if not sys.is_finalizing():  # the run is ending already: no timer to outlive it
            _pending[0] = True
            _retry_soon()
        return
    if _terminating[0] and _passes_through(unraisable.exc_traceback, _ENDING_RUN_MODULES):
        return
    (_prev_unraisable[0] if _prev_unraisable else sys.__unraisablehook__)(unraisable)


#: the process pool's own code: once SIGTERM killed the workers, the pool's exit hook can
#: find its wake-up pipe closed by its manager thread (Python 3.11 printed ``OSError: Bad
#: file descriptor``, "Exception ignored in threading")
_POOL_MODULES = ("concurrent.futures", "multiprocessing")
#: ... and ``logging``'s fork hooks: an exit raised in its before-fork hook, before it took
#: its lock (where :func:`_unsafe_at` missed it), makes its after-fork hook release a lock it
#: does not hold ("cannot release un-acquired lock"), an error of the ending run's making
_ENDING_RUN_MODULES = _POOL_MODULES + ("logging",)


def _passes_through(tb: Any, modules: tuple[str, ...]) -> bool:
    """Whether a traceback passes through the code of ``modules`` (or their submodules)."""
    while tb is not None:
        if (tb.tb_frame.f_globals.get("__name__") or "").startswith(modules):
            return True
        tb = tb.tb_next
    return False


def _hook_unraisable() -> None:
    if sys.unraisablehook is not _quiet_unraisable:
        _prev_unraisable[:] = [sys.unraisablehook]
        sys.unraisablehook = _quiet_unraisable


def _raise_when_safe(frame: Any) -> None:
    if _unsafe_at(frame):
        _pending[0] = True
        _retry_soon()
        return
    _pending[0] = False
    _cancel_retry()
    _hook_unraisable()
    raise SystemExit(EXIT_SIGTERM)


def _on_sigterm(signum: int, frame: Any) -> None:
    kill_pool_workers()
    if _terminating[0]:
        os._exit(EXIT_SIGTERM)
    _terminating[0] = True
    _hook_unraisable()
    try:
        os.write(2, b"puzzleproof: terminated (SIGTERM); workers stopped, what was written "
                    b"is kept\n")
    except OSError:
        pass
    _raise_when_safe(frame)


def _on_retry(signum: int, frame: Any) -> None:
    if _pending[0]:
        kill_pool_workers()  # workers started since the SIGTERM
        _raise_when_safe(frame)


def terminating() -> bool:
    """Whether a SIGTERM was received (under :func:`sigterm_exits`): the run is ending."""
    return _terminating[0]


def exit_if_terminated() -> None:
    """Raise the ``SystemExit(143)`` of a SIGTERM that came where it could not be raised (a
    batch loop calls this between tasks, so the exit never waits for the timer alone)."""
    if _pending[0]:
        _pending[0] = False
        _cancel_retry()
        kill_pool_workers()
        raise SystemExit(EXIT_SIGTERM)


@contextlib.contextmanager
def sigterm_exits() -> Iterator[None]:
    """Within the block, SIGTERM kills the pools' workers and raises ``SystemExit(143)`` in the
    main thread (so ``finally`` blocks write what is done); a second SIGTERM exits at once.

    Installed only in the main thread and only over the default handler (a handler the caller
    set is left alone); nested uses are harmless.
    """
    if not hasattr(signal, "SIGTERM") or threading.current_thread() is not \
            threading.main_thread():
        yield
        return
    try:
        before = signal.getsignal(signal.SIGTERM)
    except (ValueError, OSError):
        yield
        return
    if before is not signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        _cancel_retry()
        with contextlib.suppress(ValueError, OSError):
            if signal.getsignal(signal.SIGTERM) is _on_sigterm:
                signal.signal(signal.SIGTERM, before)
        exit_if_terminated()  # a SIGTERM still put off ends the run here, not after it


# --------------------------------------------------------------------------------------------
# The guardian: kills the registered process groups when this process (and every process it
# forked that holds the pipe) is gone.

_GUARDIAN_CODE = r"""
import os, signal
signal.signal(signal.SIGINT, signal.SIG_IGN)
groups, buf = set(), b""
while True:
    try:
        chunk = os.read(0, 65536)
    except InterruptedError:
        continue
    except OSError:
        break
    if not chunk:
        break
    buf += chunk
    *lines, buf = buf.split(b"\n")
    for ln in lines:
        try:
            (groups.add if ln[:1] == b"+" else groups.discard)(int(ln[1:]))
        except ValueError:
            pass
for g in groups:
    try:
        os.killpg(g, signal.SIGKILL)
    except OSError:
        pass
"""

# (owner pid, write fd, guardian Popen): a forked child uses its parent's guardian
_guardian: list[Any] = []
_guardian_lock = threading.Lock()


def _guardian_fd() -> int | None:
    if not _POSIX:
        return None
    with _guardian_lock:
        if _guardian:
            return _guardian[1]
        try:
            r, w = os.pipe()
            proc = subprocess.Popen([sys.executable, "-S", "-c", _GUARDIAN_CODE], stdin=r,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    start_new_session=True, close_fds=True)
            os.close(r)
        except OSError as exc:
            note(f"no guardian process ({exc}): if this run is killed with SIGKILL, children "
                 "of the programs it runs may survive")
            _guardian.extend([os.getpid(), None, None])
            return None
        _guardian.extend([os.getpid(), w, proc])
        return w


def _guardian_send(line: str, fd: int | None = None) -> None:
    fd = _guardian_fd() if fd is None else fd
    if fd is None:
        return
    try:
        os.write(fd, line.encode())
    except OSError:
        pass


def guardian_register(pgid: int) -> None:
    """List process group ``pgid`` for killing when this process is gone."""
    _guardian_send(f"+{pgid}\n")


def guardian_unregister(pgid: int) -> None:
    """Take ``pgid`` off the list (its group was killed)."""
    if _guardian and _guardian[1] is not None:
        _guardian_send(f"-{pgid}\n", _guardian[1])


def helper_pids() -> list[int]:
    """Pids of this process's own helpers that live as long as it does (the guardian)."""
    if _guardian and _guardian[2] is not None and _guardian[0] == os.getpid():
        return [_guardian[2].pid]
    return []


# --------------------------------------------------------------------------------------------
# External programs


def child_setup(memory_limit_mb: float | None = None, death_signal: int | None = signal.SIGKILL
                ) -> tuple[Callable[[], None] | None, list[str]]:
    """``(preexec_fn, notes)`` for ``subprocess.Popen(..., start_new_session=True)``; after the
    start, list the child's group with :func:`guardian_register` (``proc.pid``).

    In the child, before ``exec``: the memory limit (``RLIMIT_AS``), the parent-death signal
    (and a check that the parent still lives, or the child ends at once: it cannot have forked
    yet), and its process group listed with the guardian (started here if need be), so that
    a program that forks at once (``bash -c 'sleep 300 & exec bot'``) is covered even when
    this process is killed before :func:`guardian_register` runs: the kernel's parent-death
    signal reaches the program, not what it forked. ``notes`` says what this platform cannot
    do.
    """
    notes: list[str] = []
    if not _POSIX:
        return None, [f"on {sys.platform} programs run without process groups, memory limit "
                      "or parent-death signal (POSIX features); only Linux is tested"]
    limit = None
    if memory_limit_mb:
        try:
            import resource

            limit = (resource.RLIMIT_AS, int(memory_limit_mb * 1024 * 1024))
        except (ImportError, AttributeError):
            notes.append("no RLIMIT_AS on this platform: the memory limit is not enforced")
        if limit and not _LINUX:
            notes.append(f"on {sys.platform} the memory limit may not be enforced (RLIMIT_AS); "
                         "only Linux is tested")
    if death_signal and not _LINUX:
        notes.append(f"on {sys.platform} a program is not killed by the kernel when this "
                     "process dies (no parent-death signal); the guardian still kills its "
                     "process group")
    parent = os.getpid()
    libc = _libc() if death_signal else None  # loaded here, not in the child
    guardian = _guardian_fd()  # the guardian started here, its pipe open in the child

    def setup() -> None:  # in the child, before exec (and before the descriptors close)
        if guardian is not None:
            with contextlib.suppress(OSError):
                os.write(guardian, b"+%d\n" % os.getpid())  # a session leader: pgid = pid
        if limit is not None:
            import resource

            resource.setrlimit(limit[0], (limit[1], limit[1]))
        if death_signal and libc is not None:
            libc.prctl(_PR_SET_PDEATHSIG, int(death_signal), 0, 0, 0)
            if os.getppid() != parent:
                os._exit(127)

    return setup, notes


def descendants(pid: int) -> list[int]:
    """Pids of ``pid``'s live descendants by parent links (psutil; empty when ``pid`` is
    gone)."""
    import psutil

    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def kill_tree(pid: int, pgid: int | None = None, reaped: bool = False,
              also: list[int] | tuple[int, ...] = ()) -> None:
    """SIGKILL process group ``pgid`` (default ``pid``'s own, as a session leader's) and, while
    ``pid`` is not yet reaped, ``pid`` and every descendant still attached to it; then take the
    group off the guardian's list; ``also``: more pids to kill (descendants found before the
    program was asked to end). Does not reap ``pid`` (its owner does)."""
    if not _POSIX:
        if not reaped:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        return
    pgid = pid if pgid is None else pgid
    strays = [] if reaped else [pid] + descendants(pid)
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)
    for p in strays + [p for p in also if p not in strays]:
        with contextlib.suppress(OSError):
            os.kill(p, signal.SIGKILL)
    guardian_unregister(pgid)
