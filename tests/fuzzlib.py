"""Hostile inputs for every reader and every verb x puzzle, shared by ``tests/command/test_fuzz.py``
(short, deterministic) and ``benchmarks/fuzz.py`` (the long run before a release).

A *case* is a command (verb, puzzle, argument template), the files it reads (seeded from the
shipped instances, then mutated: truncation, byte flips, huge and negative numbers, wrong
JSON types, non-ASCII digits, deep nesting, duplicate keys...) and the exit codes it may
end with. :func:`run_case` runs it as a subprocess in a fresh folder with a timeout and
returns the problems found (empty: it held):

- the exit code is 0, 1 or 2 (and the command ended within the timeout);
- stderr holds no ``Traceback`` and no ``internal error``;
- an error (exit 2) is said on one line: ``puzzleproof: error: ...``, no more than one such
  line per input and no continuation lines;
- no ``-o`` output file is left half-written: no temporary files beside it, and what exists
  is whole (JSON parses, an SVG ends with ``</svg>``).
"""

from __future__ import annotations

import base64
import json
import random
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SEEDS = Path(__file__).resolve().parent / "fuzz_seeds"
CORPUS = Path(__file__).resolve().parent / "fuzz_corpus"

# -- seeds -------------------------------------------------------------------------------------

def _plugins():
    from puzzleproof import puzzles as registry

    return registry.all_puzzles()


#: Per puzzle, the instance files mutated (relative to the project; ``shared/`` to
#: ../shared): the plugin's samples, so a new puzzle is fuzzed without editing this file.
INSTANCE_SEEDS = {p.name: list(p.reader.samples.get("instances", [])) for p in _plugins()}

#: Per puzzle, the answer a check reads for its instance (None: the answer carries it).
ANSWER_SEEDS = {p.name: tuple(p.reader.samples.get("check", [[None, None]])[0])
                for p in _plugins() if p.reader.samples.get("check")}

#: Inline seeds beside the shipped files (formats no shipped file is written in).
_INLINE = {
    "@hashi-json": ('{"type": "hashi", "width": 5, "height": 3, "max_bridges": 2,\n'
                    ' "grid": ["2.3.1", ".....", "1.3.2"], "name": "inline"}\n', "p.json"),
    "@hashi-jsonl": ('{"width": 3, "height": 1, "grid": ["2.2"]}\n'
                     '{"islands": [[0, 0, 1], [0, 2, 1]], "width": 1, "height": 3, '
                     '"max_bridges": 2}\n', "set.jsonl"),
    "@skynet-json": ('{"type": "skynet", "nodes": 4, "links": [[0, 1], [0, 2], [1, 3], '
                     '[2, 3]],\n "gateways": [3], "start": 0, "coords": [[0, 0], [1, 0], '
                     '[0, 1], [1, 1]]}\n', "map.json"),
    "@cityclose-edges": ("# cityclose tiny\na b\nb c\nc d\nd a\na c\n", "tiny.txt"),
}


for _name, _puzzle in (("@hashi-json", "hashi"), ("@hashi-jsonl", "hashi"),
                      ("@skynet-json", "skynet"), ("@cityclose-edges", "cityclose")):
    if _puzzle in INSTANCE_SEEDS:
        INSTANCE_SEEDS[_puzzle].append(_name)


def seed_path(rel: str) -> Path | None:
    if rel.startswith("shared/"):
        p = SHARED / "instances" / rel[len("shared/"):]
    elif rel.startswith("seeds/"):
        p = SEEDS / rel[len("seeds/"):]
    elif rel.startswith("/"):
        p = Path(rel)
    else:
        p = ROOT / rel
    return p if p.is_file() else None


def seed_text(rel: str) -> tuple[str, str] | None:
    """``(text, file name)`` of a seed, or None when it is absent (../shared missing)."""
    if rel in _INLINE:
        return _INLINE[rel]
    p = seed_path(rel)
    if p is None:
        return None
    return p.read_text(encoding="utf-8"), p.name


def available_seeds(puzzle: str) -> list[str]:
    return [s for s in INSTANCE_SEEDS[puzzle] if seed_text(s) is not None]


# -- mutations ---------------------------------------------------------------------------------

_NUM = re.compile(r"-?\d+(?:\.\d+)?")
_BAD_DIGITS = ["²", "٢", "５", "١٢", "𝟚"]
_HUGE = ["1" + "0" * 30, "9" * 5000, "1e999", "-1e999", "1000000000", "-1", "-2147483649",
         "0", "inf", "nan", "NaN", "Infinity", "2.5", "1e3", "0x10", "true", "+7", "007"]
_JSON_VALUES = ["[]", "{}", '"3"', "true", "false", "null", "2.5", "-1", "1e999",
                "1" + "0" * 40, '[1, 2, 3]', '{"a": 1}', '"\\u0000"', '"٣"']


def _numbers(text: str) -> list[re.Match]:
    return list(_NUM.finditer(text))


def m_truncate(text: str, rnd: random.Random) -> str:
    return text[:rnd.randrange(len(text) + 1)] if text else text


def m_byte_flip(text: str, rnd: random.Random) -> str:
    if not text:
        return "\x00"
    i = rnd.randrange(len(text))
    ch = rnd.choice(["\x00", "\xff", "\udcff", "\n", " ", "{", "]", '"', "-", "9", ".", ",", "é",
                     chr(rnd.randrange(32, 127))])
    return text[:i] + ch + text[i + 1:]


def m_huge_number(text: str, rnd: random.Random) -> str:
    nums = _numbers(text)
    if not nums:
        return text + " " + rnd.choice(_HUGE)
    m = rnd.choice(nums)
    return text[:m.start()] + rnd.choice(_HUGE) + text[m.end():]


def m_negative(text: str, rnd: random.Random) -> str:
    nums = _numbers(text)
    if not nums:
        return text
    m = rnd.choice(nums)
    return text[:m.start()] + "-" + m.group().lstrip("-") + text[m.end():]


def m_non_ascii_digit(text: str, rnd: random.Random) -> str:
    idx = [i for i, ch in enumerate(text) if ch.isascii() and ch.isdigit()]
    if not idx:
        return text + rnd.choice(_BAD_DIGITS)
    i = rnd.choice(idx)
    return text[:i] + rnd.choice(_BAD_DIGITS) + text[i + 1:]


def m_wrong_json_type(text: str, rnd: random.Random) -> str:
    """Replace one JSON value (a number, string, list or literal) by one of another type."""
    spans = [m.span() for m in re.finditer(r'-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*"'
                                           r'|true|false|null|\[[^\[\]]*\]', text)]
    # keep keys: a string followed by ':' is a key
    spans = [(a, b) for a, b in spans if not text[b:b + 3].lstrip().startswith(":")]
    if not spans:
        return text
    a, b = rnd.choice(spans)
    return text[:a] + rnd.choice(_JSON_VALUES) + text[b:]


def m_deep_nesting(text: str, rnd: random.Random) -> str:
    depth = rnd.choice([50, 2000, 100_000])
    inner = rnd.choice(["[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth])
    s = text.lstrip()
    if s.startswith("{") and rnd.random() < 0.7:
        k = s.index("{") + 1
        return s[:k] + f'"deep": {inner}, ' + s[k:]
    return inner


def m_duplicate_key(text: str, rnd: random.Random) -> str:
    keys = list(re.finditer(r'"([^"\\]{1,40})"\s*:\s*', text))
    if not keys:
        return text
    m = rnd.choice(keys)
    return text[:m.start()] + f'"{m.group(1)}": {rnd.choice(_JSON_VALUES)}, ' + text[m.start():]


def m_drop_line(text: str, rnd: random.Random) -> str:
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    del lines[rnd.randrange(len(lines))]
    return "".join(lines)


def m_repeat_line(text: str, rnd: random.Random) -> str:
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    i = rnd.randrange(len(lines))
    return "".join(lines[:i + 1] + lines[i:i + 1] * rnd.choice([1, 2, 50]) + lines[i + 1:])


def m_bom_crlf(text: str, rnd: random.Random) -> str:
    return rnd.choice(["\ufeff" + text, text.replace("\n", "\r\n"), text.replace("\n", "\r"),
                       text + "\n\n\n", "  " + text.replace("\n", " \t\n")])


def m_empty(text: str, rnd: random.Random) -> str:
    return rnd.choice(["", " ", "\n", "{}", "[]", "null", "0", "-", "\ufeff"])


MUTATORS = {f.__name__[2:]: f for f in (
    m_truncate, m_byte_flip, m_huge_number, m_negative, m_non_ascii_digit, m_wrong_json_type,
    m_deep_nesting, m_duplicate_key, m_drop_line, m_repeat_line, m_bom_crlf, m_empty)}


def mutate(text: str, names: list[str], seed: int) -> str:
    rnd = random.Random(seed)
    for name in names:
        text = MUTATORS[name](text, rnd)
    return text


# -- commands ----------------------------------------------------------------------------------

def _template(plugin, verb: str) -> list[str] | None:
    """The argument template of a verb of a puzzle (``{in}`` the instance, ``{ans}`` the
    answer), from the puzzle's spec of that verb: every verb of every puzzle is fuzzed."""
    spec = getattr(plugin, verb, None)
    if spec is None:
        return None
    names = {o.name for o in spec.options}
    limit = ["--time-limit", "2"] if "time_limit" in names else []
    name = plugin.name
    if verb == "solve":
        return ["solve", name, "{in}", *limit, "-q"]
    if verb == "check":
        return ["check", name, *(["{in}"] if spec.nargs[0] >= 2 else []), "{ans}", *limit]
    if verb == "render":
        return ["render", name, "{in}", "-o", "out.svg" if "svg" in spec.kinds else "out.txt"]
    if verb == "crosscheck":
        return ["crosscheck", name, "{in}", *limit, "-q", "-j", "1", "-o", "out.jsonl"]
    if verb == "convert":
        fmt = "json" if "json" in spec.formats else spec.formats[0]
        return ["convert", name, "{in}", "--format", fmt, "-o", f"out.{fmt}"]
    return None


#: Argument templates per (verb, puzzle), from the registry.
COMMANDS: dict[tuple[str, str], list[str]] = {
    (verb, p.name): t for p in _plugins()
    for verb in ("solve", "check", "render", "crosscheck", "convert")
    for t in [_template(p, verb)] if t is not None
    and (verb != "check" or p.name in ANSWER_SEEDS) and INSTANCE_SEEDS.get(p.name)}

#: Seconds a run may take before it counts as a hang (start-up included).
TIMEOUT = 60.0


@dataclass
class Case:
    """One run: the command, the files it reads (name -> text or bytes) and the exit codes
    allowed (``0, 1, 2`` for a fuzzed input; a corpus case may pin one)."""

    verb: str
    puzzle: str
    files: dict[str, str | bytes]
    args: list[str] | None = None
    expect: tuple[int, ...] = (0, 1, 2)
    name: str = ""
    note: str = ""
    timeout: float = TIMEOUT
    mutated: str = field(default="in")

    def argv(self) -> list[str]:
        template = self.args or COMMANDS[(self.verb, self.puzzle)]
        names = {"in": self.files_named("in"), "ans": self.files_named("ans")}
        return [names.get(a[1:-1], a) if a in ("{in}", "{ans}") else a for a in template]

    def files_named(self, role: str) -> str:
        for n in self.files:
            if n.split(".", 1)[0] == role:
                return n
        return role

    # -- the corpus ----------------------------------------------------------------------------
    def to_json(self) -> str:
        files = {}
        for n, body in self.files.items():
            if isinstance(body, bytes):
                files[n] = {"base64": base64.b64encode(body).decode()}
            else:
                files[n] = {"text": body}
        return json.dumps({"verb": self.verb, "puzzle": self.puzzle, "args": self.argv(),
                           "expect": list(self.expect), "note": self.note, "files": files},
                          indent=1, ensure_ascii=True) + "\n"

    @classmethod
    def from_json(cls, text: str, name: str = "") -> "Case":
        obj = json.loads(text)
        files = {n: (base64.b64decode(v["base64"]) if "base64" in v else v["text"])
                 for n, v in obj["files"].items()}
        return cls(obj["verb"], obj["puzzle"], files, obj["args"], tuple(obj["expect"]), name,
                   obj.get("note", ""))


def make_case(verb: str, puzzle: str, seed_rel: str, mutators: list[str], seed: int,
              target: str = "in") -> Case | None:
    """A case from a seed instance, its ``target`` file (``in`` or ``ans``) mutated."""
    files: dict[str, str | bytes] = {}
    if verb == "check":
        inst_rel, ans_rel = ANSWER_SEEDS[puzzle]
        if inst_rel is not None:
            got = seed_text(inst_rel)
            if got is None:
                return None
            files["in" + Path(got[1]).suffix] = got[0]
        got_ans = seed_text(ans_rel)
        if got_ans is None:
            return None
        files["ans" + "".join(Path(got_ans[1]).suffixes[-1:])] = got_ans[0]
        if inst_rel is None:
            target = "ans"
    else:
        got = seed_text(seed_rel)
        if got is None:
            return None
        files["in" + Path(got[1]).suffix] = got[0]
    for n in list(files):
        if n.split(".", 1)[0] == target:
            files[n] = mutate(files[n], mutators, seed)  # type: ignore[arg-type]
    return Case(verb, puzzle, files, mutated=target,
                note=f"{seed_rel if verb != 'check' else ANSWER_SEEDS[puzzle][1]} "
                     f"{target} {'+'.join(mutators)} seed {seed}")


def _write(folder: Path, name: str, body: str | bytes) -> None:
    if isinstance(body, bytes):
        (folder / name).write_bytes(body)
    else:
        # surrogates cannot be encoded: write them as the bytes a broken editor would
        (folder / name).write_bytes(body.encode("utf-8", "surrogateescape"))


#: The most memory a run may use on hostile input (its peak resident set), in MB.
MAX_MB = 1024


#: A small launcher between the test and the run. Linux keeps a process's peak memory
#: (``ru_maxrss``) across fork and exec, so a run started straight from a large pytest
#: process would report pytest's size as its own; forked from this small launcher, the
#: run's figure is its own. The launcher writes it to the file it is given.
_LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
if os.WIFSIGNALED(status):  # die as the run died, so the test sees the same status
    import signal
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _run(argv: list[str], cwd: Path, timeout: float) -> tuple[int | None, str, str, float]:
    """Run ``argv``; ``(exit code or None on a timeout, stdout, stderr, peak MB)``. The
    process group is killed at the timeout; the peak is the run's own (see ``_LAUNCHER``)."""
    import os
    import signal
    import tempfile
    import threading

    fd, peak_file = tempfile.mkstemp(prefix="fuzz-peak-")
    os.close(fd)
    proc = subprocess.Popen([sys.executable, "-I", "-c", _LAUNCHER, peak_file, *argv],
                            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    got: dict[str, bytes] = {}
    readers = [threading.Thread(target=lambda k=k, f=f: got.__setitem__(k, f.read()))
               for k, f in (("out", proc.stdout), ("err", proc.stderr))]
    for t in readers:
        t.start()
    end = time.monotonic() + timeout
    status = None
    while status is None:
        pid, st, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            status = st
        elif time.monotonic() > end:
            os.killpg(proc.pid, signal.SIGKILL)
            os.wait4(proc.pid, 0)
            status = None
            break
        else:
            time.sleep(0.02)
    proc.returncode = 0 if status is None else os.waitstatus_to_exitcode(status)
    for t in readers:
        t.join(10)
    out = got.get("out", b"").decode("utf-8", "replace")
    err = got.get("err", b"").decode("utf-8", "replace")
    try:
        peak = int(Path(peak_file).read_text() or 0) / 1024
    except (OSError, ValueError):
        peak = 0.0  # killed at the timeout: the timeout is the finding
    Path(peak_file).unlink(missing_ok=True)
    return (None if status is None else proc.returncode), out, err, peak


@dataclass
class Outcome:
    code: int | None
    seconds: float
    stdout: str
    stderr: str
    problems: list[str]


def run_case(case: Case, folder: Path) -> Outcome:
    """Run ``case`` in ``folder`` (made empty by the caller); return what went wrong."""
    folder.mkdir(parents=True, exist_ok=True)
    for n, body in case.files.items():
        _write(folder, n, body)
    argv = [sys.executable, "-m", "puzzleproof", *case.argv()]
    t0 = time.monotonic()
    problems: list[str] = []
    code, out, err, peak_mb = _run(argv, folder, case.timeout)
    if code is None:
        problems.append(f"did not end within {case.timeout:g} s")
    if peak_mb > MAX_MB:
        problems.append(f"used {peak_mb:,.0f} MB, above {MAX_MB} MB")
    seconds = time.monotonic() - t0
    if code is not None and code not in case.expect:
        problems.append(f"exit {code}, expected {'/'.join(map(str, case.expect))}")
    if "Traceback" in err:
        problems.append("a traceback on stderr")
    if "internal error" in err:
        problems.append("an internal error: " + next(
            (ln for ln in err.splitlines() if "internal error" in ln), "")[:300])
    if code == 2:
        problems += _one_line_error(err)
    problems += _outputs_whole(folder, case)
    return Outcome(code, seconds, out, err, problems)


def _one_line_error(err: str) -> list[str]:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln.lower()]
    if not errors:
        return ["exit 2 without an error message"]
    if any(len(ln) > 2000 for ln in errors):
        return ["an error message of more than 2000 characters"]
    # click's usage errors are 'Usage: ...', 'Try ...', 'Error: ...'; ours one line
    ours = [ln for ln in lines if ln.startswith("puzzleproof: error:")]
    if ours and len(lines) > 3 * len(ours) + 2:
        return [f"an error message spread over {len(lines)} lines"]
    return []


def _outputs_whole(folder: Path, case: Case) -> list[str]:
    problems = []
    inputs = set(case.files)
    for p in folder.iterdir():
        if p.name in inputs:
            continue
        if p.name.startswith(".") and p.name.endswith(".tmp"):
            problems.append(f"a temporary file left behind: {p.name}")
            continue
        if not p.is_file():
            continue
        data = p.read_bytes()
        if not data:
            problems.append(f"an empty output file: {p.name}")
        elif p.suffix == ".svg" and not data.rstrip().endswith(b"</svg>"):
            problems.append(f"a half-written picture: {p.name}")
        elif p.suffix == ".json":
            try:
                json.loads(data)
            except ValueError:
                problems.append(f"a half-written JSON file: {p.name}")
        elif p.suffix == ".jsonl":
            for k, ln in enumerate(data.splitlines()):
                try:
                    json.loads(ln)
                except ValueError:
                    problems.append(f"{p.name} line {k + 1} is not whole JSON")
                    break
    return problems


def corpus_cases() -> list[tuple[str, Case]]:
    return [(p.stem, Case.from_json(p.read_text(encoding="utf-8"), p.stem))
            for p in sorted(CORPUS.glob("*.json"))]
