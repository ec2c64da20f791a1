"""The VS Code client's own checks: strict TypeScript, eslint and its unit tests (node:test)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.client.conftest import ROOT


def _npm(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["npm", "run", "--silent", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.parametrize("script", ["typecheck", "lint", "test:unit"])
def test_client_check(node_modules: Path, script: str) -> None:
    result = _npm(script)
    assert result.returncode == 0, f"npm run {script} failed:\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}"


def test_bundle_builds(node_modules: Path) -> None:
    result = _npm("build")
    assert result.returncode == 0, result.stderr[-3000:]
    assert (ROOT / "dist" / "extension.js").stat().st_size > 10_000
