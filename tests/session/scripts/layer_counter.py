"""A layer that counts its calls in a Python attribute: the count goes up once per trace, not
once per step, while `fit` runs the graph at every batch."""

import numpy as np
import tensorflow as tf

keras = tf.keras


class Counted(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.calls = 0

    def call(self, inputs):
        self.calls += 1  # @verdict
        return inputs * 2.0


model = keras.Sequential([keras.Input((3,)), Counted(), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(np.ones((16, 3), "float32"), np.ones((16, 1), "float32"), batch_size=4, epochs=2,
          verbose=0)
print("calls", model.layers[0].calls)
