"""What a file gets does not depend on how `check` was called: argument order, the folder
given (the project root, a subfolder, the file), a project beside it, or PYTHONHASHSEED.
Each file's project (root, settings, Keras flavour from its requirements) is its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tf_insight.check.analyzer import analyze_source

pytestmark = pytest.mark.slow  # a dozen checks of real projects, each in a fresh process

TF_INSIGHT = str(Path(sys.executable).with_name("tf-insight"))
FIXTURES = Path(__file__).parent / "rules"


def check(*args: str | Path, cwd: Path, seed: str = "0") -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "XDG_CONFIG_HOME": str(cwd / ".no-config")}
    result = subprocess.run([TF_INSIGHT, "check", "--format", "json", *map(str, args)],
                            cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode in (0, 1), result.stderr
    found: list[dict[str, Any]] = json.loads(result.stdout)
    for finding in found:
        finding["path"] = str((cwd / finding["path"]).resolve())
    return found


def by_file(findings: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for finding in findings:
        grouped.setdefault(finding["path"], []).append(finding)
    return grouped


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    """Two projects side by side: `old` requires TF < 2.16 (Keras 2), `new` does not; in
    each, a tf.function calls a helper in a subpackage (a graph context across modules)."""
    layer = textwrap.dedent("""\
        import tensorflow as tf


        class Scale(tf.keras.layers.Layer):
            def build(self, input_shape):
                self.w = tf.Variable(1.0)

            def call(self, inputs):
                return inputs * self.w
        """)
    for name, requirement in (("old", '"tensorflow<2.16"'), ("new", '"tensorflow>=2.16"')):
        root = tmp_path / name
        (root / "pkg").mkdir(parents=True)
        (root / "pyproject.toml").write_text(
            f'[project]\nname = "{name}"\nversion = "1"\ndependencies = [{requirement}]\n')
        (root / "pkg" / "__init__.py").write_text("")
        (root / "pkg" / "helpers.py").write_text(
            "import numpy as np\nimport tensorflow as tf\n\n\ndef describe(x):\n    print(tf.shape(x))\n"
            "    return np.sum(x)\n")
        (root / "train.py").write_text(
            "import tensorflow as tf\n\nfrom pkg.helpers import describe\n\n\n@tf.function\n"
            "def step(x):\n    return describe(x)\n")
        (root / "pkg" / "layer.py").write_text(layer)
    return tmp_path


def test_the_same_findings_however_check_is_called(projects: Path) -> None:
    both = check("old", "new", cwd=projects)
    assert both == check("new", "old", cwd=projects), "argument order"
    grouped = by_file(both)
    helpers = str((projects / "new" / "pkg" / "helpers.py").resolve())
    assert {f["code"] for f in grouped[helpers]} == {"TFI006"}, (
        "the helper is graph code because train.py calls it from a tf.function")
    for project in ("old", "new"):
        alone = by_file(check(project, cwd=projects))
        for path, findings in alone.items():
            assert grouped[path] == findings, f"{path}: alone vs beside another project"
        sub = by_file(check(Path(project) / "pkg", cwd=projects))
        sub_file = by_file(check(Path(project) / "pkg" / "helpers.py", cwd=projects))
        from_inside = by_file(check("pkg", cwd=projects / project))
        for path in (str((projects / project / "pkg" / "helpers.py").resolve()),):
            assert sub[path] == sub_file[path] == from_inside[path] == grouped[path], path


def test_keras_flavour_comes_from_each_projects_requirements(projects: Path) -> None:
    grouped = by_file(check("old", "new", cwd=projects))
    old_layer = str((projects / "old" / "pkg" / "layer.py").resolve())
    new_layer = str((projects / "new" / "pkg" / "layer.py").resolve())
    assert old_layer not in grouped, "Keras 2 (tensorflow<2.16) tracks raw tf.Variables"
    assert [f["code"] for f in grouped[new_layer]] == ["TFI009"]
    result = subprocess.run([TF_INSIGHT, "check", "--statistics", "old", "new"], cwd=projects,
                            capture_output=True, text=True, timeout=300)
    assert f"Keras 2 for {projects / 'old'}: tensorflow <2.16 in pyproject.toml" in result.stdout
    assert f"Keras 3 for {projects / 'new'}: tensorflow >=2.16 in pyproject.toml" in result.stdout


def test_hash_seed_changes_nothing(tmp_path: Path) -> None:
    outputs = {seed: check(FIXTURES, cwd=tmp_path, seed=seed) for seed in ("0", "1", "12345")}
    assert outputs["0"], "the fixtures have findings"
    assert outputs["0"] == outputs["1"] == outputs["12345"]


def test_a_cycle_of_tf_functions_lists_its_calls_back_in_source_order() -> None:
    """TFI019 once listed them in the order of a set of functions: by memory address."""
    text = ("import tensorflow as tf\n\n"
            "@tf.function\ndef f0(x):\n    return f1(x)\n\n"
            "@tf.function\ndef f1(x):\n    return f0(x) + f2(x)\n\n"
            "@tf.function\ndef f2(x):\n    return f0(x)\n")
    for _ in range(20):  # new function objects each time, at other addresses
        finding = next(f for f in analyze_source(text, "m.py").findings if f.code == "TFI019")
        assert [item.span.line for item in finding.related] == [9, 13]
