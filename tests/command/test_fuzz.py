"""Hostile input, fuzzed: every reader in process (many examples, fast), every verb x puzzle
in a subprocess with a timeout (a few examples each, deterministic), and the corpus of cases
that once failed (``tests/fuzz_corpus/``), replayed on every run.

Each run must end with exit 0, 1 or 2, within its timeout, with no traceback and no
"internal error", an error on one line, and no half-written output file (see
:mod:`fuzzlib`). ``benchmarks/fuzz.py --minutes N`` is the long run of the same cases.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests import fuzzlib
from tests.conftest import ROOT, shared_path  # noqa: E402

from puzzleproof import puzzles as registry  # noqa: E402
from puzzleproof.errors import InputError  # noqa: E402
from puzzleproof.formats import cityclose as cfmt  # noqa: E402
from puzzleproof.formats import deathrun as dfmt  # noqa: E402
from puzzleproof.formats import hashi as hfmt  # noqa: E402
from puzzleproof.formats import skynet as sfmt  # noqa: E402
from puzzleproof.formats.numbers import (SIZE_ENV, check_size, json_int, load_json,  # noqa: E402
                                         parse_float, parse_int)

PUZZLES = ("hashi", "skynet", "cityclose", "deathrun")


def _seeds(puzzle: str) -> list[str]:
    if any(s.startswith("shared/") for s in fuzzlib.INSTANCE_SEEDS[puzzle]):
        shared_path("instances")  # skip (or fail under CI) without ../shared
    seeds = fuzzlib.available_seeds(puzzle)
    assert seeds, f"no seed instance of {puzzle}"
    return seeds


def _all_seed_texts() -> list[str]:
    texts = []
    for p in PUZZLES:
        for s in fuzzlib.available_seeds(p):
            texts.append(fuzzlib.seed_text(s)[0])  # type: ignore[index]
    for _, ans in fuzzlib.ANSWER_SEEDS.values():
        got = fuzzlib.seed_text(ans)
        if got:
            texts.append(got[0])
    return texts


mutations = st.lists(st.sampled_from(sorted(fuzzlib.MUTATORS)), min_size=1, max_size=3)

# -- the strict number helper --------------------------------------------------------------------


class TestNumbers:
    @pytest.mark.parametrize("token", ["²", "٢", "1²", "１", "1e999", "inf", "nan", "2.5",
                                       "0x10", "", " 1", "1_000", "9" * 31, "--1", "true"])
    def test_parse_int_refuses(self, token):
        with pytest.raises(InputError, match="expected the width") as info:
            parse_int(token, "the width", source="p.txt", line=3, col=4)
        assert (info.value.source, info.value.line, info.value.col) == ("p.txt", 3, 4)

    def test_parse_int_range_and_digits(self):
        assert parse_int("+007", "x") == 7 and parse_int("-3", "x") == -3
        with pytest.raises(InputError, match=r"expected N in 1\.\.500, found 501"):
            parse_int("501", "N", 1, 500)
        with pytest.raises(InputError, match="at most 30 digits"):
            parse_int("9" * 5000, "N")  # never the 4,300-digit conversion

    @pytest.mark.parametrize("token", ["1e999", "inf", "-inf", "nan", "١.٥", "1.2.3", "e5"])
    def test_parse_float_refuses(self, token):
        with pytest.raises(InputError):
            parse_float(token, "x")
        assert parse_float("-1.5e2", "x") == -150.0

    @pytest.mark.parametrize("value", [True, False, 2.0, 2.5, "2", None, [2]])
    def test_json_int_refuses_coercions(self, value):
        with pytest.raises(InputError, match="an integer"):
            json_int(value, "'max_bridges'", 1, 4)

    @pytest.mark.parametrize("text, what", [
        ('{"a": 1, "a": 2}', 'the key "a" appears twice'),
        ('{"a": 1e999}', "out of range"),
        ('{"a": NaN}', "NaN is not a number"),
        ('{"a": -Infinity}', "Infinity is not a number"),
        ('[' + "9" * 5000 + ']', "5000 digits"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"a": ', "invalid JSON"),
    ])
    def test_load_json_refuses(self, text, what):
        with pytest.raises(InputError, match=what) as info:
            load_json(text, "f.json")
        assert info.value.source == "f.json" and "\n" not in str(info.value)

    def test_duplicate_key_names_its_line(self):
        with pytest.raises(InputError) as info:
            load_json('{"w": 1,\n "h": 2,\n "w": 3}', "f.json")
        assert info.value.line == 3

    def test_size_limits_and_their_factor(self, monkeypatch):
        monkeypatch.delenv(SIZE_ENV, raising=False)
        with pytest.raises(InputError, match="above the limit of 500.*--max-size"):
            check_size(501, 500, "N (nodes)")
        monkeypatch.setenv(SIZE_ENV, "2")
        assert check_size(1000, 500, "N (nodes)") == 1000
        monkeypatch.setenv(SIZE_ENV, "lots")
        with pytest.raises(InputError, match=SIZE_ENV):
            check_size(1, 500, "N")

    def test_a_bad_size_factor_in_the_environment_is_one_line(self):
        """Said once by the command (exit 2), not first as a puzzle plugin that cannot be
        loaded: importing a plugin reads no limit."""
        import os

        env = {**os.environ, SIZE_ENV: "abc"}
        for arg in ("instances/hashi/small-5x5.txt", "instances/cityclose/ring14-s1-0.json"):
            done = subprocess.run([sys.executable, "-m", "puzzleproof", "solve", arg],
                                  capture_output=True, text=True, env=env, cwd=ROOT,
                                  timeout=120)
            assert done.returncode == 2, done.stderr
            assert done.stderr.strip().splitlines() == [
                f"puzzleproof: error: {SIZE_ENV}='abc': expected a factor, a number >= 1"]


# -- the issue's items, one by one ---------------------------------------------------------------


class TestIssueItems:
    def test_non_ascii_digits_are_refused_where_they_are(self):
        for text in ("2\n2\n2²\n..\n", "2\n2\n2\u0662\n..\n", "\u0662\n2\n2.\n.2\n"):
            with pytest.raises(InputError) as info:
                hfmt.read_puzzles(text, "p.txt")
            assert info.value.source == "p.txt" and info.value.line is not None
        with pytest.raises(InputError, match="'٢'"):
            sfmt.read_map("4 3 1\n0 1\n1 \u0662\n2 3\n3\n0\n", "m.txt")
        with pytest.raises(InputError):
            hfmt.read_puzzles("3x3m\u0662:a", "<argument>")

    def test_huge_declared_sizes_are_refused_before_allocation(self):
        cases = [("1000000000000000000000000000000x5m2:a", "width"),
                 ("300x1m2:" + "z" * 11 + "k", "the width is 300, above the limit of 200"),
                 ("p?hashi/5000/2/g", "above the limit"),
                 ("5000\n2\n..\n..\n", "above the limit"),
                 ("2 100000 1\n", "above the limit")]
        for text, what in cases:
            with pytest.raises(InputError, match=what):
                hfmt.read_puzzles(text, "p")
        with pytest.raises(InputError, match=r"N \(nodes\) is 1000000000, above the limit of "
                                             r"500.*--max-size") as info:
            sfmt.read_map("1000000000 1 1\n0 1\n1\n0\n", "m.txt")
        assert (info.value.line, info.value.col) == (1, 1)
        with pytest.raises(InputError, match=r"L \(links\) is 1001"):
            sfmt.read_map("10 1001 1\n", "m.txt")
        with pytest.raises(InputError, match=r"E \(gateways\) is 21"):
            sfmt.read_map("30 1 21\n", "m.txt")

    @pytest.mark.slow
    def test_max_size_lifts_the_limits(self, tmp_path):
        import subprocess

        (tmp_path / "wide.txt").write_text("300x1m2:" + "z" * 11 + "i2b2a")
        argv = [sys.executable, "-m", "puzzleproof", "convert", "hashi", "wide.txt",
                "--format", "json"]
        env = {k: v for k, v in os.environ.items() if k != SIZE_ENV}
        refused = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, env=env,
                                 timeout=60)
        assert refused.returncode == 2 and "--max-size" in refused.stderr
        lifted = subprocess.run([*argv[:3], "--max-size", "2", *argv[3:]], cwd=tmp_path,
                                capture_output=True, text=True, env=env, timeout=60)
        assert lifted.returncode == 0, lifted.stderr
        assert json.loads(lifted.stdout)["width"] == 300
        by_env = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True,
                                env={**env, SIZE_ENV: "2"}, timeout=60)
        assert by_env.returncode == 0, by_env.stderr

    def test_max_size_lifts_city_closing_and_death_run_limits(self, monkeypatch):
        from puzzleproof.formats import cityclose as cfmt
        from puzzleproof.formats import deathrun as dfmt

        path = "".join(f"c{k} c{k + 1}\n" for k in range(5000))  # 5,001 cities
        far = json.dumps({"edges": [[0, 150000, 1]], "begin": 0, "ends": [150000]})
        monkeypatch.delenv(SIZE_ENV, raising=False)
        with pytest.raises(InputError, match=r"cities is 5,001, above the limit of 5,000.*"
                                             r"--max-size"):
            cfmt.read_map(path, "long.txt", fmt="edges")
        with pytest.raises(InputError, match=r"0\.\.99999"):
            dfmt.read_graph(far, "far.json")
        monkeypatch.setenv(SIZE_ENV, "2")
        assert cfmt.read_map(path, "long.txt", fmt="edges").n == 5001
        assert 150000 in dfmt.read_graph(far, "far.json").ends

    def test_silent_coercions_are_errors(self):
        for obj, what in (({"max_bridges": True}, "'max_bridges'"),
                          ({"max_bridges": 1.5}, "'max_bridges'"),
                          ({"width": 2.5}, "'width'"),
                          ({"width": "2"}, "'width'")):
            text = json.dumps({"width": 2, "height": 2, "grid": ["1.", "1."], **obj})
            with pytest.raises(InputError, match=what):
                hfmt.read_puzzles(text, "p.json")
        with pytest.raises(InputError, match="y"):
            hfmt.read_puzzles('{"islands": [[0, 0, 2], [0, 1.0, 2]], "width": 1, '
                              '"height": 2}', "p.json")
        with pytest.raises(InputError, match="integers"):
            hfmt.read_solution("[[0, 0, 0, 1, true]]", "s.json")
        with pytest.raises(InputError, match="'nodes'"):
            sfmt.read_map('{"nodes": 4.0, "links": [[0, 1]], "gateways": [1]}', "m.json")

    def test_skynet_errors_point_at_the_offending_line(self):
        cases = [("4 3 1\n0 1\n1 2\n2 3\n9\n0\n", 5, "gateway 9 out of range"),
                 ("4 3 1\n0 1\n1 1\n2 3\n3\n0\n", 3, "joins a node to itself"),
                 ("4 3 1\n0 1\n0 1\n2 3\n3\n0\n", 3, "appears twice"),
                 ("4 3 1\n0 7\n1 2\n2 3\n3\n0\n", 2, "node 7 out of range"),
                 ("4 3 2\n0 1\n1 2\n2 3\n3\n3\n0\n", 6, "listed twice"),
                 ("4 3 1\n0 1\n1 2\n2 3\n3\n3\n", 6, "starts on gateway 3"),
                 ("4 3 1\n0 1\n1 2\n2 3\n3\n7\n", 6, "start 7 out of range")]
        for text, line, what in cases:
            with pytest.raises(InputError, match=what) as info:
                sfmt.read_map(text, "m.txt")
            assert (info.value.source, info.value.line) == ("m.txt", line), text

    def test_game_record_without_map_is_an_error(self):
        for text in ('{"type": "skynet-game"}', '{"type": "skynet-game", "map": 5}'):
            with pytest.raises(InputError, match="map") as info:
                sfmt.read_map(text, "g.json")
            assert info.value.source == "g.json"
            with pytest.raises(InputError):
                sfmt.record_from_json(text, "g.json")

    def test_malformed_certificates_are_exit_2_material(self):
        path = fuzzlib.seed_path("seeds/skynet-01.strategy.json")
        good = json.loads(path.read_text())
        m = sfmt.read_map(json.dumps(good["map"]))
        assert sfmt.read_strategy(json.dumps(good), "s.json", m)["type"] == good["type"]
        root = good["root"]
        for field, value in (("cut", "35"), ("cut", [3]), ("cut", [3.0, 5]), ("cut", [True, 5]),
                             ("cut", [35, 5]), ("next", [1, 2]), ("agent", "0")):
            bad = json.loads(json.dumps(good))
            bad["nodes"][root][field] = value
            with pytest.raises(InputError, match=field) as info:
                sfmt.read_strategy(json.dumps(bad), "s.json", m)
            assert info.value.source == "s.json"
        for key, value in (("root", [1]), ("nodes", []), ("start", "0"), ("rule", ["ep1"]),
                           ("map", 5)):
            bad = {**good, key: value}
            with pytest.raises(InputError, match=key):
                sfmt.read_strategy(json.dumps(bad), "s.json", m)

    def test_explicit_solver_on_a_contained_start(self):
        from puzzleproof.result import Status
        from puzzleproof.encoders.skynet_explicit import solve

        m = sfmt.read_map("5 3 1\n1 2\n3 4\n0 3\n2\n0\n")  # 0 is cut off from gateway 2
        for rule in ("ep1", "ep2"):
            for value in (False, True):
                res = solve(m, rule, 0, value=value)
                assert res.status == Status.WIN, (rule, value, res)

    def test_render_skynet_large_map_needs_no_scipy(self):
        n = 520
        text = f"{n} {n - 1} 1\n" + "".join(f"{i - 1} {i}\n" for i in range(1, n)) + \
            f"{n - 1}\n0\n"
        os.environ[SIZE_ENV] = "2"
        try:
            m = sfmt.read_map(text, "big.txt")
        finally:
            del os.environ[SIZE_ENV]
        svg = sfmt.render_svg(m)
        assert svg.rstrip().endswith("</svg>") and svg.count("<circle") == n - 1


# -- every reader, in process ----------------------------------------------------------------------

READERS = [
    ("classify", lambda t: registry.classify_text(t, "in.txt")),
    ("classify-json", lambda t: registry.classify_text(t, "in.json")),
    ("hashi", lambda t: hfmt.read_puzzles(t, "in.txt")),
    ("hashi-solution", lambda t: hfmt.read_solution(t, "ans.sol")),
    ("skynet", lambda t: sfmt.read_map(t, "in.txt")),
    ("skynet-record", lambda t: sfmt.record_from_json(t, "g.json")),
    ("skynet-strategy", lambda t: sfmt.read_strategy(t, "s.json")),
    ("cityclose", lambda t: cfmt.read_map(t, "in.txt")),
    ("cityclose-order", lambda t: cfmt.read_order(t, "o.json")),
    ("deathrun", lambda t: dfmt.read_graph(t, "in.json")),
    ("deathrun-record", lambda t: dfmt.read_records(t, "r.json")),
]


@pytest.mark.slow
@pytest.mark.parametrize("reader", [r for r in READERS], ids=[r[0] for r in READERS])
@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_readers_raise_only_input_errors(reader, data):
    texts = _all_seed_texts()
    text = data.draw(st.sampled_from(texts), label="seed")
    names = data.draw(mutations, label="mutations")
    seed = data.draw(st.integers(0, 2**32), label="seed number")
    mutated = fuzzlib.mutate(text, names, seed)
    try:
        reader[1](mutated)
    except InputError as exc:
        msg = str(exc)
        assert "\n" not in msg.strip(), msg
        assert len(msg) < 2000
    # anything else (KeyError, ValueError, RecursionError...) fails the test


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.text(max_size=200))
def test_classify_random_text(text):
    try:
        registry.classify_text(text, "x.txt")
    except InputError:
        pass


# -- every verb x puzzle, in a subprocess ----------------------------------------------------------

#: Examples per verb x puzzle: the whole file stays under ~3 minutes on 2 cores.
SUBPROCESS_EXAMPLES = int(os.environ.get("PUZZLEPROOF_FUZZ_EXAMPLES", "4"))


@pytest.mark.slow
@pytest.mark.parametrize("verb, puzzle", sorted(fuzzlib.COMMANDS),
                         ids=[f"{v}-{p}" for v, p in sorted(fuzzlib.COMMANDS)])
def test_verbs_on_mutated_inputs(verb, puzzle, tmp_path_factory):
    seeds = _seeds(puzzle)

    @settings(max_examples=SUBPROCESS_EXAMPLES, deadline=None, derandomize=True,
              database=None, suppress_health_check=list(HealthCheck))
    @given(seed_rel=st.sampled_from(seeds), names=mutations, seed=st.integers(0, 2**32),
           target=st.sampled_from(["in", "ans"]))
    def run(seed_rel, names, seed, target):
        case = fuzzlib.make_case(verb, puzzle, seed_rel, names, seed,
                                 target if verb == "check" else "in")
        assert case is not None
        case.timeout = 90.0
        out = fuzzlib.run_case(case, tmp_path_factory.mktemp(f"{verb}-{puzzle}"))
        assert not out.problems, (case.note, out.code, out.problems, out.stderr[-600:])

    run()


# -- the corpus of cases that once failed ----------------------------------------------------------

CORPUS = fuzzlib.corpus_cases()


@pytest.mark.parametrize("case", [c for _, c in CORPUS], ids=[n for n, _ in CORPUS])
def test_corpus(case, tmp_path):
    if "shared/" in case.note:
        shared_path("instances")  # skips with the reason, or fails under CI=true
    out = fuzzlib.run_case(case, tmp_path)
    assert not out.problems, (case.note, out.code, out.problems, out.stderr[-600:])
