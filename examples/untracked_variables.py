"""Seed 003 §3.2: variables kept in a Python list on a Keras 3 layer are never tracked."""

import numpy as np
import tensorflow as tf

keras = tf.keras


class Polynomial(keras.layers.Layer):
    def __init__(self, order):
        super().__init__()
        self.order = order
        self.w = [None] * order
        for i in range(order):
            self.w[i] = tf.Variable(0.1, trainable=True, name=f"coefficient_{i + 1}")
        self.b = tf.Variable(0.1, trainable=True, name="bias")

    def call(self, inputs):
        outputs = self.b + 0.0 * inputs
        for i in range(self.order):
            outputs += self.w[i] * tf.pow(inputs, i + 1)
        return outputs


model = keras.Sequential([keras.Input((1,)), Polynomial(3)])
model.compile(optimizer="sgd", loss="mse")
print("trainable weights:", len(model.trainable_weights))
model.fit(np.ones((8, 1)), np.ones((8, 1)), epochs=1, verbose=0)
