"""TFI025: `len(tf.shape(x))` in a helper a Keras layer's `call` uses for drop-path in
training, under `fit`. Keras 3 raises `TypeError: len is not well defined for a symbolic
Tensor` (its `call` is not AutoGraph-converted); tf-keras converts `call`, and `fit` works.

    .venv/bin/python bench/precision/checks/len_of_shape_in_keras3_layer_call.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/len_of_shape_in_keras3_layer_call.py
"""

import numpy as np
import tensorflow as tf


def drop(inputs, rate, training):
    if not training or rate == 0.0:
        return inputs
    rank = len(tf.shape(inputs))
    shape = (tf.shape(inputs)[0],) + (1,) * (rank - 1)
    return inputs / (1 - rate) * tf.floor(1 - rate + tf.random.uniform(shape))


class DropPath(tf.keras.layers.Layer):
    def call(self, x, training=None):
        return drop(x, 0.2, training)


model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(4), DropPath()])
model.compile(optimizer="sgd", loss="mse")
try:
    model.fit(np.ones((8, 4)), np.ones((8, 4)), verbose=0)
    print("fit ok")
except TypeError as error:
    print("fit TypeError:", "len is not well defined" in str(error))
