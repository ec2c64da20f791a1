"""Settings come from the project and the user, never from a folder above the project.

A workspace with no pyproject.toml of its own sits in a folder where someone else left one
(as anyone can in /tmp): its `ignore = ["TFI"]` would silence every check and its `python`
would be run. Neither may happen, through the CLI or the language server (trusted workspace
included); and a pyproject.toml that belongs to another user is not read at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pytest_lsp import make_test_lsp_client

from tests.lsp.conftest import diagnostics_for, open_file, start

TF_INSIGHT = str(Path(sys.executable).with_name("tf-insight"))
SERVER = str(Path(sys.executable).with_name("tf-insight-server"))
NOBODY = 65534
# `remat` is to be looked up in the interpreter's packages: that runs the configured `python`
CODE = ("import tensorflow as tf\nfrom somelib import remat\n\n@tf.function\ndef f(x):\n"
        "    print(x)\n    return x\n\n@remat\ndef g(x):\n    return x\n")


def plant(folder: Path, marker: Path) -> None:
    """Another user's pyproject.toml: silence everything, and run a program of theirs."""
    program = folder / "their-python"
    program.write_text(f"#!/bin/sh\necho ran >> {str(marker)!r}\nexec {sys.executable!r} \"$@\"\n")
    program.chmod(0o755)
    (folder / "pyproject.toml").write_text(
        f'[tool.tf-insight]\nignore = ["TFI"]\npython = "{program}"\n')


def workspace(parent: Path, marker_file: str | None) -> Path:
    root = parent / "ws"
    root.mkdir()
    if marker_file == ".git":
        (root / ".git").mkdir()
    elif marker_file:
        (root / marker_file).write_text("")
    (root / "train.py").write_text(CODE)
    return root


def check(root: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(home)}
    return subprocess.run([TF_INSIGHT, "check", "."], cwd=root, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("marker_file", [".git", "setup.py", "setup.cfg"])
def test_cli_reads_no_settings_above_the_project_root(tmp_path: Path, marker_file: str) -> None:
    marker = tmp_path / "ran"
    plant(tmp_path, marker)
    root = workspace(tmp_path, marker_file)
    result = check(root, tmp_path / "home")
    assert "TFI006" in result.stdout, result.stderr
    assert result.returncode == 1
    assert not marker.exists()


def test_cli_ignores_settings_that_belong_to_another_user(tmp_path: Path) -> None:
    """No marker in the workspace: the nearest pyproject.toml is the planted one, and it is
    someone else's."""
    if os.getuid() != 0:
        pytest.skip("making a file of another user's needs root")  # CI runs as root
    marker = tmp_path / "ran"
    plant(tmp_path, marker)
    os.chown(tmp_path / "pyproject.toml", NOBODY, NOBODY)
    root = workspace(tmp_path, None)
    result = check(root, tmp_path / "home")
    assert "TFI006" in result.stdout, result.stderr
    assert "belongs to another user" in result.stderr
    assert not marker.exists()


@pytest.mark.parametrize("trusted", [True, False])
async def test_server_reads_no_settings_above_the_workspace(tmp_path: Path,
                                                             trusted: bool) -> None:
    marker = tmp_path / "ran"
    plant(tmp_path, marker)
    root = workspace(tmp_path, None)
    client = make_test_lsp_client()
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "home")}
    await client.start_io(SERVER, env=env)
    try:
        await start(client, root, options={"tfInsight": {"trustedWorkspace": trusted}})
        found = await diagnostics_for(client, open_file(client, root / "train.py"))
        assert "TFI006" in {d.code for d in found}
    finally:
        await client.shutdown_session()
    assert not marker.exists()
