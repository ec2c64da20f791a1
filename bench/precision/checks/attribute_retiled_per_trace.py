"""TFI006: a Keras layer's `call` replaces a stored tensor with one made from it.

    python attribute_retiled_per_trace.py

The layer keeps a constant in `build` and, in `call`, stores back its tile over the batch. TF 2.21,
Keras 3: building the functional model traces `call` once; every `predict` traces it again, which
tiles the tensor that trace stored and fails ("Shape must be rank 3 but is rank 2"). A layer that
defines `compute_output_shape` is not called to build the model: there the first `predict`
works, and the next trace (another batch size) fails the same way.
"""

import keras
import numpy as np
import tensorflow as tf


class PerSampleScale(keras.layers.Layer):
    def build(self, input_shape):
        self.scale = tf.constant([1.0, 2.0, 3.0])

    def call(self, inputs):
        batch = tf.shape(inputs)[:1]
        self.scale = tf.tile(tf.expand_dims(self.scale, 0), tf.concat([batch, [1]], 0))
        return inputs * self.scale


inputs = keras.Input((3,))
model = keras.Model(inputs, PerSampleScale()(inputs))
for rows in (2, 2, 3):  # a new batch size traces predict's function again
    try:
        model.predict(np.ones((rows, 3), "float32"), batch_size=rows, verbose=0)
        print(rows, "rows: predicted")
    except ValueError as error:
        print(rows, "rows:", next(line for line in str(error).splitlines() if "rank" in line))
