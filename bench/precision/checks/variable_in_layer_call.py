"""A Keras layer whose `call` makes a `tf.Variable` as a temporary accumulator (`d =
tf.Variable(initial_value=())`, then `d = tf.concat([d, ...])`): eagerly it works; does it under
`tf.function` and `fit`?"""
import numpy as np
import tensorflow as tf
from tensorflow import keras


class Accumulating(keras.layers.Layer):
    def call(self, inputs):
        d = tf.Variable(initial_value=(), trainable=False)
        d = tf.concat([d, tf.reduce_sum(inputs, axis=0)[:1]], 0)
        return inputs * tf.reduce_sum(d)


def first_line(error):
    lines = [line.strip() for line in str(error).splitlines() if "Variable" in line]
    return lines[-1] if lines else str(error).splitlines()[0]


layer = Accumulating()
print("eager", layer(np.ones((2, 3), "float32")).shape)
try:
    tf.function(layer)(tf.ones((2, 3)))
    print("tf.function ok")
except ValueError as error:
    print("tf.function raised", first_line(error))
inputs = keras.Input((3,))
try:
    model = keras.Model(inputs, Accumulating()(inputs))
    model.compile(loss="mse")
    model.fit(np.ones((8, 3)), np.ones((8, 3)), verbose=0)
    print("fit ok")
except ValueError as error:
    print("fit raised", first_line(error))
