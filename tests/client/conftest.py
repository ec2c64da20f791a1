"""Helpers for the VS Code client tests: they drive npm and the client's own scripts."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """The client's npm dependencies, installed from package-lock.json when missing."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.fail("node and npm are needed for the VS Code client tests")
    modules = ROOT / "node_modules"
    if not (modules / ".package-lock.json").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=ROOT, check=True, timeout=900)
    return modules
