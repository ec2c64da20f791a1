"""A Keras class that fronts another runtime (its `call` runs an ONNX Runtime session or a
TFLite interpreter kept on `self`) takes NumPy arrays and only runs eagerly, by design: its
graph-only findings are left out, with a note naming the call (zea==0.1.8's ONNX models, 3
DEBATABLE findings of round 22's held-out half; tf2cv==0.0.18's GRMIPoseLite, given its
interpreter; bench/precision/judgements.csv). A class that only has such a session, or a
plain Keras class, keeps its findings."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.rules.checked import check_one_file

MODULE = textwrap.dedent("""\
    import numpy as np
    import onnxruntime
    import tensorflow as tf


    class OnnxSegmenter(tf.keras.Model):
        def load(self, path):
            self.session = onnxruntime.InferenceSession(path)

        def call(self, inputs):
            frames = np.asarray(inputs.numpy(), dtype="float32")
            return self.session.run(None, {"input": frames})[0]


    class LiteScorer(tf.keras.Model):
        def __init__(self, interpreter, **kwargs):
            super().__init__(**kwargs)
            self.interpreter = interpreter
            self.interpreter.allocate_tensors()

        def call(self, inputs):
            self.interpreter.set_tensor(0, inputs.numpy())
            self.interpreter.invoke()
            return self.interpreter.get_tensor(1)


    class Scorer(tf.keras.Model):
        def load(self, path):
            self.session = onnxruntime.InferenceSession(path)

        def call(self, inputs):
            return inputs * float(inputs.numpy().mean())
    """)


def test_a_keras_front_for_another_runtime_runs_eagerly(tmp_path: Path) -> None:
    found, notes = check_one_file(tmp_path, "fronts.py", MODULE)
    assert found == [("TFI012", 32)]  # Scorer's call never runs its session
    assert ("`OnnxSegmenter.call` runs `self.session.run` (line 12), another runtime, on NumPy "
            "arrays: `OnnxSegmenter` only runs eagerly") in notes
    assert ("`LiteScorer.call` runs `self.interpreter.invoke` (line 23), another runtime, on "
            "NumPy arrays: `LiteScorer` only runs eagerly") in notes
