"""The project stays typed (mypy --strict) and linted (ruff), as part of the test suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, check=False)


def test_mypy_strict_is_clean() -> None:
    done = run("mypy")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_is_clean() -> None:
    done = run("ruff", "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr
    done = run("ruff", "format", "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr
