"""Seed 004: `print` and `tf.executing_eagerly()` inside Layer.call run at trace time."""

import numpy as np
import tensorflow as tf

keras = tf.keras


class Fractal2D(keras.layers.Layer):
    def __init__(self, kernel_size_range):
        super().__init__()
        self.kernel_size_range = kernel_size_range

    def call(self, inputs):
        print(f"call executes eagerly: {tf.executing_eagerly()}")
        return inputs


model = keras.Sequential([keras.Input((4,)), Fractal2D((3, 41)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.ones((8, 4)), np.ones((8, 1)), batch_size=2, epochs=2, verbose=0)
