"""On TF 2.21 with Keras 3, `add_weight("name", shape, ...)` (the name first, as Keras 2's
signature had it) raises ValueError: `name` must be passed as a keyword argument. And
`add_variable("name", shape=...)`, Keras 2's alias of `add_weight`, is Keras 3's
`add_variable(shape, initializer, ...)`: the name is taken for the shape, and building raises
TypeError. A layer that does either builds only on Keras 2: code using it was written for
Keras 2."""
import tensorflow as tf


class Gate(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.gate = self.add_weight("gate", input_shape[-1:], initializer="ones")

    def call(self, inputs):
        return inputs * self.gate


class OldGate(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.gate = self.add_variable("gate", shape=input_shape[-1:], initializer="ones")

    def call(self, inputs):
        return inputs * self.gate


for layer in (Gate(), OldGate()):
    try:
        print(layer(tf.ones((2, 3))).shape)
    except (ValueError, TypeError) as error:
        print(type(error).__name__, error)
