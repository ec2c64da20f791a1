"""Bad input and exit codes: every problem is said, in every output format, and the exit
status tells the truth (unreadable files and folders, declared encodings, NUL bytes, absurd
nesting, a closed pipe, Ctrl-C, impossible timeouts)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

TF_INSIGHT = str(Path(sys.executable).with_name("tf-insight"))
HAZARD = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n    return x\n"


def run(*args: str, cwd: Path, as_other_user: bool = False) -> subprocess.CompletedProcess[str]:
    """`tf-insight ARGS` in `cwd`; `as_other_user`: as an unprivileged user when we are root
    (root reads every file, whatever its mode)."""
    command = [TF_INSIGHT, *args]
    env = {**os.environ, "HOME": str(cwd), "XDG_CONFIG_HOME": str(cwd / ".config")}
    if as_other_user and os.geteuid() == 0:
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def unreadable() -> Iterator[Path]:
    """A project the other user can reach (pytest's own temp folders are root's alone)."""
    tmp_path = Path(tempfile.mkdtemp(prefix="tfi-unreadable-"))
    tmp_path.chmod(0o755)
    (tmp_path / "ok.py").write_text(HAZARD)
    (tmp_path / "secret.py").write_text(HAZARD)
    (tmp_path / "secret.py").chmod(0)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "inside.py").write_text(HAZARD)
    (tmp_path / "locked").chmod(0)
    yield tmp_path
    (tmp_path / "locked").chmod(0o755)
    shutil.rmtree(tmp_path)


@pytest.mark.parametrize("output", ["text", "json", "sarif"])
def test_unreadable_files_and_folders_are_findings(unreadable: Path, output: str) -> None:
    result = run("check", ".", "--format", output, cwd=unreadable, as_other_user=True)
    assert result.returncode == 1, result.stderr
    assert "internal error" not in result.stderr
    if output == "text":
        assert "secret.py:1:1: TFI900 cannot read this file: Permission denied" in result.stdout
        assert "locked:1:1: TFI900 cannot read this folder: Permission denied" in result.stdout
        assert "ok.py:5:5: TFI006" in result.stdout
    elif output == "json":
        found = {(f["path"], f["code"]) for f in json.loads(result.stdout)}
        assert {("secret.py", "TFI900"), ("locked", "TFI900"), ("ok.py", "TFI006")} <= found
    else:
        results = json.loads(result.stdout)["runs"][0]["results"]
        unread = [r for r in results if r["ruleId"] == "TFI900"]
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in unread}
        assert uris == {"secret.py", "locked"}


def test_an_unreadable_folder_named_directly(unreadable: Path) -> None:
    result = run("check", "locked", cwd=unreadable, as_other_user=True)
    assert result.returncode == 1 and "internal error" not in result.stderr
    assert "locked:1:1: TFI900 cannot read this folder" in result.stdout
    only_readable = run("check", "ok.py", cwd=unreadable, as_other_user=True)
    assert "TFI900" not in only_readable.stdout


def test_declared_encodings_are_honoured_and_kept_by_fix(tmp_path: Path) -> None:
    source = ("# -*- coding: latin-1 -*-\nimport tensorflow as tf\nGREETING = 'café'\n\n"
              "@tf.function\ndef f(x):\n    print(x)\n    return x\n")
    (tmp_path / "latin.py").write_bytes(source.encode("latin-1"))
    result = run("check", "latin.py", cwd=tmp_path)
    assert "latin.py:7:5: TFI006" in result.stdout, result.stdout + result.stderr
    run("check", "latin.py", "--fix", cwd=tmp_path)
    fixed = (tmp_path / "latin.py").read_bytes()
    assert b"caf\xe9" in fixed and b"tf.print(x)" in fixed, "still latin-1, and fixed"
    (tmp_path / "martian.py").write_text("# coding: martian\nx = 1\n")
    assert "TFI000 cannot decode the file: unknown encoding: martian" in run(
        "check", "martian.py", cwd=tmp_path).stdout


def test_nul_byte_and_absurd_nesting_are_placed_and_explained(tmp_path: Path) -> None:
    (tmp_path / "nul.py").write_bytes(b"import tensorflow as tf\nx = 1\ny = 'a\x00b'\n")
    (tmp_path / "deep.py").write_text("f = " + "lambda: " * 5000 + "1\n")
    result = run("check", ".", cwd=tmp_path)
    assert "nul.py:3:7: TFI000 syntax error: source code cannot contain null bytes" in (
        result.stdout)
    assert "deep.py:1:1: TFI000 cannot parse: the code is nested too deeply" in result.stdout


def test_a_closed_pipe_does_not_hide_the_status(tmp_path: Path) -> None:
    for number in range(400):
        (tmp_path / f"m{number}.py").write_text(HAZARD)
    reader = subprocess.Popen([TF_INSIGHT, "check", "."], cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.readline()  # what `| head -1` does, then it goes away
    reader.stdout.close()
    assert reader.wait(120) == 1, "findings were found: the status says so"
    assert b"Traceback" not in reader.stderr.read()


def _as_in_a_terminal() -> None:
    """Ctrl-C's signal is not ignored, as it is for everything a shell starts in the
    background (a test run started with `&`), which the child would inherit."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_says_interrupted(tmp_path: Path) -> None:
    explain = subprocess.Popen([TF_INSIGHT, "explain", "-"], cwd=tmp_path,
                               stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=_as_in_a_terminal)
    _wait_until_blocked_reading(explain.pid)
    explain.send_signal(signal.SIGINT)
    assert explain.wait(60) == 130
    assert explain.stderr is not None
    assert "tf-insight: interrupted" in explain.stderr.read()


def _wait_until_blocked_reading(pid: int) -> None:
    """Until the process sits in read(2) (syscall 0 on Linux) for a while: it is waiting on
    its input, past the interpreter's start."""
    since = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            reading = Path(f"/proc/{pid}/syscall").read_text().split()[0] == "0"
        except (OSError, IndexError):
            reading = False
        if not reading:
            since = None
        elif since is None:
            since = time.monotonic()
        elif time.monotonic() - since > 0.5:
            return
        time.sleep(0.02)
    raise AssertionError("the command never waited on its input")


@pytest.mark.parametrize("timeout", ["0", "-1", "nan"])
def test_impossible_timeouts_are_refused(tmp_path: Path, timeout: str) -> None:
    (tmp_path / "s.py").write_text("print(1)\n")
    result = run("trace", f"--timeout={timeout}", "s.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "--timeout: must be a positive number of seconds" in result.stderr
