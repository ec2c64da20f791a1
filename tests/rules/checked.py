"""Run the real `tf-insight check` command on a one-file project, as a user would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def check_one_file(tmp_path: Path, name: str, source: str) -> tuple[list[tuple[str, int]], str]:
    """The findings (code, line) of `check` on a project holding only `name`, and its stderr
    (where the notes go)."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / name).write_text(source)
    result = subprocess.run([sys.executable, "-m", "tf_insight.cli", "check", "--exit-zero",
                             "--no-cache", "--output-format", "json", name],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120,
                            check=True)
    return [(f["code"], f["line"]) for f in json.loads(result.stdout)], result.stderr
