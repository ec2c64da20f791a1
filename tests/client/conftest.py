"""Helpers for the VS Code client tests: they drive npm and the client's own scripts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
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


@pytest.fixture(scope="session")
def vsix(node_modules: Path) -> Path:
    """The .vsix of this tree, built once per test session by client/scripts/package.sh
    (bundling the Python side takes a minute): the end-to-end runs install this one
    (`TFI_E2E_SKIP_BUILD=1`)."""
    version = json.loads((ROOT / "package.json").read_text())["version"]
    env = {**os.environ, "PYTHON": os.environ.get("PYTHON", sys.executable)}
    built = subprocess.run(["bash", "client/scripts/package.sh"], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=1200)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return ROOT / "dist" / f"tf-insight-{version}.vsix"
