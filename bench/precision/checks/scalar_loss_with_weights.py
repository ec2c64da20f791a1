"""TFI010: a Loss whose `call` reduces over the batch and returns one number, used with
per-sample weights (`sample_weight=` or `class_weight=`). Prints the loss Keras computes for a
per-sample loss and for the same loss reduced over the batch, with and without weights.

    .venv/bin/python bench/precision/checks/scalar_loss_with_weights.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/scalar_loss_with_weights.py
"""

import os

import numpy as np
import tensorflow as tf

keras = tf.keras


class PerSample(keras.losses.Loss):
    def call(self, y_true, y_pred):
        return tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)


class WholeBatch(keras.losses.Loss):
    def call(self, y_true, y_pred):
        return tf.reduce_mean(tf.square(y_true - y_pred))


y_true = np.array([[0.0], [0.0], [1.0], [1.0]], dtype="float32")
y_pred = np.array([[0.5], [0.5], [0.0], [0.0]], dtype="float32")
weights = np.array([1.0, 1.0, 3.0, 3.0], dtype="float32")
print("tf.keras is", "tf-keras (Keras 2)" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3")
for loss in (PerSample(), WholeBatch()):
    plain = float(loss(y_true, y_pred))
    try:
        weighted = float(loss(y_true, y_pred, sample_weight=weights))
    except Exception as error:  # we print what happens
        weighted = f"{type(error).__name__}: {str(error).splitlines()[0][:80]}"
    print(f"{type(loss).__name__:10} no weights {plain:.4f}  weights 1,1,3,3 {weighted}")
# per-sample losses 0.25, 0.25, 1, 1: weighted right = (0.25 + 0.25 + 3 + 3) / 4 = 1.625;
# the batch-reduced loss (0.625) times the mean weight (2) = 1.25: the weighting is lost.
