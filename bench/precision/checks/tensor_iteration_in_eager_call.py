"""TFI013: a subclassed Keras Model whose `call(x, y)` iterates over a tensor (derived from a
weight) in a list comprehension. Called eagerly, as a plain `model(x, y)` (including the first,
building call), it works under both Keras versions; only when the call is traced
(tf.function) does the iteration raise, and AutoGraph (Keras 2) does not help, because it
leaves list comprehensions unconverted.

    .venv/bin/python bench/precision/checks/tensor_iteration_in_eager_call.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/tensor_iteration_in_eager_call.py
"""

import os
import re

import tensorflow as tf

keras = tf.keras


class MultiScale(keras.Model):
    def __init__(self):
        super().__init__()
        self.log_scales = self.add_weight(shape=(3,), initializer="zeros", trainable=False)

    def call(self, x, y):
        scales = tf.exp(self.log_scales)
        return tf.add_n([s * tf.matmul(x, y, transpose_b=True) for s in scales])


print("tf.keras is", "tf-keras (Keras 2)" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3")
x, y = tf.ones((2, 4)), tf.ones((3, 4))
model = MultiScale()
for label, fn in (("eager, first call", model), ("eager, second call", model),
                  ("inside tf.function", tf.function(lambda a, b: model(a, b)))):
    try:
        print(f"{label:20} ok, shape {tuple(fn(x, y).shape)}")
    except Exception as error:  # we print what happens
        line = next(ln for ln in str(error).splitlines() if "terating over" in ln)
        line = re.sub(r"\x1b\[[0-9;]*m", "", line).strip()
        print(f"{label:20} raises {type(error).__name__}: {line[:90]}")
