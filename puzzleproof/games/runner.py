"""Running other people's programs: one runner for every external bot or solver.

A program runs in its own session (so its own process group), with a memory limit
(``RLIMIT_AS``, default 768 MB as on CodinGame), and talks over pipes. Every exchange has a
deadline: lines are written and read with non-blocking I/O and a selector, never a blocking
call. The program's stderr is drained as it comes and kept up to a cap (the first and the last
32 KB, with a marker saying how much was cut), so a program that writes megabytes of debug
output neither blocks nor fills memory. However a run ends, :meth:`ExternalProgram.close`
kills the whole process group (SIGTERM, a short grace, then SIGKILL) and reaps the program,
so a bot that forks ``sleep 100`` leaves nothing running; descendants that left the group but
are still attached to the program by parent links are killed too. If this process itself is
killed, the program gets the kernel's parent-death signal (Linux) and the guardian of
:mod:`puzzleproof.processes` kills its whole group, SIGKILL included. (A descendant that starts a
session of its own *and* is orphaned escapes: process groups are the containment here, not a
sandbox; the program runs with the user's rights.)

When a run ends early, :class:`ProgramEnded` carries a short, stable ``reason``:

=================  ===========================================================================
``cannot-start``   the command could not be started (no such file, not executable)
``init-timeout``   no answer within the start-up (first-move) limit
``timeout``        no answer within the per-move limit
``crash``          the program exited with a non-zero code or was killed by a signal
``memory-limit``   the program died of the memory limit (``MemoryError``/``bad_alloc``... in
                   its stderr, or killed by a signal after growing to the limit)
``exited``         the program exited with code 0 without answering
``closed-stdout``  the program closed its standard output but kept running
``closed-stdin``   the program closed its standard input while input was still to come
``malformed-output``  the answer is not what the protocol expects (callers raise this one)
``output-too-long``   one line, or the whole output, beyond the runner's cap
=================  ===========================================================================

Platforms: Linux is tested. Other POSIX systems run programs the same way, but the memory
limit may not be enforced (macOS ignores ``RLIMIT_AS``); :attr:`ExternalProgram.notes` says
so, and so does every verdict that carries the notes. Windows lacks the pipes-with-selectors,
process groups and rlimits this runner relies on: :class:`ExternalProgram` raises
:class:`UnsupportedPlatform` there with a message saying so, never a silent half-measure.

Example:
    >>> import sys
    >>> with ExternalProgram([sys.executable, "-c", "print(input()[::-1])"]) as p:
    ...     p.send("olleh\\n", timeout=5)
    ...     p.read_line(timeout=5, reason="init-timeout")[0]
    'hello'
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Sequence

from puzzleproof import processes

if TYPE_CHECKING:
    from puzzleproof.clock import Deadline
    from puzzleproof.games.program import Program

__all__ = ["ExternalProgram", "ProgramEnded", "UnsupportedPlatform", "ExitInfo",
           "REASONS", "DEFAULT_MEMORY_LIMIT_MB", "STDERR_KEEP_BYTES", "MAX_LINE_BYTES",
           "answer", "parse_command", "launch", "start", "ProgramFailed"]

#: CodinGame's memory limit.
DEFAULT_MEMORY_LIMIT_MB = 768
#: How much of a program's stderr is kept (half from its start, half from its end).
STDERR_KEEP_BYTES = 64 * 1024
#: The longest line a program may write.
MAX_LINE_BYTES = 1 << 20
#: The most a program may write in all (a solver's whole answer).
MAX_OUTPUT_BYTES = 32 << 20
#: How long killed processes get between SIGTERM and SIGKILL.
KILL_GRACE_SECONDS = 0.2
#: How often a wait looks whether the program has exited.
_TICK = 0.02
#: How often a program whose pipes have shut is looked at until it can be reaped (it ends
#: within a millisecond or two of its SIGTERM; a whole tick there costs every game 20 ms).
_REAP_TICK = 0.001

REASONS = ("cannot-start", "init-timeout", "timeout", "crash", "memory-limit", "exited",
           "closed-stdout", "closed-stdin", "malformed-output", "output-too-long")

#: stderr text by which runtimes announce they ran out of memory
_MEMORY_MARKERS = (b"MemoryError", b"bad_alloc", b"out of memory", b"Out of memory",
                   b"Cannot allocate memory", b"failed to allocate", b"OutOfMemoryError",
                   b"memory allocation of", b"allocation failed")


class UnsupportedPlatform(RuntimeError):
    """This platform lacks what running an external program safely needs."""


class ProgramFailed(RuntimeError):
    """A judged program gave no answer: a harness method raises it and the harness records
    ERROR with this message (the human reason, ``crash: exit code 3``). ``is_verdict``
    marks it as a verdict on the program, not a fault of the harness."""

    is_verdict = True


class ProgramEnded(Exception):
    """The program's run ended early; ``reason`` is one of :data:`REASONS`."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


@dataclass
class ExitInfo:
    """How the program ended: its exit code (negative: the signal), its own peak resident
    memory (None where it could not be told apart from the judge it was forked from)."""

    returncode: int | None = None
    max_rss_mb: float | None = None
    killed_by_us: bool = False
    notes: list[str] = field(default_factory=list)


def parse_command(command: str | Sequence[str]) -> list[str]:
    """A command as a list of arguments; a string is split as a POSIX shell would."""
    if isinstance(command, str):
        import shlex
        parts = shlex.split(command)
    else:
        parts = [str(c) for c in command]
    if not parts:
        raise ValueError("an empty command")
    return parts


def _check_platform() -> list[str]:
    if os.name != "posix":
        raise UnsupportedPlatform(
            "running external programs needs a POSIX system (pipes with selectors, process "
            f"groups, rlimits); this is {sys.platform}. Linux is tested; run under WSL on "
            "Windows")
    notes = []
    if not sys.platform.startswith("linux"):
        notes.append(f"on {sys.platform} the memory limit may not be enforced (RLIMIT_AS); "
                     "only Linux is tested")
    return notes


class _StderrKeeper:
    """The first and the last ``keep // 2`` bytes of a stream, and its total length."""

    def __init__(self, keep: int) -> None:
        self.half = max(1, keep // 2)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.half:
                del self.tail[:len(self.tail) - self.half]

    def raw(self) -> bytes:
        return bytes(self.head) + bytes(self.tail)

    def text(self) -> str:
        cut = self.total - len(self.head) - len(self.tail)
        mid = f"\n[... {cut} bytes of stderr cut ...]\n" if cut > 0 else ""
        return (self.head.decode(errors="replace") + mid + self.tail.decode(errors="replace"))


class ExternalProgram:
    """One run of an external program (see the module docstring).

    Args:
        command: the program and its arguments (a string is split like a shell would).
        memory_limit: megabytes of address space (``RLIMIT_AS``) for the program and each of
            its children; ``None`` for no limit.
        stderr_keep: how many bytes of stderr to keep.
        cwd, env, pass_fds: as for :class:`subprocess.Popen`.

    Use as a context manager, or call :meth:`close` in a ``finally``; the program starts in
    the constructor.
    """

    def __init__(self, command: str | Sequence[str], *,
                 memory_limit: float | None = DEFAULT_MEMORY_LIMIT_MB,
                 stderr_keep: int = STDERR_KEEP_BYTES, cwd: str | None = None,
                 env: dict[str, str] | None = None, pass_fds: Sequence[int] = ()) -> None:
        self.notes = _check_platform()
        self.command = parse_command(command)
        self.memory_limit = memory_limit if memory_limit else None
        self.exit = ExitInfo(notes=self.notes)
        self._err = _StderrKeeper(stderr_keep)
        self._buf = bytearray()
        self._out_total = 0
        self._eof = False
        self._closed = False
        self._sel: selectors.BaseSelector | None = None
        self.proc: subprocess.Popen | None = None
        # a forked child starts as a copy of this process, and the kernel's peak-memory
        # figure for it (ru_maxrss) keeps that copy's size across exec: below this size it
        # says nothing about the program (a 600 MB judge made every crash look like 600 MB)
        own = _status_mb("self", "VmRSS")
        self._copy_mb = None if own is None else own * 1.05 + 8
        self._hwm_mb: float | None = None
        self._hwm_at = -1.0  # when it was last read (once a tenth of a second at most)
        try:
            self.proc, more_notes = launch(self.command, memory_limit=self.memory_limit,
                                           cwd=cwd, env=env, pass_fds=pass_fds, pipes=True)
        except ProgramEnded:
            self._closed = True
            raise
        self.notes.extend(n for n in more_notes if n not in self.notes)
        self.pid = self.proc.pid
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            os.set_blocking(f.fileno(), False)  # type: ignore[union-attr]
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ, "out")  # type: ignore
        self._sel.register(self.proc.stderr, selectors.EVENT_READ, "err")  # type: ignore

    # -- context manager ------------------------------------------------------------------
    def __enter__(self) -> "ExternalProgram":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- state ----------------------------------------------------------------------------
    @property
    def stderr(self) -> str:
        """What the program wrote to stderr so far (capped, with a marker where cut)."""
        if not self._closed:
            self._drain(0.0)
        return self._err.text()

    @property
    def stderr_bytes(self) -> int:
        return self._err.total

    def _reap(self, block: bool = False) -> bool:
        """Reap the program if it has exited; True once it has."""
        if self.exit.returncode is not None:
            return True
        try:
            pid, status, usage = os.wait4(self.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            self.exit.returncode = self.proc.returncode if self.proc.returncode is not None \
                else -1  # type: ignore[union-attr]
            return True
        if pid == 0:
            return False
        code = os.waitstatus_to_exitcode(status)
        self.exit.returncode = code
        self.proc.returncode = code  # type: ignore[union-attr]  (Popen must not wait again)
        # ru_maxrss: kilobytes on Linux, bytes on macOS
        scale = 1024 * 1024 if sys.platform == "darwin" else 1024
        peak = usage.ru_maxrss / scale
        if self._copy_mb is not None and peak <= self._copy_mb:
            peak = self._hwm_mb  # the copy's size: only what was seen while it ran counts
        self.exit.max_rss_mb = None if peak is None else round(peak, 1)
        return True

    def _note_peak(self, now: bool = False) -> None:
        """Remember the program's own peak memory so far (Linux: VmHWM, reset by exec); on
        the per-line path at most every 0.1 s (``now``: always)."""
        t = time.monotonic()
        if not now and t - self._hwm_at < 0.1:
            return
        self._hwm_at = t
        hwm = _status_mb(str(self.pid), "VmHWM")
        if hwm is not None and (self._hwm_mb is None or hwm > self._hwm_mb):
            self._hwm_mb = hwm

    def exited(self) -> bool:
        return self._reap(False)

    # -- I/O ------------------------------------------------------------------------------
    def _read_ready(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for output and take in what is there; True if any came."""
        if self._sel is None or not self._sel.get_map():
            if timeout > 0:
                time.sleep(timeout)
            return False
        got = False
        for key, _ in self._sel.select(max(0.0, timeout)):
            try:
                chunk = os.read(key.fileobj.fileno(), 65536)  # type: ignore[union-attr]
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            got = True
            if key.data == "err":
                if chunk:
                    self._err.add(chunk)
                else:
                    self._sel.unregister(key.fileobj)
            elif chunk:
                self._out_total += len(chunk)
                if self._out_total > MAX_OUTPUT_BYTES:
                    raise ProgramEnded("output-too-long",
                                       f"more than {MAX_OUTPUT_BYTES} bytes on stdout")
                self._buf += chunk
            else:
                self._eof = True
                self._sel.unregister(key.fileobj)
        return got

    def _drain(self, seconds: float) -> None:
        """Take in what is readily available (waiting up to ``seconds``; bounded). With both
        pipes shut nothing more can come: it only pauses a moment (callers wait in loops
        for the program to be reaped)."""
        if self._sel is None or not self._sel.get_map():
            time.sleep(min(max(0.0, seconds), _REAP_TICK))
            return
        end = time.monotonic() + seconds
        for _ in range(256):
            try:
                got = self._read_ready(max(0.0, min(_TICK, end - time.monotonic())))
            except ProgramEnded:
                return
            if (not got and time.monotonic() >= end) or not self._sel.get_map():
                return

    def send(self, text: str, timeout: float, reason: str = "timeout") -> None:
        """Write ``text`` within ``timeout`` seconds (the program must read its input)."""
        data = memoryview(text.encode())
        fd = self.proc.stdin.fileno()  # type: ignore[union-attr]
        deadline = time.monotonic() + timeout
        wsel = selectors.DefaultSelector()
        wsel.register(fd, selectors.EVENT_WRITE)
        try:
            while data:
                try:
                    data = data[os.write(fd, data):]
                    continue
                except BlockingIOError:
                    pass
                except BrokenPipeError:
                    self._ended_early("closed-stdin", "closed its input")
                left = deadline - time.monotonic()
                if left <= 0:
                    self._ended_early(reason, f"did not read its input within "
                                              f"{timeout * 1000:.0f} ms")
                wsel.select(min(left, _TICK))
                self._read_ready(0.0)  # keep stderr flowing while it reads
        finally:
            wsel.close()

    def close_input(self) -> None:
        """End the program's input (it reads end-of-file once it has read what was sent)."""
        try:
            self.proc.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass

    def read_line(self, timeout: float, reason: str = "timeout") -> tuple[str, float]:
        """The next line of output (without its newline) and the seconds it took; raises
        :class:`ProgramEnded` with ``reason`` when none comes within ``timeout``."""
        t0 = time.monotonic()
        deadline = t0 + timeout
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                self._note_peak()
                line = bytes(self._buf[:nl])
                del self._buf[:nl + 1]
                return line.decode(errors="replace").rstrip("\r"), time.monotonic() - t0
            if len(self._buf) > MAX_LINE_BYTES:
                raise ProgramEnded("output-too-long", f"a line longer than {MAX_LINE_BYTES} "
                                                      "bytes")
            if self._eof:
                if self._buf:  # a last line without its newline
                    line = bytes(self._buf)
                    self._buf.clear()
                    return line.decode(errors="replace").rstrip("\r"), time.monotonic() - t0
                self._ended_early("closed-stdout", "closed its output without answering")
            if self._reap(False):
                self._drain(0.05)
                if b"\n" in self._buf or self._eof:
                    continue
                self._ended_early("exited", "exited without answering")
            left = deadline - time.monotonic()
            if left <= 0:
                self._ended_early(reason, f"no answer within {timeout * 1000:.0f} ms")
            self._read_ready(min(left, _TICK * 5))

    def read_all(self, timeout: float) -> tuple[str, bool, float]:
        """Everything the program writes until it exits (or closes its output), for up to
        ``timeout`` seconds: ``(text, finished, seconds)``; ``finished`` is False when the
        limit was reached first (the text is what it had written by then)."""
        t0 = time.monotonic()
        deadline = t0 + timeout
        finished = False
        while True:
            self._note_peak()
            if self._eof or self._reap(False):
                end = time.monotonic() + 0.5  # output closed: it is normally exiting
                while not self._reap(False) and time.monotonic() < end:
                    self._drain(_TICK)
                self._drain(0.05)
                finished = True
                break
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._read_ready(min(left, _TICK * 5))
        text = bytes(self._buf).decode(errors="replace")
        self._buf.clear()
        return text, finished, time.monotonic() - t0

    # -- endings --------------------------------------------------------------------------
    def _ended_early(self, reason: str, what: str) -> None:
        """Raise the verdict for an early end; a program that has died is judged by how it
        died (crash, memory limit) rather than by the symptom (timeout, closed pipe)."""
        self._note_peak(now=True)
        if not self._reap(False) and reason in ("closed-stdout", "closed-stdin", "exited"):
            deadline = time.monotonic() + 0.3  # a closed pipe usually means it is exiting
            while time.monotonic() < deadline and not self._reap(False):
                self._drain(_TICK)
        if self.exit.returncode is None:
            if reason == "exited":
                reason = "closed-stdout"
            raise ProgramEnded(reason, what)
        self._drain(0.05)
        verdict = self.death_verdict()
        if verdict is None:
            raise ProgramEnded("exited" if reason in ("closed-stdout", "exited") else reason,
                               f"{what} (exit code 0)")
        raise ProgramEnded(*verdict)

    def death_verdict(self) -> tuple[str, str] | None:
        """``(reason, detail)`` for a program that died (crash or memory limit), None for a
        clean exit (code 0) or one still running."""
        code = self.exit.returncode
        if code is None or code == 0:
            return None
        raw = self._err.raw()
        tail = [ln for ln in raw.decode(errors="replace").strip().splitlines() if ln.strip()]
        last = f"; stderr: {tail[-1].strip()[:200]}" if tail else ""
        how = (f"killed by signal {_signame(-code)}" if code < 0 else f"exit code {code}")
        if self.memory_limit is not None:
            marker = any(mk in raw for mk in _MEMORY_MARKERS)
            grew = (code < 0 and self.exit.max_rss_mb is not None
                    and self.exit.max_rss_mb >= 0.5 * self.memory_limit)
            if marker or grew:
                return ("memory-limit", f"memory limit of {self.memory_limit:g} MB reached "
                                        f"({how}{last})")
        return "crash", f"{how}{last}"

    def close(self) -> ExitInfo:
        """Kill the program's whole process group and reap the program (idempotent)."""
        if self._closed:
            return self.exit
        self._closed = True
        try:
            self._kill_group()
        finally:
            for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):  # type: ignore
                try:
                    f.close()
                except OSError:
                    pass
            self._sel.close()
            self._sel = None
        return self.exit

    def _kill_group(self) -> None:
        running = not self._reap(False)
        if running:
            self.exit.killed_by_us = True
        # its descendants now, while their parent links still lead to it (one that leaves the
        # process group is found this way only)
        strays = processes.descendants(self.pid) if running else []
        try:
            os.killpg(self.pid, signal.SIGTERM)  # the group: the program and its children
        except (ProcessLookupError, PermissionError):
            pass
        end = time.monotonic() + KILL_GRACE_SECONDS
        while time.monotonic() < end and not self._reap(False):
            self._drain_quietly(_TICK)  # its last output, the EOF of its death
        # whatever ignored SIGTERM, children too, and descendants that left the group but are
        # still attached to the program; then off the guardian's list
        processes.kill_tree(self.pid, reaped=self.exit.returncode is not None, also=strays)
        self._reap(True)
        self._drain_quietly(0.0)

    def _drain_quietly(self, seconds: float) -> None:
        try:
            self._drain(seconds)
        except (OSError, ValueError):
            pass


def launch(argv: Sequence[str], *, memory_limit: float | None, cwd: str | None = None,
           env: Mapping[str, str] | None = None, pass_fds: Sequence[int] = (),
           pipes: bool = True) -> tuple[subprocess.Popen, list[str]]:
    """Start a judged program's process: the one place the package does so. It runs in a
    session of its own (so its own process group, which is what gets killed), with the
    memory limit and the parent-death signal set before exec, and its group listed with
    the guardian (which kills it if this process is killed, SIGKILL included). ``pipes``:
    stdin, stdout and stderr are pipes (else all three are closed). Returns the process and
    notes on what the platform could not enforce; :class:`ProgramEnded` (``cannot-start``)
    when it cannot start."""
    preexec, notes = processes.child_setup(memory_limit)
    io = subprocess.PIPE if pipes else subprocess.DEVNULL
    try:
        proc = subprocess.Popen(list(argv), stdin=io, stdout=io, stderr=io, bufsize=0,
                                start_new_session=True, preexec_fn=preexec, cwd=cwd,
                                env=None if env is None else dict(env),
                                pass_fds=tuple(pass_fds), close_fds=True)
    except (OSError, subprocess.SubprocessError) as exc:
        what = getattr(exc, "strerror", None) or str(exc)
        raise ProgramEnded("cannot-start", f"cannot start {argv[0]!r}: {what}") from None
    processes.guardian_register(proc.pid)
    return proc, notes


def start(program: "Program", *, argv: Sequence[str] | None = None,
          pass_fds: Sequence[int] = (), stderr_keep: int = STDERR_KEEP_BYTES
          ) -> ExternalProgram:
    """A run of ``program`` (its command, or ``argv`` in its place: the same program under
    a host such as the fork host), in its folder and environment, with its memory limit."""
    env = {**os.environ, **program.env} if program.env else None
    return ExternalProgram(argv or program.command, memory_limit=program.limits.memory_mb,
                           stderr_keep=stderr_keep, cwd=program.cwd, env=env,
                           pass_fds=pass_fds)


def _status_mb(pid: str, key: str) -> float | None:
    """A memory figure (``VmRSS``, ``VmHWM``) of ``/proc/PID/status`` in MB; None where
    there is none (not Linux, an exited process)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(key.encode() + b":"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _signame(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return str(sig)


@dataclass
class Completion:
    """What a run-to-completion program produced."""

    output: str
    finished: bool  # exited (or closed its output) within the limit
    seconds: float
    stderr: str
    verdict: tuple[str, str] | None  # (reason, detail) when it did not end cleanly
    exit: ExitInfo


def answer(program: "Program", stdin_text: str, deadline: "Deadline", *,
           close_input: bool = False, stderr_keep: int = STDERR_KEEP_BYTES) -> Completion:
    """Feed ``stdin_text`` to ``program`` and collect its output until it exits, within the
    task's ``deadline`` (a task without one: the program's first-answer limit). CodinGame-
    style solvers print every line, then exit, or wait for more input that never comes:
    both are read as complete at the limit, with the verdict ``timeout`` saying which. The
    program's stdin stays open, as on CodinGame, unless ``close_input`` (the input is then
    all there is: a program may read it to its end)."""
    t0 = time.monotonic()
    limit = deadline.left() if deadline.at is not None else program.limits.first
    try:
        prog = start(program, stderr_keep=stderr_keep)
    except ProgramEnded as end:
        return Completion("", False, 0.0, "", (end.reason, end.detail), ExitInfo())
    verdict: tuple[str, str] | None = None
    out = ""
    finished = False
    try:
        try:
            prog.send(stdin_text, limit, reason="timeout")
            if close_input:
                prog.close_input()
            left = max(0.0, limit - (time.monotonic() - t0))
            out, finished, _ = prog.read_all(left)
        except ProgramEnded as end:
            verdict = (end.reason, end.detail)
            out = bytes(prog._buf).decode(errors="replace")
        if verdict is None:
            if not finished:
                verdict = ("timeout", f"still running after {limit:g} s")
            elif prog.exit.returncode is not None:
                verdict = prog.death_verdict()
    finally:
        info = prog.close()
    return Completion(out, finished, time.monotonic() - t0, prog._err.text(), verdict, info)
