"""Keras 3 RematScope around a Dropout layer, trained with `fit`: `python remat_scope.py`.

On the TensorFlow backend remat wraps each layer call in `tf.recompute_grad`, and Dropout
receives `training=True` inside `fit`, so the first step raises the custom_gradient keyword
error. The traceback only names `Functional.call()` and the `fit` line; the static analyzer
finds the cause inside the scope (at the latest on the line marked `# @finding: TFI001`).
"""

import numpy as np
import tensorflow as tf

keras = tf.keras

with keras.RematScope(mode="full"):
    inputs = keras.Input((3,))
    hidden = keras.layers.Dense(8)(inputs)
    hidden = keras.layers.Dropout(0.5)(hidden)  # @finding: TFI001
    outputs = keras.layers.Dense(3)(hidden)
    model = keras.Model(inputs, outputs)

model.compile(optimizer="sgd", loss="mse")
data = np.ones((8, 3), "float32")
model.fit(data, data, epochs=1, verbose=0)  # @raise: remat_scope
