"""`tf-insight check`, `rule` and `rules` as a user runs them: real files, real process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HAZARD = textwrap.dedent("""\
    import tensorflow as tf


    class Scale(tf.keras.layers.Layer):
        @tf.custom_gradient
        def call(self, inputs, training=None):
            return inputs * 2.0, lambda dy: dy * 2.0
    """)
CLEAN = "import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    return x + 1\n"


def run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tf_insight.cli", *args], cwd=cwd, capture_output=True,
        text=True, input=stdin, timeout=120)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "hazard.py").write_text(HAZARD)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def test_text_output_is_path_line_col_code_message_and_the_source(workspace: Path) -> None:
    result = run("check", ".", cwd=workspace)
    assert result.returncode == 1
    headline, *rest = result.stdout.splitlines()
    assert headline == ("hazard.py:5:6: TFI001 [*] `Scale.call` is wrapped by "
                        "`@tf.custom_gradient`, and Keras passes it `training=`")
    assert rest[:3] == ["  |", "5 |     @tf.custom_gradient", "  |      ^^^^^^^^^^^^^^^^^^"]
    assert rest[3:] == [
        "  = note: Keras 3 passes `training=` because the signature names `training`, and "
        "custom_gradient rejects keyword arguments in graph mode",
        "  = help: apply it to an inner function of the tensors, called positionally"]
    assert "Found 1 finding (1 fixable with --fix)." in result.stderr
    concise = run("check", ".", "--output-format", "concise", cwd=workspace)
    assert concise.stdout.splitlines() == [headline]


def test_text_output_names_the_other_places_a_finding_involves(tmp_path: Path) -> None:
    """A finding's related places (here the reassignment a stale capture misses) are listed
    under it as `path:line:column`, which terminals and editors open."""
    (tmp_path / "decay.py").write_text(textwrap.dedent("""\
        import tensorflow as tf

        scale = 1.0


        @tf.function
        def step(x):
            return x * scale


        for epoch in range(3):
            scale = scale * 0.5
            step(tf.constant(1.0))
        """))
    result = run("check", "decay.py", cwd=tmp_path)
    assert result.stdout.splitlines()[0].startswith("decay.py:8:16: TFI003 ")
    assert result.stdout.splitlines()[-1] == "  = related: decay.py:12:5: `scale` is reassigned here"


def test_a_statement_quoted_across_lines_is_one_line_in_the_message(tmp_path: Path) -> None:
    """A rule quotes the statement it found; one split over lines is joined in the headline
    (as a formatter joins it), not shown with escaped newlines."""
    (tmp_path / "memory.py").write_text(textwrap.dedent("""\
        import tensorflow as tf


        class Memory(tf.keras.layers.Layer):
            def build(self, input_shape):
                self.slots = self.add_weight(shape=(4, 2), initializer="zeros")

            def call(self, x):
                self.slots = tf.tensor_scatter_nd_update(
                    self.slots,
                    indices=[[0]],
                    updates=x[:1],
                )
                return x

            def contents(self):
                return self.slots
        """))
    headline = run("check", "memory.py", cwd=tmp_path).stdout.splitlines()[0]
    assert headline.startswith("memory.py:9:9: TFI006 `self.slots = tf.tensor_scatter_nd_update("
                               "self.slots, indices=[[0]], updates=x[:1])` in `Memory.call`")


def test_output_file_and_exit_zero(workspace: Path) -> None:
    report = workspace / "report" / "findings.json"
    report.parent.mkdir()
    result = run("check", ".", "--format", "json", "--output-file", str(report), "--exit-zero",
                 cwd=workspace)
    assert (result.returncode, result.stdout) == (0, "")
    assert [f["code"] for f in json.loads(report.read_text())] == ["TFI001"]
    missing = run("check", "nowhere.py", "--exit-zero", cwd=workspace)
    assert missing.returncode == 2  # an error is still an error
    unwritable = run("check", ".", "-o", str(workspace / "no" / "such" / "dir.txt"), cwd=workspace)
    assert unwritable.returncode == 2 and "cannot write" in unwritable.stderr


def test_extend_select_and_per_file_ignores(workspace: Path) -> None:
    (workspace / "pyproject.toml").write_text(
        '[tool.tf-insight]\nselect = ["TFI006"]\nextend-select = ["TFI001"]\n')
    assert "TFI001" in run("check", ".", cwd=workspace).stdout
    (workspace / "pyproject.toml").write_text(
        '[tool.tf-insight]\nper-file-ignores = { "haz*.py" = ["TFI001"] }\n')
    assert run("check", ".", cwd=workspace).returncode == 0
    (workspace / "pyproject.toml").write_text(
        '[tool.tf-insight]\nper-file-ignores = { "other.py" = ["TFI001"] }\n')
    assert run("check", ".", cwd=workspace).returncode == 1
    (workspace / "pyproject.toml").write_text('[tool.tf-insight]\nper-file-ignores = ["x"]\n')
    broken = run("check", ".", cwd=workspace)
    assert broken.returncode == 2 and "per-file-ignores" in broken.stderr


def test_clean_files_exit_zero(workspace: Path) -> None:
    result = run("check", "clean.py", cwd=workspace)
    assert (result.returncode, result.stdout) == (0, "")
    assert "All checks passed!" in result.stderr


def test_json_has_one_based_positions_and_the_fix(workspace: Path) -> None:
    result = run("check", "--format", "json", "hazard.py", cwd=workspace)
    (finding,) = json.loads(result.stdout)
    assert {k: finding[k] for k in ("code", "name", "path", "line", "column", "end_line",
                                    "end_column", "severity")} == {
        "code": "TFI001", "name": "custom-gradient-keyword-args", "path": "hazard.py",
        "line": 5, "column": 6, "end_line": 5, "end_column": 24, "severity": "error"}
    assert finding["fix"]["edits"] and "message" in finding


def test_sarif_carries_rule_help_from_docstrings(workspace: Path) -> None:
    sarif = json.loads(run("check", "--format", "sarif", ".", cwd=workspace).stdout)
    assert sarif["version"] == "2.1.0"
    driver = sarif["runs"][0]["tool"]["driver"]
    rule = next(r for r in driver["rules"] if r["id"] == "TFI001")
    assert "## Why is this bad?" in rule["help"]["markdown"]
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == "TFI001" and result["level"] == "error"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (5, 6)


def test_fix_rewrites_the_file_and_leaves_it_clean(workspace: Path) -> None:
    result = run("check", "--fix", "hazard.py", cwd=workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    fixed = (workspace / "hazard.py").read_text()
    assert "def forward(inputs):" in fixed and "return forward(inputs)" in fixed
    assert run("check", "hazard.py", cwd=workspace).returncode == 0
    compile(fixed, "hazard.py", "exec")


def test_select_ignore_and_noqa(workspace: Path) -> None:
    assert run("check", "--ignore", "TFI001", ".", cwd=workspace).returncode == 0
    assert run("check", "--select", "TFI00", "--ignore", "TFI0", ".",
               cwd=workspace).returncode == 1  # the more specific prefix wins
    for comment in ("# noqa", "# noqa: TFI001", "# NOQA:TFI003,TFI001"):
        text = HAZARD.replace("@tf.custom_gradient", f"@tf.custom_gradient  {comment}")
        (workspace / "hazard.py").write_text(text)
        assert run("check", "hazard.py", cwd=workspace).returncode == 0, comment
    (workspace / "hazard.py").write_text(
        HAZARD.replace("@tf.custom_gradient", "@tf.custom_gradient  # noqa: TFI003"))
    assert run("check", "hazard.py", cwd=workspace).returncode == 1


def test_pyproject_settings_are_honoured_and_validated(workspace: Path) -> None:
    (workspace / "pyproject.toml").write_text('[tool.tf-insight]\nignore = ["TFI001"]\n')
    assert run("check", ".", cwd=workspace).returncode == 0
    (workspace / "pyproject.toml").write_text('[tool.tf-insight]\nkeras = "4"\n')
    result = run("check", ".", cwd=workspace)
    assert result.returncode == 2
    assert "`keras` must be one of auto, 3, 2, got '4'" in result.stderr
    assert "Traceback" not in result.stderr


def test_syntax_error_is_reported_and_the_rest_still_checked(workspace: Path) -> None:
    (workspace / "broken.py").write_text("def f(:\n    pass\n")
    result = run("check", ".", cwd=workspace)
    assert "broken.py:1:7: TFI000 syntax error: invalid syntax" in result.stdout
    assert "hazard.py:5:6: TFI001" in result.stdout


def test_undecodable_files_get_a_clear_finding(workspace: Path) -> None:
    (workspace / "latin1.py").write_bytes(b"# caf\xe9\nx = 1\n")
    (workspace / "binary.py").write_bytes(b"\x00\x01\x02")
    result = run("check", ".", cwd=workspace)
    assert result.returncode == 1
    assert ("latin1.py:1:1: TFI000 cannot decode the file: not utf-8 text (invalid "
            "continuation byte at byte 5)") in result.stdout
    assert "binary.py:1:1: TFI000 syntax error: source code cannot contain null bytes" in (
        result.stdout)
    assert "Traceback" not in result.stderr
    assert "hazard.py:5:6: TFI001" in result.stdout


def test_usage_errors_exit_two(workspace: Path) -> None:
    assert run("check", "missing.py", cwd=workspace).returncode == 2
    assert run("check", "--format", "xml", cwd=workspace).returncode == 2
    assert run("rule", "TFI999", cwd=workspace).returncode == 2


def test_rule_and_rules_print_the_documentation(workspace: Path) -> None:
    doc = run("rule", "TFI001", cwd=workspace)
    assert doc.returncode == 0
    assert doc.stdout.startswith("# TFI001 custom-gradient-keyword-args (error)")
    assert "## Use instead" in doc.stdout
    assert run("rule", "custom-gradient-keyword-args", cwd=workspace).stdout == doc.stdout
    listing = run("rules", cwd=workspace).stdout
    assert "TFI000  syntax-error" in listing and "TFI001  custom-gradient-keyword-args" in listing
