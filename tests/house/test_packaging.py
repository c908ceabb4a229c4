"""What the distribution declares holds: every package the code imports is declared (Dask
as the extra it is), the version is written once, and the wheel ships the licence and the
``py.typed`` marker."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
import tomllib
import zipfile

import pytest

import puzzleproof
from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _imported() -> dict[str, set[str]]:
    """Top-level names of the packages outside the standard library that the package's
    modules import (inside functions too), with the modules that import each."""
    found: dict[str, set[str]] = {}
    for path in (ROOT / "puzzleproof").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "puzzleproof":
                    found.setdefault(top, set()).add(path.relative_to(ROOT).as_posix())
    return found


def _declared(requirements: list[str]) -> set[str]:
    return {re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0].lower() for r in requirements}


def test_every_imported_package_is_declared():
    project = PYPROJECT["project"]
    required = _declared(project["dependencies"])
    extras = {k: _declared(v) for k, v in project["optional-dependencies"].items()}
    if any("dask[distributed]" in r for r in project["optional-dependencies"]["dask"]):
        extras["dask"].add("distributed")  # dask's own extra brings it
    dists = importlib.metadata.packages_distributions()
    for top, where in sorted(_imported().items()):
        names = {d.lower() for d in dists.get(top, [top])}
        if names & required:
            continue
        # only the executor may import an optional package, and it says how to install it
        assert names & extras["dask"] and where == {"puzzleproof/executor.py"}, \
            f"{top} (imported by {sorted(where)}) is not declared"
    assert "puzzleproof[dask]" in project["optional-dependencies"]["dev"]


def test_the_version_is_written_once():
    assert "version" not in PYPROJECT["project"] and "version" in PYPROJECT["project"]["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "puzzleproof.__version__"}
    assert importlib.metadata.version("puzzleproof") == puzzleproof.__version__


@pytest.mark.slow
def test_the_wheel_ships_the_licence_and_py_typed(tmp_path):
    """A wheel built from the tree (``pip wheel``) holds LICENSE (MIT, the authors') and
    ``py.typed``, and its metadata the one version and the extras."""
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT),
                          "-w", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    wheel = zipfile.ZipFile(next(tmp_path.glob("puzzleproof-*.whl")))
    names = wheel.namelist()
    assert "puzzleproof/py.typed" in names
    licence = [n for n in names if n.endswith("licenses/LICENSE")]
    assert licence and "MIT License" in wheel.read(licence[0]).decode()
    assert "Copyright (c) the puzzleproof authors" in wheel.read(licence[0]).decode()
    meta = wheel.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert f"Version: {puzzleproof.__version__}" in meta.splitlines()
    assert "License-Expression: MIT" in meta and "Provides-Extra: dask" in meta
