"""Where a batch runs: local processes, or a Dask cluster, behind one interface.

Every batch command (``crosscheck``, ``generate``, ``deathrun tournament``, ``skynet referee``
batches) and the benchmarks take an :class:`ExecutorSpec` (or a plain number of processes)
and run their tasks through :func:`open_pool`, which yields a :class:`Pool` around a
:class:`concurrent.futures.Executor`:

- ``--jobs N`` (the default, N = the cores): a :class:`~concurrent.futures.ProcessPoolExecutor`
  whose workers die with this process (:func:`puzzleproof.processes.process_pool`); with one job,
  tasks run in this process, one after another. The pool is made at the first
  :meth:`Pool.stream`, with no more workers than its tasks and at most
  :data:`puzzleproof.processes.WORKERS_PER_CORE` per core (:func:`puzzleproof.processes.cap_jobs`):
  ``-j 100000`` on one instance once forked 100000 workers for three tasks;
- ``--scheduler tcp://HOST:8786``, or ``--scheduler-file FILE`` (the JSON file
  ``dask scheduler --scheduler-file``, dask-jobqueue and dask-mpi write): an existing Dask
  cluster, through ``distributed.Client(address).get_executor()``;
- ``--dask N``: a Dask ``LocalCluster`` of N single-threaded worker processes on the loopback
  address, started for the batch and torn down at its end.

Dask is an optional dependency (``pip install 'puzzleproof[dask]'``); without it these three
are refused in one line. At connect, before any task (:meth:`Pool._start`):

- a scheduler with no worker is said so on stderr and waited for, at most
  ``ExecutorSpec.wait_for_workers`` seconds (then refused);
- every worker must run the versions of puzzleproof, OR-Tools, python-sat and numba this
  process runs (:data:`SAME_VERSIONS`: the records and the compiled code depend on them),
  and puzzleproof's own code (:func:`code_digest`: two checkouts of one version may
  differ), or the run is refused naming the worker and what differs;
- the batch's ``checks`` run on every worker (a program's folder and files, seen at the
  same paths with the same content: :func:`puzzleproof.games.program.reach_check`), and a
  problem refuses the run naming the worker;
- ``ExecutorSpec.prepare`` runs once on every worker (what ``puzzleproof prepare`` does:
  compiled loops loaded or compiled), outside any task's time limit, as on this machine.

Choosing is one line at the edge (:func:`ExecutorSpec` from the options); batch code submits
tasks and takes results as they complete (:meth:`Pool.stream`), whatever runs them. There is
no scheduler, queue or socket protocol of our own: Dask's scheduler places the tasks.

What a task can meet, and what the batch gets back (never a task silently dropped):

- **A worker dies mid-task** (killed, out of memory). Locally the process pool breaks; the
  pool is made again and the tasks that were in flight run again, each at most
  ``retries`` more times. On Dask the scheduler moves the task to another worker by itself
  (up to its ``distributed.scheduler.allowed-failures``, which a ``--dask`` cluster sets to
  ``retries``). When the retries are spent the task's outcome is a :class:`TaskFailure`
  (``kind="error"``) naming the task, which the batch turns into an ERROR record.
- **A task hangs** past ``hang_limit`` seconds (a method that ignores its time limit, C code
  that cannot be interrupted): when a limit is given, each task runs in a child process forked
  by the worker, which is killed when the limit runs out; the outcome is a
  :class:`TaskFailure` with ``kind="timeout"`` (an UNKNOWN record, naming the limit). The
  worker lives on.

Results do not depend on the executor: the same function runs on the same arguments; only
timings and host names differ.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import os
import pickle
import select
import signal
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from puzzleproof import processes
from puzzleproof.clock import PerTask

__all__ = ["ExecutorSpec", "TaskFailure", "TaskHung", "Pool", "open_pool", "as_spec",
           "guarded_call", "hang_limit_for", "DEFAULT_RETRIES", "SAME_VERSIONS",
           "scheduler_address", "code_digest"]

#: how many more times a task whose worker died is run before it is an ERROR
DEFAULT_RETRIES = 2
#: distributions a Dask worker must have in the client's version, and their names in words
SAME_VERSIONS = {"puzzleproof": "puzzleproof", "ortools": "OR-Tools",
                 "python-sat": "python-sat", "numba": "numba"}
#: how long a run waits for a first worker at a scheduler that has none
WAIT_FOR_WORKERS = 60.0


@dataclass(frozen=True)
class ExecutorSpec:
    """Where a batch runs: ``jobs`` local processes, or the Dask cluster at ``scheduler``
    (or the one ``scheduler_file`` names), or a local Dask cluster of ``dask_workers``
    processes started for the batch. On Dask, ``prepare()`` runs once on every worker at
    connect, and a scheduler without workers is waited for ``wait_for_workers`` seconds."""

    jobs: int = 1
    scheduler: str | None = None
    dask_workers: int | None = None
    retries: int = DEFAULT_RETRIES
    scheduler_file: str | None = None
    prepare: Callable[[], Any] | None = None
    wait_for_workers: float = WAIT_FOR_WORKERS

    def __post_init__(self) -> None:
        if sum(map(bool, (self.scheduler, self.scheduler_file, self.dask_workers))) > 1:
            raise ValueError("--scheduler, --scheduler-file and --dask exclude each other: "
                             "use an existing cluster or start one, not both")
        if self.jobs < 1 or (self.dask_workers is not None and self.dask_workers < 1):
            raise ValueError("a batch needs at least one worker")
        if not self.wait_for_workers > 0:
            raise ValueError("the wait for a first Dask worker must be a positive number of "
                             f"seconds, found {self.wait_for_workers!r}")

    @property
    def distributed(self) -> bool:
        return bool(self.scheduler or self.scheduler_file or self.dask_workers)

    @property
    def parallel(self) -> bool:
        """True when tasks run in other processes than this one."""
        return self.distributed or self.jobs > 1

    def describe(self) -> str:
        if self.scheduler:
            return f"Dask cluster at {self.scheduler}"
        if self.scheduler_file:
            return f"Dask cluster of {self.scheduler_file}"
        if self.dask_workers:
            return f"local Dask cluster of {self.dask_workers} worker(s)"
        return f"{self.jobs} local process(es)" if self.jobs > 1 else "this process"


def scheduler_address(path: str) -> str:
    """The scheduler address a scheduler file holds (the JSON ``dask scheduler
    --scheduler-file``, dask-jobqueue and dask-mpi write: ``{"address": ...}``);
    InputError naming the file when it cannot be read or holds none."""
    from puzzleproof.errors import InputError

    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read(1 << 20)
    except OSError as exc:
        raise InputError(f"cannot read the scheduler file: {exc.strerror or exc}", path) \
            from None
    try:
        address = json.loads(text)["address"]
    except (ValueError, KeyError, TypeError):
        address = None
    if not isinstance(address, str) or "://" not in address:
        raise InputError("not a Dask scheduler file (expected JSON with the scheduler's "
                         "\"address\", as 'dask scheduler --scheduler-file FILE' writes)", path)
    return address


def as_spec(jobs: "int | ExecutorSpec | None") -> ExecutorSpec:
    """A spec from what a library function was given: a spec, a number of processes, or
    None (the cores)."""
    if isinstance(jobs, ExecutorSpec):
        return jobs
    if jobs is None:
        try:
            jobs = len(os.sched_getaffinity(0))
        except AttributeError:  # pragma: no cover - not Linux
            jobs = os.cpu_count() or 1
    return ExecutorSpec(jobs=max(1, int(jobs)))


def hang_limit_for(each: PerTask) -> float | None:
    """How long a task with a time limit may run before it counts as hung: half as long
    again as its limit, plus 10 s for start-up and answer checking."""
    return None if each.seconds is None else 1.5 * each.seconds + 10.0


@dataclass
class TaskFailure:
    """A task that gave no result: ``kind`` is ``"error"`` (its worker died more often than
    the retries allow, or the function raised) or ``"timeout"`` (it hung past its limit)."""

    kind: str
    message: str
    attempts: int = 1


class TaskHung(Exception):
    """Raised by :func:`guarded_call` when the task ran past its hang limit."""


# --------------------------------------------------------------------------------------------
# In the worker


def _read_all(fd: int, deadline: float | None) -> bytes | None:
    """Everything from ``fd`` until EOF, or None when ``deadline`` passes first."""
    chunks = []
    while True:
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return None
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


_WARMED: set = set()


def guarded_call(fn: Callable[..., Any], args: tuple, hang_limit: float | None,
                 warm: Callable[[], Any] | None = None) -> Any:
    """``fn(*args)``; with a ``hang_limit``, in a forked child (its own process group, dying
    with this worker) that is killed with its group when the limit runs out (:class:`TaskHung`).
    An exception of ``fn`` is raised here as it was raised there. ``warm()`` runs once per
    worker process before the first task (what it loads, every forked child inherits)."""
    if warm is not None and warm not in _WARMED:
        _WARMED.add(warm)
        warm()
    if hang_limit is None or not hasattr(os, "fork"):
        return fn(*args)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, send the pickled outcome, leave without clean-up
        code = 0
        try:
            os.close(r)
            os.setpgid(0, 0)
            processes.set_parent_death_signal(signal.SIGKILL)
            try:
                data = pickle.dumps((True, fn(*args)))
            except BaseException as exc:  # noqa: BLE001 - sent to the parent
                try:
                    data = pickle.dumps((False, exc))
                except Exception:  # an exception that cannot be pickled
                    data = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
            view = memoryview(data)
            while view:
                view = view[os.write(w, view):]
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    data: bytes | None = None
    try:
        data = _read_all(r, time.monotonic() + hang_limit)
    finally:
        os.close(r)
        if data is None:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    if data is None:
        raise TaskHung(f"ran past the hang limit of {hang_limit:g} s and was killed")
    if not data:
        raise RuntimeError("the task's process died without an answer")
    ok, value = pickle.loads(data)
    if ok:
        return value
    raise value


def _worker_dies_with_parent() -> None:  # run on every worker of a local Dask cluster
    with contextlib.suppress(Exception):
        processes.die_with_parent()


# --------------------------------------------------------------------------------------------
# In this process


class _InlineExecutor(Executor):
    """Runs each task at once in this process (one job: no pool, the default SIGTERM)."""

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[override]
        fut: Future = Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - delivered through the future
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            fut.set_exception(exc)
        return fut


def _is_killed_worker(exc: BaseException) -> bool:
    return type(exc).__name__ == "KilledWorker"


def _is_broken_pool(exc: BaseException) -> bool:
    from concurrent.futures.process import BrokenProcessPool

    return isinstance(exc, BrokenProcessPool)


@dataclass
class Pool:
    """An open executor for one batch. ``executor`` is a plain
    :class:`concurrent.futures.Executor`; :meth:`stream` runs tasks on it with retries and the
    hang limit."""

    spec: ExecutorSpec
    executor: Executor | None = None
    slots: int = 1
    client: Any = None
    cluster: Any = None
    hosts: list[str] = field(default_factory=list)
    #: run on every Dask worker at connect: each returns the problems it finds there
    checks: tuple[Callable[[], list[str]], ...] = ()
    _size: int = 0  # workers of the local process pool made by _ensure

    def _start(self) -> None:
        spec = self.spec
        if not spec.distributed:
            if spec.jobs > 1:  # the process pool is made by the first stream (_ensure)
                self.slots = processes.cap_jobs(spec.jobs)
            else:
                self.executor = _InlineExecutor()
                self.slots = 1
            return
        dask, Client, LocalCluster = _dask()
        if spec.dask_workers:
            with dask.config.set({"distributed.scheduler.allowed-failures": spec.retries,
                                  "distributed.admin.system-monitor.gil.enabled": False}):
                self.cluster = LocalCluster(n_workers=spec.dask_workers, threads_per_worker=1,
                                            processes=True, host="127.0.0.1",
                                            dashboard_address="127.0.0.1:0", silence_logs=40)
                self.client = Client(self.cluster)
            self.client.run(_worker_dies_with_parent)
        else:
            self.client = _connect(Client, spec)
        _ready(self.client, spec, self.checks)
        workers = self.client.scheduler_info().get("workers", {})
        self.slots = max(1, sum(w.get("nthreads", 1) for w in workers.values()))
        self.hosts = sorted({w.get("host", "") for w in workers.values()})
        self.executor = self.client.get_executor(pure=False)

    def _ensure(self, tasks: int) -> None:
        """Make the local process pool for a stream of ``tasks`` tasks: no more workers than
        tasks (with ``fork`` every worker starts at the first task, needed or not); made again,
        larger, when a later stream has more tasks than the pool has workers."""
        if self.spec.distributed or self.spec.jobs == 1 or tasks < 1:
            return
        size = processes.cap_jobs(self.slots, tasks)
        if self.executor is not None and size <= self._size:
            return
        if self.executor is not None:  # between streams: nothing runs on it
            self.executor.shutdown(wait=True)
        self.executor = processes.process_pool(size)
        self._size = size

    def renew(self) -> None:
        """Make the local process pool again after a worker died (it is broken then)."""
        old = self.executor
        if old is not None and not self.spec.distributed:
            processes.kill_pool_workers(old)
            old.shutdown(wait=False, cancel_futures=True)
            processes.exit_if_terminated()  # not a new pool when a SIGTERM killed the old one
            self.executor = processes.process_pool(self._size)

    def abandon(self) -> None:
        """Stop at once: running tasks are not waited for."""
        if self.executor is not None and not self.spec.distributed:
            processes.kill_pool_workers(self.executor)
            self.executor.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.close(timeout=10)
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close(timeout=10)
        elif self.executor is not None and not self.spec.distributed:
            if processes.terminating():  # SIGTERM: the workers were killed, wait for nothing
                self.abandon()
            else:
                self.executor.shutdown(wait=True)
        self.client = self.cluster = None

    def _again(self, queue, item, tries, name) -> Iterator[tuple[Any, Any]]:
        """A task that was in flight when a local worker died: queued again as a suspect
        (suspects run one at a time, so the task that kills its worker is found and the
        others finish) while retries are left, else its failure is yielded."""
        if tries < self.spec.retries:
            queue.appendleft((item, tries + 1, True))
        else:
            yield item, TaskFailure("error", f"task {name(item)}: its worker process died "
                                    f"{tries + 1} times running it", tries + 1)

    def stream(self, fn: Callable[..., Any], items: Iterable[Any], *,
               args: Callable[[Any], tuple] = lambda x: (x,),
               hang_limit: float | None = None, window: int | None = None,
               name: Callable[[Any], str] = str,
               warm: Callable[[], Any] | None = None) -> Iterator[tuple[Any, Any]]:
        """Run ``fn(*args(item))`` for every item; yield ``(item, result)`` as each one
        completes, the result being a :class:`TaskFailure` when the task gave none. At most
        ``window`` tasks (default twice the slots) are submitted at a time; ``warm()`` runs
        once in each worker before its first task (see :func:`guarded_call`)."""
        window = window or max(1, 2 * self.slots)
        # (item, tries, suspect): a suspect was in flight when a local worker died
        queue: deque[tuple[Any, int, bool]] = deque((item, 0, False) for item in items)
        self._ensure(len(queue))
        assert self.executor is not None or not queue
        futures: dict[Future, tuple[Any, int, bool]] = {}
        try:
            while queue or futures:
                processes.exit_if_terminated()
                while queue and len(futures) < window:
                    if queue[0][2] and futures or any(f[2] for f in futures.values()):
                        break  # a suspect runs alone
                    item, tries, suspect = queue.popleft()
                    fut = self.executor.submit(guarded_call, fn, args(item), hang_limit, warm)
                    futures[fut] = (item, tries, suspect)
                done, _ = wait(futures, return_when=FIRST_COMPLETED)
                processes.exit_if_terminated()
                broken = False
                for fut in done:
                    item, tries, _ = futures.pop(fut)
                    exc = fut.exception()
                    if exc is None:
                        yield item, fut.result()
                    elif _is_broken_pool(exc):
                        broken = True
                        yield from self._again(queue, item, tries, name)
                    elif _is_killed_worker(exc):
                        yield item, TaskFailure(
                            "error", f"task {name(item)}: its Dask worker died running it "
                            f"as often as the scheduler allows ({exc})", self.spec.retries + 1)
                    elif isinstance(exc, TaskHung):
                        yield item, TaskFailure("timeout", f"task {name(item)} {exc}", tries + 1)
                    else:
                        yield item, TaskFailure("error", f"task {name(item)}: "
                                                f"{type(exc).__name__}: {exc}", tries + 1)
                if broken:  # every task in the broken pool failed with it: run them again
                    for fut, (item, tries, _) in list(futures.items()):
                        with contextlib.suppress(Exception):
                            fut.exception(timeout=5)
                        yield from self._again(queue, item, tries, name)
                    futures.clear()
                    self.renew()
        except BaseException:
            for fut in futures:
                fut.cancel()
            self.abandon()
            raise


@contextlib.contextmanager
def open_pool(jobs: "int | ExecutorSpec | None",
              checks: Iterable[Callable[[], list[str]]] = ()) -> Iterator[Pool]:
    """The executor ``jobs`` names, open for one batch and closed (a local Dask cluster torn
    down, local workers ended) when the block ends, however it ends. SIGTERM in the block
    kills local workers and raises ``SystemExit(143)`` (:func:`puzzleproof.processes.sigterm_exits`);
    with one local job the default SIGTERM stays. ``checks``: callables run on every Dask
    worker at connect, each returning the problems it finds there (the run is refused on
    any, naming the worker)."""
    spec = as_spec(jobs)
    pool = Pool(spec, checks=tuple(checks))
    guard = processes.sigterm_exits() if spec.parallel else contextlib.nullcontext()
    with guard:
        try:
            pool._start()
            yield pool
        finally:
            pool.close()


# --------------------------------------------------------------------------------------------
# Connecting to Dask


def _dask() -> tuple[Any, Any, Any]:
    """``(dask, Client, LocalCluster)``; an ExecutorError (one line) when Dask is absent."""
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        from puzzleproof.errors import ExecutorError

        raise ExecutorError("--scheduler, --scheduler-file and --dask need Dask, which is not "
                         "installed: pip install 'puzzleproof[dask]'") from None
    return dask, Client, LocalCluster


def _connect(Client: Any, spec: ExecutorSpec) -> Any:
    """A client of the scheduler ``spec`` names (its address, or its scheduler file's)."""
    from puzzleproof.errors import InputError

    where = spec.scheduler or spec.scheduler_file
    address = spec.scheduler or scheduler_address(str(spec.scheduler_file))
    try:
        return Client(address, timeout=10)
    except OSError as exc:
        raise InputError(f"no Dask scheduler answers at {address} ({exc})", where) from None


def _ready(client: Any, spec: ExecutorSpec, checks: tuple) -> None:
    """Make the cluster ready for a batch, or refuse it (ExecutorError naming the worker): at
    least one worker (waited for), the same versions everywhere, the ``checks`` passed on
    every worker, and every worker prepared."""
    from puzzleproof.errors import ExecutorError

    where = spec.scheduler or spec.scheduler_file or "the local cluster"
    if not client.scheduler_info().get("workers"):
        processes.note(f"the Dask scheduler at {where} has no workers yet: waiting up to "
                       f"{spec.wait_for_workers:g} s for one ('dask worker ADDRESS' starts one)")
        try:
            client.wait_for_workers(1, timeout=spec.wait_for_workers)
        except (TimeoutError, OSError):
            raise ExecutorError(f"no Dask worker joined the scheduler at {where} within "
                             f"{spec.wait_for_workers:g} s: start workers ('dask worker "
                             "ADDRESS') or run on local processes (-j)") from None
    problems = _version_problems(client)
    if not problems:
        here = code_digest()
        problems = [f"{w} runs other puzzleproof code than this process (the same version, "
                    "another checkout or an edited one)"
                    for w, there in _on_each(client, code_digest) if there != here]
    if problems:
        raise ExecutorError(_listed("the Dask workers do not run this process's versions",
                                 problems) + ": install the same versions everywhere")
    for check in checks:
        problems += [f"Dask worker {w}: {p}" for w, found in _on_each(client, check)
                     for p in found]
    if problems:
        raise ExecutorError(_listed("a worker cannot run this batch", problems))
    if spec.prepare is not None:
        _prepare(client, spec.prepare)


def _listed(what: str, problems: list[str], most: int = 4) -> str:
    more = f"; and {len(problems) - most} more" if len(problems) > most else ""
    return f"{what}: " + "; ".join(problems[:most]) + more


def _on_each(client: Any, fn: Callable[..., Any], *args: Any) -> list[tuple[str, Any]]:
    """``fn(*args)`` on every worker: (worker, what it returned), an exception it raised
    given as a one-item list of its message."""
    got = client.run(fn, *args, on_error="return")
    return [(w, [f"{type(v).__name__}: {v}"] if isinstance(v, BaseException) else v)
            for w, v in sorted(got.items())]


def _installed(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _version_problems(client: Any) -> list[str]:
    """Each worker whose version of a :data:`SAME_VERSIONS` distribution differs from this
    process's, in words. Asked with the standard library's own function, so that a worker
    without puzzleproof answers too."""
    out = []
    for dist, label in SAME_VERSIONS.items():
        here = _installed(dist)
        got = client.run(importlib.metadata.version, dist, on_error="return")
        for worker, there in sorted(got.items()):
            there = None if isinstance(there, BaseException) else there
            if there != here:
                out.append(f"{worker} has {label} {there or '(not installed)'}, this process "
                           f"{here or '(not installed)'}")
    return out


def code_digest() -> str:
    """SHA-256 of the package's source (every ``.py`` file's path and text): two checkouts of
    one version that differ in their code differ here."""
    import hashlib
    from pathlib import Path

    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _prepare(client: Any, prepare: Callable[[], Any]) -> None:
    """``prepare()`` once on every worker, as a task of its own there (a worker's event loop
    keeps answering the scheduler meanwhile); a failure refuses the run."""
    from puzzleproof.errors import ExecutorError

    workers = sorted(client.scheduler_info().get("workers", {}))
    futures = [client.submit(prepare, workers=[w], allow_other_workers=False, pure=False)
               for w in workers]
    for w, fut in zip(workers, futures):
        try:
            fut.result()
        except Exception as exc:  # noqa: BLE001 - said in one line
            raise ExecutorError(f"preparing Dask worker {w} failed: {type(exc).__name__}: "
                             f"{exc}") from None
