"""TFI013 (round 16 dev, invariant-attention): `range(tf.rank(x) - 1)` in a Keras 3 layer's
`call`. Eagerly it works; under `tf.function` (as in fit or predict) `tf.rank` is a symbolic
tensor and `range` raises TypeError.

    .venv/bin/python bench/precision/checks/range_of_tf_rank_in_keras3_call.py
"""
import keras
import tensorflow as tf


class PadLast(keras.layers.Layer):
    def call(self, x):
        padding = []
        for _ in range(tf.rank(x) - 1):
            padding.append([0, 0])
        padding.append([1, 0])
        return tf.pad(x, padding, constant_values=1.0)


layer = PadLast()
x = tf.ones([2, 3, 3])
print("eager", layer(x).shape)
try:
    print("tf.function", tf.function(layer)(x).shape)
except TypeError as error:
    print("tf.function raised TypeError:", str(error).splitlines()[0][:100])
