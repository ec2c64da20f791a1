"""TFI031: `layer.losses` / `model.losses` read in a callback during fit.

    python losses_read_in_callback.py keras3|tfkeras

TF 2.21: with Keras 3 and with tf-keras both lists hold symbolic tensors of the traced step
(`<tf.Tensor 'sequential/sparse_code/mul:0' ...>`), and float() of them raises TypeError.
"""

import os
import sys

if sys.argv[1] == "tfkeras":
    os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf


class SparseCode(tf.keras.layers.Layer):
    def call(self, x):
        self.add_loss(0.01 * tf.reduce_mean(tf.abs(x)))
        return x

class Show(tf.keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        for what, losses in (("layer", self.model.layers[1].losses), ("model", self.model.losses)):
            try:
                print(sys.argv[1], what, [float(v) for v in losses])
            except TypeError as e:
                print(sys.argv[1], what, type(e).__name__, repr(losses)[:80])

model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(8), SparseCode(), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(np.random.rand(32, 4), np.random.rand(32, 1), epochs=1, verbose=0, callbacks=[Show()])
