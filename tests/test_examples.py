"""The bundled examples: `tf-insight check` finds exactly the marked lines, and each example
really shows its hazard when run on TensorFlow (slow)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.markers import expected
from tf_insight.check.analyzer import check_paths
from tf_insight.check.project import Project
from tf_insight.config import Config

EXAMPLES = Path(__file__).parent.parent / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))


def test_check_finds_exactly_the_marked_lines() -> None:
    project = Project(config=Config(), root=EXAMPLES)
    found = {
        (Path(a.path).name, f.span.line, f.code)
        for a in check_paths([EXAMPLES], project)
        for f in a.findings
    }
    marked = {(p.name, line, code) for p in SCRIPTS for line, code in expected(p)}
    assert found == marked


# What each example shows when it runs: a line of its output (stdout + stderr).
SYMPTOMS = {
    "bert4keras_recompute.py": "The custom_gradient decorator currently supports keywords "
    "arguments only when eager execution is enabled",
    "remat_scope_dropout.py": "The custom_gradient decorator currently supports keywords "
    "arguments only when eager execution is enabled",
    "global_capture.py": "1\n1\n",
    "summary_step.py": "traces: 20",
    "untracked_variables.py": "trainable weights: 0",
    "scalar_loss.py": "scalar_loss: weighted loss 0.1587",
    "dataset_fit_args.py": "When providing `x` as a tf.data.Dataset, `sample_weights` should "
    "not be passed",
    "sparse_retrace.py": "traces: 5",
    "fractal2d_print.py": "call executes eagerly: False",
}


def test_every_example_has_a_symptom() -> None:
    assert set(SYMPTOMS) == {p.name for p in SCRIPTS}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SYMPTOMS))
def test_example_reproduces_its_hazard(name: str) -> None:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
    result = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True,
                            text=True, timeout=300, env=env)
    assert SYMPTOMS[name] in result.stdout + result.stderr


@pytest.mark.parametrize(("traceback", "entry"), [
    ("bert4keras_recompute.txt", "custom-gradient-keyword-arguments"),
    ("remat_scope_dropout.txt", "remat-scope-keyword-arguments"),
])
def test_bundled_tracebacks_are_explained(traceback: str, entry: str) -> None:
    """Real stderr of the two seed-000 examples (captured on TF 2.21, the demo explains them).
    tf-keras has no RematScope: a user layer named like a built-in is still the user's."""
    from tf_insight.explain import explain

    text = (EXAMPLES / "tracebacks" / traceback).read_text(encoding="utf-8")
    explanation = explain(text, root=EXAMPLES)
    assert (explanation.id, explanation.rule) == (entry, "TFI001")
    assert any(f.code == "TFI001" for f in explanation.findings)
