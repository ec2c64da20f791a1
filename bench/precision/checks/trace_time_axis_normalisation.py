"""TFI006: a layer's `call` turns a negative axis attribute into a positive one
(`self.axis = rank + self.axis`, rank from `len(tf.shape(x))`). Under tf-keras (AutoGraph
converts `call`, so `len` of the shape vector is the static rank) the attribute becomes a
plain Python int once, at the first trace; every later step and trace sees the same int, and
the outputs are right. Eager calls (as in unit tests) redo the same arithmetic each call.

    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/trace_time_axis_normalisation.py
"""

import os

import numpy as np
import tensorflow as tf

keras = tf.keras


class AppendMean(keras.layers.Layer):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        rank = len(tf.shape(inputs))
        if self.axis < 0:
            self.axis = rank + self.axis
        mean = tf.reduce_mean(inputs, axis=self.axis, keepdims=True)
        return tf.concat([inputs, mean], axis=self.axis)


print("tf.keras is", "tf-keras (Keras 2)" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3")
eager = AppendMean()
print("eager call:", eager(tf.ones((2, 3))).shape, "axis now", eager.axis)
layer = AppendMean()
inputs = keras.Input((3,))
model = keras.Model(inputs, keras.layers.Dense(1)(layer(inputs)))
model.compile("sgd", "mse")
print("after building the model: axis", repr(layer.axis), type(layer.axis).__name__)
x = np.arange(24, dtype="float32").reshape(8, 3)
model.fit(x, np.ones((8, 1)), batch_size=4, epochs=2, verbose=0)
print("after fit (2 epochs x 2 steps): axis", repr(layer.axis), type(layer.axis).__name__)
print("predict matches eager maths:",
      np.allclose(model.predict(x, verbose=0),
                  model.layers[-1](np.concatenate([x, x.mean(1, keepdims=True)], 1)).numpy()))
