"""Opening a malicious workspace runs none of its code: through the CLI and through the
language server (a real LSP client), with the workspace trusted and not. The workspace
(tests/security/workspace.py) shadows our modules and the standard library's, names its own
interpreter in pyproject.toml, and ships compiled extensions that the file a user opens
imports; each payload records in a marker file that it ran."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import LanguageClient, make_test_lsp_client

from tests.lsp.conftest import diagnostics_for, open_file, server_info, start, wait_until
from tests.security import workspace

TF_INSIGHT = str(Path(sys.executable).with_name("tf-insight"))


@pytest.fixture
def attack(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "marker.txt"
    root = tmp_path / "cloned"
    workspace.make(root, marker)
    return root, marker


def cli(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(home)}
    return subprocess.run([TF_INSIGHT, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_payloads_work_when_imported(attack: tuple[Path, Path]) -> None:
    """The test can fail: imported from the workspace, every payload records itself."""
    root, marker = attack
    code = ("import sys; sys.path.insert(0, '.'); import json, evilext, evilpkg.ext, "
            "tf_insight_server")
    subprocess.run([sys.executable, "-I", "-c", code], cwd=root, check=True)
    assert {"module json", "extension evilext", "package evilpkg", "extension evilpkg.ext",
            "package tf_insight_server"} <= set(workspace.ran(marker))


def test_cli_check_runs_nothing_of_the_workspace(attack: tuple[Path, Path],
                                                 tmp_path: Path) -> None:
    root, marker = attack
    result = cli("check", ".", cwd=root, home=tmp_path / "config")
    assert result.returncode == 1, result.stderr  # the graph-mode findings of train.py
    assert "train.py" in result.stdout
    assert "not running the interpreter 'tools/python'" in result.stderr
    assert workspace.ran(marker) == []
    explained = cli("explain", "-", cwd=root, home=tmp_path / "config")
    assert workspace.ran(marker) == [], explained.stderr


def test_cli_runs_the_interpreter_the_user_chose(attack: tuple[Path, Path],
                                                 tmp_path: Path) -> None:
    """--python, or `python` in the user's own config file, is the user's choice: it runs
    (and still imports nothing from the workspace)."""
    root, marker = attack
    cli("check", ".", "--python", "tools/python", cwd=root, home=tmp_path / "config")
    assert workspace.ran(marker) == ["interpreter tools/python"]
    marker.unlink()
    config = tmp_path / "config" / "tf-insight"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(f'python = "{root / ".venv" / "bin" / "python"}"\n')
    result = cli("check", ".", cwd=root, home=tmp_path / "config")
    assert workspace.ran(marker) == ["interpreter .venv/bin/python"], result.stderr


def _server_in(root: Path, launcher: str) -> list[str]:
    """The server started inside the workspace, as an editor that sets no folder of its own
    would: by its console script (what the README tells editors to run), or `python -m`. With
    `python -m` in a folder holding a `tf_insight_server` package, that package is what runs:
    no program can guard against being replaced itself (our VS Code client never starts us in
    the workspace); every other module of the workspace must still be ignored."""
    if launcher == "python -m":
        shutil.rmtree(root / "tf_insight_server")
        command = f'"{sys.executable}" -m tf_insight_server'
    else:
        command = f'"{Path(sys.executable).with_name("tf-insight-server")}"'
    return ["sh", "-c", f'cd "{root}" && exec {command}']


@pytest.mark.parametrize("launcher", ["console script", "python -m"])
@pytest.mark.parametrize("trusted", [False, True])
async def test_server_runs_nothing_of_the_workspace(attack: tuple[Path, Path], tmp_path: Path,
                                                    trusted: bool, launcher: str) -> None:
    root, marker = attack
    client = make_test_lsp_client()
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    await client.start_io(*_server_in(root, launcher), env=env)
    try:
        await start(client, root, options={"tfInsight": {"trustedWorkspace": trusted}})
        uri = open_file(client, root / workspace.OPENED)
        found = await diagnostics_for(client, uri)
        assert "TFI006" in {d.code for d in found}, "the workspace is still analysed"
        info = await server_info(client)
        assert info["tensorflowImported"] is False
        if trusted:
            # a trusted workspace may choose its interpreter; the rest still never runs
            assert set(workspace.ran(marker)) <= {"interpreter tools/python"}
        else:
            await wait_until(client, lambda: any("not running the interpreter" in m.message
                                                 for m in client.messages),
                             method="window/showMessage")
            assert workspace.ran(marker) == []
        session = await _start_session(client, root)
        assert ("trusted workspace" in session) != trusted
    finally:
        await client.shutdown_session()
    if not trusted:
        assert workspace.ran(marker) == []


async def _start_session(client: LanguageClient, root: Path) -> str:
    """The error startSession answers with ('' when it starts)."""
    from lsprotocol import types
    from pygls.exceptions import JsonRpcException

    try:
        started: Any = await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="tfInsight.startSession",
            arguments=[{"script": str(root / "tools" / "python"), "python": "/no/such/python"}]))
    except JsonRpcException as error:
        return str(error)
    return "" if started else "no answer"
