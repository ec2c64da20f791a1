"""TFI006 / TFI012: a custom `train_step` with a debug branch, off by default and documented
as eager-only, that prints per-variable gradient norms with
`print(f"... {tf.sqrt(tf.reduce_mean(tf.square(g))).numpy()}")` (as DiSTNet2D's
`print_gradients` option does). Under graph `fit` the f-string's `.numpy()` raises
AttributeError before `print` is called, so the print never runs "once per trace"; with
`run_eagerly=True`, the mode the option is meant for, it prints at every step.

Observed on TF 2.21 (Keras 3.15): debug off, graph fit: ok, 0 lines printed; debug on, graph
fit: AttributeError ('SymbolicTensor' object has no attribute 'numpy'), 0 lines printed;
debug on, run_eagerly=True: ok, 3 lines printed for 3 steps.

    .venv/bin/python bench/precision/checks/eager_only_debug_print_in_train_step.py
"""

import contextlib
import io

import numpy as np
import tensorflow as tf


class DebugModel(tf.keras.Model):
    def __init__(self, debug=False, **kwargs):
        super().__init__(**kwargs)
        self.debug = debug  # eager mode only
        self.dense = tf.keras.layers.Dense(1)

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(x) - y))
        grads = tape.gradient(loss, self.trainable_variables)
        if self.debug:
            g = grads[0]
            print(f"grad norm: {tf.math.sqrt(tf.reduce_mean(tf.math.square(g))).numpy()}")
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables, strict=True))
        return {"loss": loss}


x, y = np.ones((12, 2), "float32"), np.ones((12, 1), "float32")
for debug, eager in [(False, False), (True, False), (True, True)]:
    model = DebugModel(debug=debug)
    model.compile(optimizer="sgd", run_eagerly=eager)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            model.fit(x, y, batch_size=4, verbose=0)
        result = "ok"
    except AttributeError as error:
        result = f"AttributeError ({error})"
    printed = out.getvalue().count("grad norm")
    print(f"debug={debug} run_eagerly={eager}: {result}, {printed} lines printed")
