"""On TF 2.21 with Keras 3, `add_weight("name", shape, ...)` (the name first, as Keras 2's
signature had it) raises ValueError: `name` must be passed as a keyword argument. A layer that
does so builds only on Keras 2: code using it was written for Keras 2."""
import tensorflow as tf


class Gate(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.gate = self.add_weight("gate", input_shape[-1:], initializer="ones")

    def call(self, inputs):
        return inputs * self.gate


try:
    print(Gate()(tf.ones((2, 3))).shape)
except ValueError as error:
    print("ValueError", error)
