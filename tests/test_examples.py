"""The bundled examples: `tf-insight check` finds exactly the lines listed here (the examples
carry no test markers: they are what users read), and each example really shows its hazard
when run on TensorFlow (slow)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tf_insight.check.analyzer import check_paths
from tf_insight.check.project import Project
from tf_insight.config import Config

EXAMPLES = Path(__file__).parent.parent / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))


# Each example's findings: (file, line, code, the start of that line's code), the last so that
# an edit of an example that moves its lines fails here with the line it moved.
FINDINGS = [
    ("bert4keras_recompute.py", 30, "TFI001", "@recompute_grad"),
    ("dataset_fit_args.py", 12, "TFI011", "model.fit(dataset, batch_size=2"),
    ("dataset_fit_args.py", 13, "TFI011", "model.fit(dataset, sample_weight="),
    ("fractal2d_print.py", 15, "TFI006", 'print(f"call executes eagerly:'),
    ("fractal2d_print.py", 15, "TFI007", 'print(f"call executes eagerly:'),
    ("global_capture.py", 10, "TFI003", "return scale * x"),
    ("remat_scope_dropout.py", 12, "TFI001", "hidden = keras.layers.Dense("),
    ("remat_scope_dropout.py", 13, "TFI001", "hidden = keras.layers.Dropout("),
    ("scalar_loss.py", 10, "TFI010", "return tf.reduce_mean("),
    ("sparse_retrace.py", 13, "TFI016", "total(eye)"),
    ("summary_step.py", 18, "TFI004", "log_metric(step)"),
    ("summary_step.py", 21, "TFI005", "log_metric(tf.constant(20))"),
    ("untracked_variables.py", 15, "TFI009", "self.w[i] = tf.Variable("),
    ("untracked_variables.py", 16, "TFI009", "self.b = tf.Variable("),
]


def test_the_listed_lines_are_as_listed() -> None:
    for name, line, _code, start in FINDINGS:
        text = (EXAMPLES / name).read_text(encoding="utf-8").splitlines()[line - 1]
        assert text.lstrip().startswith(start), (name, line, text)


def test_check_finds_exactly_the_listed_lines() -> None:
    project = Project(config=Config(), root=EXAMPLES)
    found = {
        (Path(a.path).name, f.span.line, f.code)
        for a in check_paths([EXAMPLES], project)
        for f in a.findings
    }
    assert found == {(name, line, code) for name, line, code, _ in FINDINGS}


def test_examples_carry_no_test_markers() -> None:
    for path in SCRIPTS:
        assert "# expect:" not in path.read_text(encoding="utf-8"), path.name


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
