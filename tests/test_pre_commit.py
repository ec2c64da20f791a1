"""The pre-commit hook (`.pre-commit-hooks.yaml`) as a user's repository runs it: pre-commit
installs it from this checkout into an environment of its own (offline, from the wheels
`scripts/setup` keeps in `.venv/wheelhouse`) and checks the repository's Python files and
notebooks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_cli_check import HAZARD

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
ROOT = Path(__file__).parent.parent
WHEELHOUSE = ROOT / ".venv" / "wheelhouse"
NOTEBOOK = {"cells": [{"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
                       "source": HAZARD.splitlines(keepends=True)}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                   cwd=cwd, check=True, capture_output=True)


def pre_commit(repository: Path, home: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(WHEELHOUSE),
                   "PRE_COMMIT_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "tf-insight", "--all-files"],
        cwd=repository, env=environment, capture_output=True, text=True, timeout=540)


def test_hook_checks_python_files_and_notebooks(tmp_path: Path) -> None:
    assert list(WHEELHOUSE.glob("jedi-*.whl")), "scripts/setup fills .venv/wheelhouse"
    repository = tmp_path / "repository"
    repository.mkdir()
    (repository / "layers.py").write_text(HAZARD)
    (repository / "train.ipynb").write_text(json.dumps(NOTEBOOK, indent=1))
    (repository / "README.md").write_text("not Python\n")
    git("init", "-q", cwd=repository)
    git("add", ".", cwd=repository)
    git("commit", "-qm", "hazards", cwd=repository)

    found = pre_commit(repository, tmp_path / "home")
    assert found.returncode == 1, found.stdout + found.stderr
    assert "layers.py:5:6: TFI001" in found.stdout
    assert "train.ipynb:cell 1:5:6: TFI001" in found.stdout

    (repository / "layers.py").write_text("import tensorflow as tf\n")
    (repository / "train.ipynb").unlink()
    git("add", "-A", cwd=repository)
    git("commit", "-qm", "fixed", cwd=repository)
    clean = pre_commit(repository, tmp_path / "home")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "tf-insight" in clean.stdout and "Passed" in clean.stdout
