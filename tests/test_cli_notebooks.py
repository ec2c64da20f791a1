"""`tf-insight check` on Jupyter notebooks: code cells joined in order, magics neutralised,
findings by cell and line, `# noqa` and settings as for .py files, `--fix` that rewrites only
the changed cells."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.test_cli_check import HAZARD, run

MARKDOWN = {"cell_type": "markdown", "metadata": {}, "source": ["# Training\n"]}
IMPORTS = {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
           "source": ["%matplotlib inline\n", "!pip install tensorflow\n",
                      "import tensorflow as tf\n"]}
SUMMARY = {"cell_type": "code", "execution_count": 2, "metadata": {"tags": ["train"]},
           "outputs": [{"output_type": "stream", "name": "stdout", "text": ["0\n", "1\n"]}],
           "source": ["@tf.function\n",
                      "def log_metric(step):\n",
                      "    tf.summary.scalar('loss', 1.0, step=step)\n",
                      "\n",
                      "for step in range(2):\n",
                      "    log_metric(tf.constant(step))\n",
                      "    print(step)"]}
SILENCED = {"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [],
            "source": "%%time\nlog_metric(tf.constant(7))\n"}


def notebook(*cells: dict[str, Any]) -> dict[str, Any]:
    return {"cells": list(cells), "metadata": {"kernelspec": {"name": "python3"}},
            "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "train.ipynb").write_text(
        json.dumps(notebook(MARKDOWN, IMPORTS, SUMMARY, SILENCED), indent=1) + "\n")
    return tmp_path


def test_findings_name_the_cell_and_its_line(workspace: Path) -> None:
    result = run("check", ".", cwd=workspace)
    assert result.returncode == 1
    headline, *excerpt = result.stdout.splitlines()
    # cell 3, line 6, column 16: `tf.constant(step)`; the magics of cell 2 are not reported,
    # and cell 4 is a `%%time` cell magic: not Python, blanked
    assert headline.startswith("train.ipynb:cell 3:6:16: TFI005 [*] ")
    assert excerpt[:3] == ["  |", "6 |     log_metric(tf.constant(step))",
                           "  |                ^^^^^^^^^^^^^^^^^"]

    (finding,) = json.loads(run("check", "train.ipynb", "--format", "json", cwd=workspace).stdout)
    assert (finding["cell"], finding["line"], finding["column"]) == (3, 6, 16)
    assert finding["fix"]["edits"][0]["cell"] == 3
    assert finding["related"][0]["cell"] == 3  # the summary call in the same cell


def test_noqa_in_a_cell_and_project_settings_apply(workspace: Path) -> None:
    silenced = json.loads(json.dumps(SUMMARY))
    silenced["source"][5] = "    log_metric(tf.constant(step))  # noqa: TFI005\n"
    (workspace / "train.ipynb").write_text(json.dumps(notebook(silenced), indent=1))
    assert run("check", ".", cwd=workspace).returncode == 0

    (workspace / "other.ipynb").write_text(json.dumps(notebook(IMPORTS, SUMMARY)))
    assert run("check", ".", cwd=workspace).returncode == 1
    (workspace / "pyproject.toml").write_text('[tool.tf-insight]\nignore = ["TFI005"]\n')
    assert run("check", ".", cwd=workspace).returncode == 0


def test_fix_rewrites_only_the_changed_line(workspace: Path) -> None:
    path = workspace / "train.ipynb"
    before = path.read_text()
    result = run("check", "train.ipynb", "--fix", cwd=workspace)
    assert "fixed 1 finding(s)" in result.stderr and result.returncode == 0
    after = path.read_text()
    changed = [(old, new) for old, new in zip(before.splitlines(), after.splitlines(),
                                              strict=True) if old != new]
    assert changed == [('    "    log_metric(tf.constant(step))\\n",',
                        '    "    log_metric(tf.constant(step, dtype=tf.int64))\\n",')]
    assert run("check", "train.ipynb", cwd=workspace).returncode == 0


def test_a_notebook_that_is_not_json_gets_a_clear_message(tmp_path: Path) -> None:
    (tmp_path / "broken.ipynb").write_text('{"cells": [')
    (tmp_path / "not_a_notebook.ipynb").write_text('{"metadata": {}}')
    result = run("check", ".", cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "broken.ipynb:1:1: TFI000 not a notebook: invalid JSON at line 1" in result.stdout
    assert "not_a_notebook.ipynb:1:1: TFI000 not a notebook: no list of `cells`" in result.stdout


SARIF_SCHEMA = (Path(__file__).resolve().parents[1] / "node_modules" / "@microsoft" / "jest-sarif"
                / "lib" / "schemas" / "sarif-2.1.0-rtm.5.json")


def test_sarif_points_into_the_notebook_file_as_stored_and_validates(workspace: Path) -> None:
    """Code scanning shows the `.ipynb` file's own lines: the region is there, the cell and
    its line under `properties`. The log validates against the SARIF 2.1.0 schema (the one
    published with Microsoft's SARIF tools, installed by npm)."""
    import jsonschema

    (workspace / "hazard.py").write_text(HAZARD)  # a finding with a fix in a .py file
    sarif = json.loads(run("check", "--format", "sarif", ".", cwd=workspace).stdout)
    jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")))
    results = sarif["runs"][0]["results"]
    (in_notebook,) = [r for r in results
                      if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                      == "train.ipynb"]
    location = in_notebook["locations"][0]
    region = location["physicalLocation"]["region"]
    stored = (workspace / "train.ipynb").read_text().splitlines()
    line = stored[region["startLine"] - 1]
    assert line[region["startColumn"] - 1:].startswith("tf.constant(step))"), line
    assert region["endLine"] == region["startLine"]
    assert line[region["endColumn"] - 2] == ")"  # the span's last character
    assert location["properties"]["cell"] == 3
    assert (location["properties"]["cellRegion"]["startLine"],
            location["properties"]["cellRegion"]["startColumn"]) == (6, 16)
    assert "fixes" not in in_notebook  # a fix there would have to edit the file's JSON text
    related = in_notebook["relatedLocations"][0]["physicalLocation"]["region"]
    assert "tf.summary.scalar" in stored[related["startLine"] - 1]
    assert any("fixes" in r for r in results if r is not in_notebook)  # .py fixes stay


def test_a_shell_line_continued_with_a_backslash_is_not_python(tmp_path: Path) -> None:
    """`!pip install a \\` with its continuation on the next lines: the whole command is
    shell, and the rest of the notebook is still checked."""
    install = {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
               "source": ["!pip install tensorflow \\\n", "    tensorboard \\\n",
                          "    tf-keras\n", "import tensorflow as tf\n"]}
    (tmp_path / "setup.ipynb").write_text(json.dumps(notebook(install, SUMMARY)))
    result = run("check", ".", "--output-format", "concise", cwd=tmp_path)
    assert "TFI000" not in result.stdout, result.stdout
    assert "setup.ipynb:cell 2:6:16: TFI005" in result.stdout


def test_a_line_magic_without_its_percent_is_not_python(tmp_path: Path) -> None:
    """IPython's automagic (on by default) runs `load_ext watermark` and `watermark -v -p
    tensorflow` as magics: those lines are not Python, and the rest of the notebook is still
    checked (cmip6-downscaling==1.1.1's analysis template, round 22 of the precision corpus,
    was one TFI000 before). A line that Python reads, or that starts a statement (`time = (`),
    stays Python."""
    magics = {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
              "source": ["load_ext watermark\n", "watermark -v -p tensorflow\n",
                         "import tensorflow as tf\n", "time = (1,\n", "        2)\n"]}
    (tmp_path / "report.ipynb").write_text(json.dumps(notebook(magics, SUMMARY)))
    result = run("check", ".", "--output-format", "concise", cwd=tmp_path)
    assert "TFI000" not in result.stdout, result.stdout
    assert "report.ipynb:cell 2:6:16: TFI005" in result.stdout
