"""TFI031: losses added as callables (`add_loss(lambda: ...)`) read in a callback during fit.

    python callable_losses_read_in_callback.py keras3|tfkeras

TF 2.21, tf-keras: `model.losses` calls each callable loss when read, so the callback gets eager
values and `.numpy()` works. Keras 3 rejects a callable in `add_loss` outright.
"""

import os
import sys

if sys.argv[1] == "tfkeras":
    os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf


class Masked(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.mask = self.add_weight(shape=(input_shape[-1],), initializer="ones")
        self.add_loss(lambda: tf.norm(tf.sigmoid(self.mask)))

    def call(self, x):
        return x * self.mask


class Show(tf.keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        print(sys.argv[1], "losses:", [float(loss.numpy()) for loss in self.model.losses])


try:
    model = tf.keras.Sequential([tf.keras.Input((4,)), Masked(), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.ones((8, 4)), np.ones((8, 1)), epochs=2, verbose=0, callbacks=[Show()])
except (TypeError, ValueError, AttributeError) as error:
    print(sys.argv[1], type(error).__name__, str(error).strip().splitlines()[0][:100])
