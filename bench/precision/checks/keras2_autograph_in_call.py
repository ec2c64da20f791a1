"""TFI012 / TFI013 in a Layer.call under tf-keras and Keras 3: `int()` of a value computed from
`tf.shape(x)`, a conditional expression and an `if` on a tensor. tf-keras AutoGraph-converts
`call` (int() becomes a cast, the conditions become tf.cond); Keras 3 does not, and the model
cannot be built.

    .venv/bin/python bench/precision/checks/keras2_autograph_in_call.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/keras2_autograph_in_call.py
"""

import os

import numpy as np
import tensorflow as tf

keras = tf.keras
flavor = "tf-keras" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3"


class IntOfShape(keras.layers.Layer):
    def call(self, x):
        top_k = int(2 * tf.math.log(tf.cast(tf.shape(x)[1], tf.float32)))
        return tf.math.top_k(x, top_k)[0]


class ConditionalExpression(keras.layers.Layer):
    def call(self, x):
        batch = tf.shape(x)[0]
        y = x[tf.newaxis] if batch == 1 else x
        return y * 2.0


class IfOnTensor(keras.layers.Layer):
    def call(self, x):
        if tf.math.greater(tf.shape(x)[1], 4):
            return x[:, :4]
        return x


for layer, width in ((IntOfShape(), 4), (ConditionalExpression(), 8), (IfOnTensor(), 4)):
    try:
        inputs = keras.Input((8,))
        model = keras.Model(inputs, layer(inputs))
        model.compile(loss="mse")
        model.fit(np.ones((4, 8)), np.ones((4, width)), verbose=0)
        print(f"{flavor}: {type(layer).__name__}: built and fitted")
    except Exception as error:  # what fails is the answer
        print(f"{flavor}: {type(layer).__name__}: {type(error).__name__}")
