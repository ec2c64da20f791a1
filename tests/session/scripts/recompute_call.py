"""`@tf.recompute_grad` on a layer's `call`, the natural decorator form: the forward pass
works, the gradient fails because `self` is treated as a tensor input."""

import numpy as np
import tensorflow as tf


class Block(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(8)

    @tf.recompute_grad  # @verdict
    def call(self, x):
        return self.dense(x)


model = tf.keras.Sequential([tf.keras.Input((4,)), Block(), tf.keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(np.ones((8, 4), "float32"), np.ones((8, 1), "float32"), epochs=1, verbose=0)
