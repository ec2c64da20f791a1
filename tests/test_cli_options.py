"""`tf-insight check`'s options held to ruff's conventions (issue 27), as a user runs them: a
real process on small files written here. Rule selection (typos are errors, ALL, repeated
options add up), stdin, exclusions, --quiet, --fix/--diff/--show-fixes, --config, the
machine formats (JSON statistics, github, gitlab, junit), and one spelling of the report file
across `check`, `explain` and `trace`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from xml.etree import ElementTree

import pytest

SIDE_EFFECT = textwrap.dedent("""\
    import tensorflow as tf


    @tf.function
    def step(x):
        print(x)
        return x + 1
    """)
TRACE_LOG = SIDE_EFFECT.replace("print(x)", 'print("tracing step")')  # TFI022: opt-in
CUSTOM_GRADIENT = textwrap.dedent("""\
    import tensorflow as tf


    class Scale(tf.keras.layers.Layer):
        @tf.custom_gradient
        def call(self, inputs, training=None):
            return inputs * 2.0, lambda dy: dy * 2.0
    """)


def run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI in a process of its own, with the user's config and cache folders in `cwd`."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(cwd / ".config"),
           "XDG_CACHE_HOME": str(cwd / ".cache")}
    return subprocess.run([sys.executable, "-m", "tf_insight.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, input=stdin, timeout=120)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "steps.py").write_text(SIDE_EFFECT)
    (tmp_path / "layer.py").write_text(CUSTOM_GRADIENT)
    return tmp_path


def codes(result: subprocess.CompletedProcess[str]) -> list[str]:
    return sorted(finding["code"] for finding in json.loads(result.stdout))


# ---- rule selection --------------------------------------------------------------------------

@pytest.mark.parametrize(("option", "typo", "nearest"), [
    ("--select", "TFX999", "TFI009"), ("--ignore", "TFI06", "TFI006"),
    ("--extend-select", "TFX", "TFI"), ("--select", "ALLL", "ALL")])
def test_a_rule_code_that_names_no_rule_is_an_error_naming_the_nearest(
        project: Path, option: str, typo: str, nearest: str) -> None:
    result = run("check", option, typo, ".", cwd=project)
    assert result.returncode == 2
    assert f"unknown rule code '{typo}' in {option}; the nearest is '{nearest}'" in result.stderr
    assert "All checks passed" not in result.stderr and not result.stdout


@pytest.mark.parametrize("setting", ['select = ["TFX"]', 'ignore = ["TFI06"]',
                                     'extend-ignore = ["TFX1"]',
                                     'per-file-ignores = { "a.py" = ["TFI6"] }'])
def test_a_rule_code_in_the_settings_that_names_no_rule_is_an_error(project: Path,
                                                                      setting: str) -> None:
    (project / "pyproject.toml").write_text(f"[tool.tf-insight]\n{setting}\n")
    result = run("check", ".", cwd=project)
    assert result.returncode == 2
    assert re.search(r"pyproject\.toml: unknown rule code .\w+. in `[\w-]+`[^;]*; the nearest is "
                     r"'(TFI\d*|ALL)'", result.stderr), result.stderr


def test_all_selects_every_rule_and_opt_in_ones(tmp_path: Path) -> None:
    (tmp_path / "tracing.py").write_text(TRACE_LOG)
    default = run("check", "--output-format", "json", ".", cwd=tmp_path)
    assert codes(default) == [] and default.returncode == 0
    everything = run("check", "--output-format", "json", "--select", "ALL", ".", cwd=tmp_path)
    assert codes(everything) == ["TFI022"] and everything.returncode == 1
    assert codes(run("check", "--output-format", "json", "--select", "all", "--ignore",
                     "TFI02", ".", cwd=tmp_path)) == []


def test_repeated_options_add_up(project: Path) -> None:
    both = run("check", "--output-format", "json", "--select", "TFI001", "--select", "TFI006",
               ".", cwd=project)
    assert codes(both) == ["TFI001", "TFI006"]
    assert codes(run("check", "--output-format", "json", "--select", "TFI001,TFI006", ".",
                     cwd=project)) == ["TFI001", "TFI006"]
    neither = run("check", "--ignore", "TFI001", "--ignore", "TFI006", ".", cwd=project)
    assert neither.returncode == 0, neither.stdout
    extended = run("check", "--output-format", "json", "--select", "TFI001",
                   "--extend-select", "TFI006", ".", cwd=project)
    assert codes(extended) == ["TFI001", "TFI006"]


def test_extend_ignore_in_the_settings_adds_to_ignore(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.tf-insight]\nignore = ["TFI001"]\nextend-ignore = ["TFI006"]\n')
    assert run("check", ".", cwd=project).returncode == 0
    (project / "pyproject.toml").write_text('[tool.tf-insight]\nextend-ignore = ["TFI006"]\n')
    assert codes(run("check", "--output-format", "json", ".", cwd=project)) == ["TFI001"]
    cli = run("check", "--output-format", "json", "--extend-ignore", "TFI001", ".", cwd=project)
    assert codes(cli) == []


# ---- statistics ------------------------------------------------------------------------------

def test_statistics_print_the_counts_instead_of_the_findings(project: Path) -> None:
    text = run("check", "--statistics", ".", cwd=project)
    assert text.returncode == 1
    lines = text.stdout.splitlines()
    assert any(re.fullmatch(r"\s+1  TFI006  trace-time-side-effect  \[\*\]", line)
               for line in lines), lines
    assert not any(line.startswith(("steps.py:", "layer.py:")) for line in lines)
    as_json = run("check", "--statistics", "--output-format", "json", ".", cwd=project)
    rows = json.loads(as_json.stdout)  # valid JSON: nothing after it
    assert sorted((row["code"], row["count"], row["fixable"]) for row in rows) == [
        ("TFI001", 1, True), ("TFI006", 1, True)]


# ---- stdin -----------------------------------------------------------------------------------

def test_stdin_is_checked_as_the_file_it_is_named(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.tf-insight]\nper-file-ignores = { "legacy/*" = ["TFI006"] }\n')
    named = run("check", "-", "--stdin-filename", "train.py", "--output-format", "json",
                cwd=project, stdin=SIDE_EFFECT)
    (finding,) = json.loads(named.stdout)
    assert (finding["path"], finding["code"], finding["line"]) == ("train.py", "TFI006", 6)
    ignored = run("check", "-", "--stdin-filename", "legacy/train.py", cwd=project,
                  stdin=SIDE_EFFECT)
    assert ignored.returncode == 0, ignored.stdout
    unnamed = run("check", "-", "--output-format", "concise", cwd=project, stdin=SIDE_EFFECT)
    assert unnamed.stdout.startswith("-:6:5: TFI006")


def test_stdin_gets_the_graph_contexts_its_importers_give(tmp_path: Path) -> None:
    helpers = ("import tensorflow as tf\n\n\ndef log(x):\n    print('step', tf.reduce_sum(x))\n"
               "    return x\n")
    (tmp_path / "helpers.py").write_text(helpers)
    (tmp_path / "train.py").write_text(
        "import tensorflow as tf\n\nimport helpers\n\n\n@tf.function\ndef step(x):\n"
        "    return helpers.log(x) + 1\n")
    result = run("check", "-", "--stdin-filename", "helpers.py", "--output-format", "json",
                 cwd=tmp_path, stdin=helpers)
    assert codes(result) == ["TFI006"]  # a helper's print is graph code: train.py traces it


def test_fix_and_diff_of_stdin_print_the_code(tmp_path: Path) -> None:
    fixed = run("check", "-", "--fix", cwd=tmp_path, stdin=SIDE_EFFECT)
    assert fixed.stdout == SIDE_EFFECT.replace("print(x)", "tf.print(x)")
    assert fixed.returncode == 0
    diff = run("check", "-", "--stdin-filename", "steps.py", "--diff", cwd=tmp_path,
               stdin=SIDE_EFFECT)
    assert diff.returncode == 1
    assert "-    print(x)\n+    tf.print(x)\n" in diff.stdout


def test_options_that_do_not_go_together_are_a_usage_error(project: Path) -> None:
    assert run("check", "-", "steps.py", cwd=project, stdin="").returncode == 2
    beside = run("check", "steps.py", "--stdin-filename", "x.py", cwd=project)
    assert beside.returncode == 2 and "--stdin-filename" in beside.stderr
    both = run("check", "--fix", "--diff", "steps.py", cwd=project)
    assert both.returncode == 2 and "choose one" in both.stderr
    assert (project / "steps.py").read_text() == SIDE_EFFECT


# ---- files -----------------------------------------------------------------------------------

def test_exclude_and_extend_exclude(project: Path) -> None:
    (project / "legacy").mkdir()
    (project / "legacy" / "old.py").write_text(SIDE_EFFECT)
    (project / "build").mkdir()
    (project / "build" / "generated.py").write_text(SIDE_EFFECT)

    def checked(*options: str) -> list[str]:
        result = run("check", "--output-format", "json", *options, ".", cwd=project)
        return sorted({finding["path"] for finding in json.loads(result.stdout)})

    assert checked() == ["layer.py", "legacy/old.py", "steps.py"]  # build/ is excluded
    assert checked("--extend-exclude", "legacy") == ["layer.py", "steps.py"]
    assert checked("--extend-exclude", "legacy/*.py,layer.py") == ["steps.py"]
    assert checked("--exclude", "legacy") == ["build/generated.py", "layer.py", "steps.py"]
    (project / "pyproject.toml").write_text('[tool.tf-insight]\nextend-exclude = ["st*.py"]\n')
    assert checked() == ["layer.py", "legacy/old.py"]
    assert checked("steps.py") == ["layer.py", "legacy/old.py", "steps.py"]  # named: checked


# ---- output ----------------------------------------------------------------------------------

def test_quiet_prints_the_findings_and_nothing_else(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.tf-insight]\npython = "/usr/bin/python3"\n')
    loud = run("check", ".", cwd=project)
    assert "Found 2 findings" in loud.stderr and "not running the interpreter" in loud.stderr
    quiet = run("check", "--quiet", ".", cwd=project)
    assert (quiet.returncode, quiet.stderr, quiet.stdout) == (1, "", loud.stdout)
    chosen = run("check", "--config", 'python = "/usr/bin/python3"', ".", cwd=project)
    assert "not running the interpreter" not in chosen.stderr  # the user chose one
    assert run("check", "-q", "layer.py", "--ignore", "TFI001", cwd=project).stderr == ""


def test_github_annotations(project: Path) -> None:
    result = run("check", "--output-format", "github", ".", cwd=project)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("::error file=layer.py,line=5,col=6,endLine=5,endColumn=24,"
                               "title=tf-insight TFI001 (custom-gradient-keyword-args)::"
                               "layer.py:5:6: TFI001 ")
    assert lines[1].startswith("::warning file=steps.py,line=6,col=5,")
    assert all("\n" not in line and "%0A" not in line.split("::", 2)[1] for line in lines)


def test_gitlab_code_quality(project: Path) -> None:
    issues = json.loads(run("check", "--output-format", "gitlab", ".", cwd=project).stdout)
    assert [(i["check_name"], i["severity"], i["location"]) for i in issues] == [
        ("TFI001 custom-gradient-keyword-args", "major",
         {"path": "layer.py", "lines": {"begin": 5, "end": 5}}),
        ("TFI006 trace-time-side-effect", "minor",
         {"path": "steps.py", "lines": {"begin": 6, "end": 6}})]
    assert len({issue["fingerprint"] for issue in issues}) == 2
    again = json.loads(run("check", "--output-format", "gitlab", ".", cwd=project).stdout)
    assert [i["fingerprint"] for i in again] == [i["fingerprint"] for i in issues]


def test_junit_xml(project: Path) -> None:
    suites = ElementTree.fromstring(
        run("check", "--output-format", "junit", ".", cwd=project).stdout)
    assert (suites.tag, suites.get("tests"), suites.get("failures")) == ("testsuites", "2", "2")
    cases = [(suite.get("name"), case.get("name"), case.get("line"))
             for suite in suites for case in suite if case.find("failure") is not None]
    assert cases == [("layer.py", "tf-insight.TFI001", "5"), ("steps.py", "tf-insight.TFI006",
                                                               "6")]
    clean = ElementTree.fromstring(
        run("check", "--output-format", "junit", "--ignore", "TFI", ".", cwd=project).stdout)
    assert clean.get("failures") == "0" and clean.find("testsuite/testcase") is not None


# ---- fixes -----------------------------------------------------------------------------------

def test_diff_shows_the_fix_and_changes_nothing(project: Path) -> None:
    result = run("check", "--diff", "steps.py", cwd=project)
    assert result.returncode == 1
    assert result.stdout.splitlines()[:2] == ["--- a/steps.py", "+++ b/steps.py"]
    assert "-    print(x)\n+    tf.print(x)" in result.stdout
    assert "Would fix 1 finding." in result.stderr
    assert (project / "steps.py").read_text() == SIDE_EFFECT
    listed = run("check", "--diff", "--show-fixes", "steps.py", cwd=project)
    assert "Would fix 1 finding:\n- steps.py:\n    1 × TFI006 (trace-time-side-effect)" in (
        listed.stderr)


def test_show_fixes_lists_what_fix_did(project: Path) -> None:
    result = run("check", "--fix", "--show-fixes", ".", cwd=project)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Fixed 2 findings:" in result.stderr
    assert "- steps.py:\n    1 × TFI006 (trace-time-side-effect)" in result.stderr
    assert "tf.print(x)" in (project / "steps.py").read_text()
    assert run("check", "--diff", ".", cwd=project).returncode == 0  # nothing left to fix


# ---- settings --------------------------------------------------------------------------------

def test_config_names_a_settings_file_or_a_setting(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.tf-insight]\nignore = ["TFI001"]\n')
    assert codes(run("check", "--output-format", "json", ".", cwd=project)) == ["TFI006"]
    (project / "ci.toml").write_text('ignore = ["TFI006"]\n')
    from_file = run("check", "--output-format", "json", "--config", "ci.toml", ".", cwd=project)
    assert codes(from_file) == ["TFI001"]  # instead of the project's pyproject.toml
    (project / "other").mkdir()
    (project / "other" / "pyproject.toml").write_text('[tool.tf-insight]\nselect = ["TFI006"]\n')
    as_pyproject = run("check", "--output-format", "json", "--config", "other/pyproject.toml",
                       ".", cwd=project)
    assert codes(as_pyproject) == ["TFI006"]
    inline = run("check", "--output-format", "json", "--config", 'ignore = ["TFI001", "TFI006"]',
                 ".", cwd=project)
    assert codes(inline) == []


@pytest.mark.parametrize(("value", "said"), [
    ("nowhere.toml", "not a settings file, nor a setting"),
    ("select = [", "not a settings file, nor a setting"),
    ('select = ["TFX"]', "--config: unknown rule code 'TFX' in `select`"),
    ("colour = true", "--config: unknown setting(s): colour")])
def test_a_bad_config_option_is_a_clear_error(project: Path, value: str, said: str) -> None:
    result = run("check", "--config", value, ".", cwd=project)
    assert result.returncode == 2 and said in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


# ---- one spelling for the report file --------------------------------------------------------

def test_every_command_writes_its_report_with_output_file(project: Path) -> None:
    for command in ("check", "explain", "trace"):
        usage = run(command, "--help", cwd=project).stdout
        assert "-o FILE, --output-file FILE" in usage, command
    report = project / "report.txt"
    explained = run("explain", "-o", str(report), cwd=project,
                    stdin="TypeError: Cannot convert a symbolic Tensor to a numpy array\n")
    assert explained.stdout == "" and report.read_text().strip()
    assert run("check", "-o", str(report), ".", cwd=project).stdout == ""
    assert "TFI006" in report.read_text()
    old = run("check", "--format", "json", "--output-file", str(report), ".", cwd=project)
    assert old.returncode == 1 and json.loads(report.read_text())


def test_an_unknown_option_is_the_commands_usage_error(project: Path) -> None:
    for command in ("trace", "check", "explain"):
        result = run(command, "--no-such-option", cwd=project)
        assert result.returncode == 2
        assert result.stderr.startswith(f"usage: tf-insight {command} "), result.stderr
        assert f"{{{command}" not in result.stderr
