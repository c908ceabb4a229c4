"""Shared test helpers: where outside data lives, and how its absence is handled."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
INSTANCES = ROOT / "instances"


def shared_path(rel: str) -> Path:
    """A path under ``../shared``; skip when it is absent, but fail under ``CI=true``."""
    path = SHARED / rel
    if not path.exists():
        msg = f"{path} is absent (outside data lives in ../shared beside the project)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return path
