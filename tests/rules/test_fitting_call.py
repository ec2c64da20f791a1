"""A Keras class whose `call` runs optimizer steps itself, or through a method of its own (a
Gaussian process or an adaptive filter fitted to each input under its own `GradientTape` loop),
fits on each call, which it does eagerly: its graph-only findings are left out, with a note
naming the step, and so are those of the helpers that get their graph context from it
(ml-ocean-bl==0.1's `GPR`, 6 FALSE of round 21's held-out half; kid-ppg==0.0.4's
`AdaptiveFilteringModel`, round 27's dev half; bench/precision/judgements.csv). A class that
does not step an optimizer in `call`, and the helpers other graph code calls, keep their
findings."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.rules.checked import check_one_file

MODULE = textwrap.dedent("""\
    import numpy as np
    import tensorflow as tf


    def nearest(points, query):
        return np.argmin(np.abs(points - query))


    class FittedPerCall(tf.keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.scale = self.add_weight(shape=(), initializer="ones")
            self.optimizer_ = tf.keras.optimizers.SGD(0.1)

        def fit_step(self, inputs):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((inputs * self.scale - 1.0) ** 2)
            grads = tape.gradient(loss, [self.scale])
            self.optimizer_.apply_gradients(zip(grads, [self.scale]))

        def call(self, inputs):
            for _ in range(20):
                self.fit_step(inputs)
            return inputs * float(self.scale.numpy()) + nearest(inputs, 0.5)


    def closest(points, query):
        return np.argmin(np.abs(points - query))


    class Plain(tf.keras.Model):
        def call(self, inputs):
            return inputs * float(inputs.numpy().mean()) + closest(inputs, 0.5)


    model = Plain()
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.zeros((8, 1)), np.zeros((8, 1)))
    """)


def test_a_keras_class_that_fits_in_call_runs_eagerly(tmp_path: Path) -> None:
    found, notes = check_one_file(tmp_path, "fitted.py", MODULE)
    assert sorted(found) == [("TFI012", 28), ("TFI012", 33)]  # Plain's call and its helper
    assert ("`FittedPerCall.call` runs optimizer steps itself "
            "(`self.optimizer_.apply_gradients`, line 19): it fits on each call, which "
            "`FittedPerCall` does eagerly") in notes
