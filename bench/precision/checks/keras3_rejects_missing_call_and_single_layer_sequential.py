"""TFI009 premise (Keras 3): two constructs that tf-keras (Keras 2) accepts and Keras 3 rejects,
so code that relies on them runs on Keras 2 only.
(1) A Layer whose `call` was indented by mistake into `__init__` (so the class has no `call`):
    Keras 2's base `Layer.call` returns its input unchanged; Keras 3 raises NotImplementedError.
(2) `keras.Sequential(layer)` given one layer instead of a list: Keras 2 wraps it; Keras 3
    iterates it and raises TypeError.

Observed on TF 2.21: tf-keras prints shapes (1, 2) for both; Keras 3 prints
NotImplementedError for (1) and TypeError "'Dense' object is not iterable" for (2).

    .venv/bin/python bench/precision/checks/keras3_rejects_missing_call_and_single_layer_sequential.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/keras3_rejects_missing_call_and_single_layer_sequential.py
"""

import os
import warnings

import tensorflow as tf

warnings.filterwarnings("ignore")
keras = tf.keras
print("tf.keras is", "tf-keras (Keras 2)" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3")


class NoCall(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(2)

        def call(self, x):  # nested in __init__ by mistake: the class has no call
            return self.dense(x)


def short(error):
    return type(error).__name__ + ": " + " ".join(str(error).split())[:90]


try:
    print("(1) layer without call:", NoCall()(tf.ones((1, 2))).shape)
except Exception as error:
    print("(1) layer without call:", short(error))

try:
    print("(2) Sequential(one layer):", keras.Sequential(keras.layers.Dense(2))(tf.ones((1, 2))).shape)
except Exception as error:
    print("(2) Sequential(one layer):", short(error))
