"""A project that trains its Keras models only in eager `GradientTape` loops, and traces nothing
(no `tf.function`, no Keras `fit`/`evaluate`/`predict`), calls its layers eagerly: what goes
wrong only in a graph does not happen there (the case of spirograph==0.0.0, 29 FALSE findings
of round 19's held-out half: its decoders keep state in NumPy and its own tests train them
eagerly; bench/precision/judgements.csv). Such findings are left out with a note; tf.data
functions are still traced. One file that traces, or a tape that only computes a gradient
(a penalty helper, no update), and they are reported."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

LAYER = textwrap.dedent("""\
    import numpy as np
    import tensorflow as tf


    class Memory(tf.keras.layers.Layer):
        def call(self, x):
            self.last = x.numpy()
            return x * 2.0


    def scale(x):
        return x * float(np.asarray(x.numpy()).sum())


    batches = tf.data.Dataset.from_tensor_slices([[1.0], [2.0]]).map(scale)
    """)
EAGER_LOOP = textwrap.dedent("""\
    import tensorflow as tf

    from model import Memory

    layer = Memory()
    optimizer = tf.keras.optimizers.SGD(0.1)
    weight = tf.Variable(1.0)
    for x in [tf.ones((1, 1))] * 3:
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(layer(x) * weight)
        grads = tape.gradient(loss, [weight])
        optimizer.apply_gradients(zip(grads, [weight]))
    """)


def project(root: Path, train: str) -> None:
    (root / "pyproject.toml").write_text("")
    (root / "model.py").write_text(LAYER)
    (root / "train.py").write_text(train)


def check(root: Path) -> tuple[list[tuple[str, int, str]], str]:
    result = subprocess.run([sys.executable, "-m", "tf_insight.cli", "check", "--exit-zero",
                             "--no-cache", "--output-format", "json", "."],
                            cwd=root, capture_output=True, text=True, timeout=120, check=True)
    return ([(f["path"], f["line"], f["code"]) for f in json.loads(result.stdout)],
            result.stderr)


def test_a_project_that_only_trains_eagerly_runs_its_layers_eagerly(tmp_path: Path) -> None:
    project(tmp_path, EAGER_LOOP)
    findings, notes = check(tmp_path)
    # the layer's call is left out; the tf.data function is still traced
    assert findings == [("model.py", 12, "TFI012")]
    assert "`train.py` trains in an eager `GradientTape` loop" in notes


@pytest.mark.parametrize("change", [
    lambda text: text.replace("for x in", "@tf.function\ndef step(x):\n    return layer(x)\n\n\n"
                              "for x in"),
    lambda text: text + "model = tf.keras.Sequential([layer])\nmodel.predict(tf.ones((1, 1)))\n",
    lambda text: text.replace("optimizer.apply_gradients(zip(grads, [weight]))", "print(grads)"),
], ids=["a tf.function", "Keras predict", "a tape that updates nothing"])
def test_what_traces_or_does_not_train_keeps_the_findings(tmp_path: Path, change) -> None:
    project(tmp_path, change(EAGER_LOOP))
    findings, notes = check(tmp_path)
    assert ("model.py", 7, "TFI012") in findings
    assert "GradientTape" not in notes


# A project whose only traces are its own tf.functions (pyvitae==2.1.0 and bwmd==0.2.2 in
# bench/precision/judgements.csv: a tf.function on a rank helper or on one layer's `call` does
# not put the model's other classes in a graph).
HELPER = textwrap.dedent("""\
    import tensorflow as tf


    @tf.function
    def rank(x):
        return tf.argsort(tf.argsort(x))
    """)
SPARE = textwrap.dedent("""\
    import tensorflow as tf


    class Spare(tf.keras.layers.Layer):
        def call(self, x):
            self.last = x.numpy()
            return x
    """)


def partly_traced_project(root: Path, train: str) -> None:
    project(root, train)
    (root / "helpers.py").write_text(HELPER)
    (root / "spare.py").write_text(SPARE)


TRACED_HELPER_LOOP = EAGER_LOOP.replace(
    "import tensorflow as tf\n", "import tensorflow as tf\n\nfrom helpers import rank\n").replace(
    "loss = tf.reduce_sum(layer(x) * weight)",
    "loss = tf.reduce_sum(layer(x) * weight) + tf.reduce_sum(tf.cast(rank(x), tf.float32))")


def test_what_no_tf_function_of_the_project_reaches_runs_eagerly(tmp_path: Path) -> None:
    partly_traced_project(tmp_path, TRACED_HELPER_LOOP)
    findings, notes = check(tmp_path)
    # Memory.call is left out; a layer the project never uses is API for its users (kept);
    # the tf.data function is still traced
    assert sorted(findings) == [("model.py", 12, "TFI012"), ("spare.py", 6, "TFI012")]
    assert "none of the project's tf.functions reaches `Memory.call`" in notes


@pytest.mark.parametrize("change", [
    # the tf.function calls the layer through a module variable
    lambda text: text + "\n\n@tf.function\ndef step(x):\n    return layer(x)\n",
    # ... through a parameter: any class may be reached
    lambda text: text + "\n\n@tf.function\ndef step(net, x):\n    return net(x)\n",
    # ... through an attribute stored from a parameter
    lambda text: text + ("\n\nclass Runner:\n    def __init__(self, net):\n        self.net = net\n"
                         "\n    @tf.function\n    def step(self, x):\n        return self.net(x)\n"),
    # a compiled model's fit
    lambda text: text + "model = tf.keras.Sequential([layer])\nmodel.compile('sgd', 'mse')\n"
                        "model.fit(tf.ones((1, 1)), tf.ones((1, 1)))\n",
], ids=["a module variable", "a parameter", "a stored parameter", "a compiled fit"])
def test_a_tf_function_that_may_reach_the_layer_keeps_its_findings(tmp_path: Path,
                                                                   change) -> None:
    partly_traced_project(tmp_path, change(TRACED_HELPER_LOOP))
    findings, notes = check(tmp_path)
    assert ("model.py", 7, "TFI012") in findings
    assert "GradientTape" not in notes


def test_a_fit_of_no_compiled_model_is_not_a_keras_step(tmp_path: Path) -> None:
    """`scaler.fit(...)` (scikit-learn) in a project that compiles no Keras model."""
    project(tmp_path, EAGER_LOOP + "scaler = object()\nscaler.fit([[1.0]])\n")
    findings, notes = check(tmp_path)
    assert findings == [("model.py", 12, "TFI012")]
    assert "`train.py` trains in an eager `GradientTape` loop" in notes


def test_an_eager_call_of_a_tf_function_still_retraces(tmp_path: Path) -> None:
    """The training function runs eagerly, but the tf.function it calls is traced: an array
    of a new shape per call retraces it (TFI021), as a nested tf.function called with each
    scene's particles does (DeepLagrangianFluids#28, bench/recall.py)."""
    partly_traced_project(tmp_path, textwrap.dedent("""\
        import numpy as np
        import tensorflow as tf

        from model import Memory


        @tf.function
        def shifted(x):
            return x + 1.0


        def main():
            layer = Memory()
            optimizer = tf.keras.optimizers.SGD(0.1)
            weight = tf.Variable(1.0)
            for n in np.random.randint(2, 9, size=5):
                x = np.ones((int(n), 1), np.float32)
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(layer(x) * weight)
                grads = tape.gradient(loss, [weight])
                optimizer.apply_gradients(zip(grads, [weight]))
                shifted(x)


        main()
        """))
    findings, notes = check(tmp_path)
    assert ("train.py", 22, "TFI021") in findings
    assert ("model.py", 7, "TFI012") not in findings
    assert "none of the project's tf.functions reaches `Memory.call`" in notes
