"""What a cloned repository holds cannot hang us, exhaust memory, print secrets or forge output.

A `.py` that is a named pipe, or a committed link to `/dev/zero`, `/dev/stdin` or
`/proc/self/environ`; a file too large to be source; escape sequences and newlines in source
lines and file names; JSON and TOML nested deeper than any parser's stack. Each is met by the
CLI (`check DIR`, `check FILE`, `explain` with the folder as root) and the language server
(workspace check, explain); each is skipped or reported, with the rest of the project checked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient, make_test_lsp_client

from tests.lsp.conftest import start

SERVER = str(Path(sys.executable).with_name("tf-insight-server"))
SECRET = "tf-insight-test-secret-4242"
HAZARD = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n    return x\n"
TRACEBACK = ('Traceback (most recent call last):\n  File "{path}", line 5, in <module>\n'
             "    f(1)\nValueError: boom\n")


def cli(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TFI_TEST_TOKEN": SECRET, "XDG_CONFIG_HOME": str(cwd / ".no-config")}
    return subprocess.run([sys.executable, "-m", "tf_insight.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.PIPE)


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A project whose `.py` files are a FIFO, links to devices and to the environment, and
    one real hazard beside them."""
    root = tmp_path / "cloned"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "good.py").write_text(HAZARD)
    os.mkfifo(root / "pipe.py")
    for name, target in (("zero.py", "/dev/zero"), ("stdin.py", "/dev/stdin"),
                         ("environ.py", "/proc/self/environ")):
        os.symlink(target, root / name)
    return root


def findings(result: subprocess.CompletedProcess[str]) -> dict[str, list[str]]:
    by_file: dict[str, list[str]] = {}
    for finding in json.loads(result.stdout):
        by_file.setdefault(Path(finding["path"]).name, []).append(finding["code"])
    return by_file


def test_check_reads_only_regular_files(hostile: Path) -> None:
    result = cli("check", ".", "--output-format", "json", cwd=hostile)
    assert result.returncode == 1, result.stderr
    assert findings(result) == {"good.py": ["TFI006"], "pipe.py": ["TFI900"],
                                "zero.py": ["TFI900"], "stdin.py": ["TFI900"],
                                "environ.py": ["TFI900"]}
    messages = {Path(f["path"]).name: f["message"] for f in json.loads(result.stdout)}
    assert "named pipe" in messages["pipe.py"]
    assert SECRET not in result.stdout + result.stderr


def test_the_default_output_shows_no_bytes_of_them(hostile: Path) -> None:
    result = cli("check", ".", cwd=hostile)
    assert SECRET not in result.stdout + result.stderr
    assert "TFI900" in result.stdout and "TFI006" in result.stdout


def test_checking_one_file_of_such_a_project_ends(hostile: Path) -> None:
    """`check FILE` reads the project for the file's importers: past the hostile files."""
    result = cli("check", "good.py", "--output-format", "json", cwd=hostile)
    assert findings(result) == {"good.py": ["TFI006"]}


def test_explain_with_such_a_root_ends(hostile: Path) -> None:
    paste = hostile / "err.txt"
    paste.write_text(TRACEBACK.format(path=hostile / "good.py"))
    result = cli("explain", str(paste), "--root", ".", cwd=hostile)
    assert result.returncode in (0, 1), result.stderr
    assert SECRET not in result.stdout + result.stderr


def test_a_file_larger_than_the_limit_is_skipped_and_said(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    big = tmp_path / "generated.py"
    big.write_text(HAZARD + ("x = 1  # " + "-" * 90 + "\n") * 60_000)  # 6 MB in long lines
    result = cli("check", ".", "--output-format", "json", cwd=tmp_path)
    [finding] = json.loads(result.stdout)
    assert finding["code"] == "TFI900" and "larger than 5,000,000 bytes" in finding["message"]
    (tmp_path / "pyproject.toml").write_text('[tool.tf-insight]\nmax-file-size = "8MB"\n')
    result = cli("check", ".", "--output-format", "json", cwd=tmp_path, timeout=300)
    assert [f["code"] for f in json.loads(result.stdout)] == ["TFI006"]


def test_a_notebook_is_capped_by_its_code_not_its_outputs(tmp_path: Path) -> None:
    """A notebook over the cap because of its plots is checked; one whose code is over it is
    skipped, and the finding says that it was the code."""
    (tmp_path / ".git").mkdir()
    plot = {"output_type": "display_data", "metadata": {},
            "data": {"image/png": "iVBORw0KGgo" * 600_000}}  # 6.6 MB of base64
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [plot],
              "source": HAZARD.splitlines(keepends=True)}]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "plots.ipynb").write_text(json.dumps(notebook))
    result = cli("check", ".", "--output-format", "json", cwd=tmp_path)
    assert [f["code"] for f in json.loads(result.stdout)] == ["TFI006"], result.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.tf-insight]\nmax-file-size = "10KB"\n')
    cells[0]["outputs"] = []
    cells[0]["source"].append("x = 1\n" * 3_000)
    (tmp_path / "plots.ipynb").write_text(json.dumps(notebook))
    result = cli("check", ".", "--output-format", "json", cwd=tmp_path)
    [finding] = json.loads(result.stdout)
    assert finding["code"] == "TFI900"
    assert "its code is larger than 10,000 bytes" in finding["message"]


def test_control_characters_are_shown_escaped(tmp_path: Path) -> None:
    """An OSC 52 clipboard write and a title change in a source line, and a file name that
    would print a forged finding line: shown escaped; JSON keeps the exact text."""
    (tmp_path / ".git").mkdir()
    evil = "\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b]0;owned\x07\x1b[2J"
    (tmp_path / "train.py").write_text(
        f'import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x, "{evil}")\n')
    (tmp_path / "a\nforged.py:1:1: TFI001 all is fine\n.py").write_text(HAZARD)
    for output in ("full", "concise"):
        result = cli("check", ".", "--output-format", output, cwd=tmp_path)
        shown = result.stdout + result.stderr
        assert "\x1b" not in shown and "\x07" not in shown
        assert output == "concise" or "\\x1b]52;c;" in shown
        assert not any(line.startswith("forged.py") for line in shown.splitlines())
    exact = cli("check", ".", "--output-format", "json", cwd=tmp_path)
    assert any("\n" in f["path"] for f in json.loads(exact.stdout))


def test_a_deeply_nested_notebook_is_one_finding(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "good.py").write_text(HAZARD)
    (tmp_path / "deep.ipynb").write_text("[" * 200_000 + "]" * 200_000)
    result = cli("check", ".", "--output-format", "json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    by_file = {Path(f["path"]).name: f for f in json.loads(result.stdout)}
    assert by_file["good.py"]["code"] == "TFI006"
    assert by_file["deep.ipynb"]["code"] == "TFI000"
    assert "nested too deeply" in by_file["deep.ipynb"]["message"]


def test_a_deeply_nested_pyproject_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text(HAZARD)
    (tmp_path / "pyproject.toml").write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    result = cli("check", ".", cwd=tmp_path)
    assert result.returncode == 2
    assert "pyproject.toml" in result.stderr and "nested too deeply" in result.stderr
    assert "internal error" not in result.stderr


def test_a_large_flat_pyproject_is_not_too_deep(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text(HAZARD)
    data = ", ".join(["1"] * 4_000_000)  # 12 MB
    (tmp_path / "pyproject.toml").write_text(f"[tool.other]\ndata = [{data}]\n")
    result = cli("check", ".", "--output-format", "json", cwd=tmp_path, timeout=120)
    assert [f["code"] for f in json.loads(result.stdout)] == ["TFI006"], result.stderr


async def _execute(client: LanguageClient, command: str, *arguments: Any) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=list(arguments)))


async def test_the_server_reads_only_regular_files(hostile: Path) -> None:
    """Workspace check and explain over the hostile project end; the server still answers
    (it did not read its own stdin through the `stdin.py` link); a file over the size limit
    is said to be skipped, as an open document over it would be."""
    (hostile / "deep.ipynb").write_text("[" * 200_000 + "]" * 200_000)
    (hostile / "big.py").write_text(HAZARD + "x = 1\n" * 1_400_000)  # 8 MB
    client = make_test_lsp_client()
    await client.start_io(SERVER, env={**os.environ, "TFI_TEST_TOKEN": SECRET})
    try:
        await start(client, hostile)
        await _execute(client, "tfInsight.checkWorkspace")
        published = {Path(uri).name: [d.code for d in found]
                     for uri, found in client.diagnostics.items()}
        assert published.get("good.py") == ["TFI006"], published
        assert published.get("pipe.py") == ["TFI900"]
        assert published.get("big.py") == ["TFI900"]
        assert "deep.ipynb" not in published  # notebooks are checked cell by cell, once opened
        explained = await _execute(client, "tfInsight.explainError",
                                   {"text": TRACEBACK.format(path=hostile / "good.py")})
        assert explained is not None
        assert SECRET not in json.dumps(explained)
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=(hostile / "good.py").as_uri()),
            position=types.Position(line=0, character=0)))
        assert hover is None or hover.contents is not None  # answered at all
    finally:
        await client.shutdown_session()


async def test_the_server_warns_once_of_a_bad_pyproject_and_uses_the_defaults(
        tmp_path: Path) -> None:
    from tests.lsp.conftest import diagnostics_for, open_file, wait_until

    (tmp_path / "good.py").write_text(HAZARD)
    (tmp_path / "other.py").write_text(HAZARD)
    (tmp_path / "pyproject.toml").write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    client = make_test_lsp_client()
    await client.start_io(SERVER)
    try:
        await start(client, tmp_path)
        for name in ("good.py", "other.py"):
            found = await diagnostics_for(client, open_file(client, tmp_path / name))
            assert [d.code for d in found] == ["TFI006"]
        await wait_until(client, lambda: any("nested too deeply" in m.message
                                             for m in client.messages),
                         method="window/showMessage")
        assert sum("nested too deeply" in m.message for m in client.messages) == 1
    finally:
        await client.shutdown_session()
