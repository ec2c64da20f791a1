"""`tf-insight explain`: input sources, formats, exit codes, and no tracebacks of its own."""

from __future__ import annotations

import codecs
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tf_insight.cli import main

DATA = Path(__file__).parent / "data"
SCRIPTS = Path(__file__).parent / "scripts"
TRACEBACK = DATA / "autograph_numpy_attr.txt"


def run_cli(*arguments: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    completed = subprocess.run(
        [sys.executable, "-m", "tf_insight.cli", "explain", *arguments],
        input=stdin.decode("latin-1") if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback (most recent call last)" not in completed.stderr
    return completed


def test_json_from_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(TRACEBACK), "--root", str(SCRIPTS), "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["id"] == "numpy-on-symbolic-tensor"
    assert result["rule"] == "TFI012"
    assert result["exception"]["type"] == "AttributeError"
    assert result["exception"]["message"] == "'SymbolicTensor' object has no attribute 'numpy'"
    assert result["user_frame"]["line"] == 30
    assert result["user_frame"]["function"] == "as_numpy"
    assert Path(result["user_frame"]["path"]).name == "graph_errors.py"
    assert {
        "title",
        "summary",
        "cause",
        "fix",
        "frames",
        "findings",
        "links",
        "notes",
    } <= result.keys()
    assert any(frame["user"] is False for frame in result["frames"])


def test_text_from_stdin() -> None:
    completed = run_cli("-", "--root", str(SCRIPTS), stdin=TRACEBACK.read_bytes())
    assert completed.returncode == 0
    assert "[numpy-on-symbolic-tensor · TFI012]" in completed.stdout
    assert "graph_errors.py:30 in as_numpy" in completed.stdout
    assert "Fix:" in completed.stdout


def test_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(TRACEBACK), "--root", str(SCRIPTS), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### `.numpy()` called on a symbolic tensor")
    assert "```python" in out


def test_not_a_traceback_exits_1_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    note = tmp_path / "note.txt"
    note.write_text("the loss goes to nan after a few epochs\n", encoding="utf-8")
    assert main(["explain", str(note), "--root", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "No traceback found" in out
    assert "input was not a traceback" in out


def test_unknown_error_exits_1_with_frame_and_advice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pasted = tmp_path / "error.txt"
    pasted.write_text(
        "Traceback (most recent call last):\n"
        '  File "/srv/app/train.py", line 3, in <module>\n'
        "    load()\n"
        "KeyError: 'labels'\n",
        encoding="utf-8",
    )
    assert main(["explain", str(pasted), "--root", str(tmp_path), "--format", "json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["id"] is None and result["rule"] is None
    assert result["exception"] == {
        "type": "KeyError",
        "qualified_type": "KeyError",
        "message": "'labels'",
    }
    assert result["user_frame"]["line"] == 3
    assert result["title"] == "KeyError outside TensorFlow"  # no TF frame: no eager advice
    assert "nothing graph-mode" in result["fix"]


def test_random_bytes_never_crash(tmp_path: Path) -> None:
    noise = tmp_path / "noise.bin"
    noise.write_bytes(bytes(range(256)) * 64)
    completed = run_cli(str(noise), "--root", str(tmp_path))
    assert completed.returncode == 1


def test_utf16_from_powershell_redirection(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pasted = tmp_path / "err.txt"
    pasted.write_bytes(
        codecs.BOM_UTF16_LE + TRACEBACK.read_text(encoding="utf-8").encode("utf-16-le")
    )
    assert main(["explain", str(pasted), "--root", str(tmp_path)]) == 0
    assert "numpy-on-symbolic-tensor" in capsys.readouterr().out


@pytest.mark.parametrize(
    "arguments",
    [
        ["explain", "/no/such/file.txt"],
        ["explain", str(TRACEBACK), "--format", "yaml"],
        ["explain", str(TRACEBACK), "--root", "/no/such/dir"],
    ],
    ids=["missing-file", "bad-format", "bad-root"],
)
def test_usage_errors_exit_2(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(arguments) == 2
    assert "Traceback" not in capsys.readouterr().err
