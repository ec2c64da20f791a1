"""`tf-insight debug` on bad input says what went wrong, before it listens: no program, a
missing script, an interpreter without debugpy; and a program that fails exits with its own
status, its traceback shown."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DEBUG = [sys.executable, "-m", "tf_insight.cli", "debug", "--listen", "127.0.0.1:0"]


def _run(*words: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*DEBUG, *words], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_no_program(tmp_path: Path) -> None:
    result = _run(cwd=tmp_path)
    assert result.returncode == 2 and "give a SCRIPT or -m MODULE" in result.stderr


def test_a_missing_script(tmp_path: Path) -> None:
    result = _run("missing.py", cwd=tmp_path)
    assert result.returncode == 2
    assert f"no script at {tmp_path / 'missing.py'}" in result.stderr
    assert "attach to" not in result.stderr  # said before listening


def test_an_interpreter_without_debugpy(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")],
                   check=True, timeout=120)
    bare = tmp_path / "bare" / "bin" / "python"
    (tmp_path / "program.py").write_text("print('ran')\n")
    result = _run("--python", str(bare), "program.py", cwd=tmp_path)
    assert result.returncode == 2
    assert f"debugpy is not installed in {bare}" in result.stderr, result.stderr


def test_a_failing_program_keeps_its_exit_status(tmp_path: Path) -> None:
    (tmp_path / "program.py").write_text("import sys\nprint('ran')\nsys.exit(3)\n")
    result = _run("program.py", cwd=tmp_path)
    assert result.returncode == 3 and "ran" in result.stdout
