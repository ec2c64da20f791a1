"""A layer's `call` sets `self.norm_factors = tf.cast(self.norm_factors, tf.complex128)` on an
attribute that `__init__` already made a complex128 tensor: does the attribute become a graph
tensor of the trace, and do later traces (another shape, fit, predict) fail?"""
import numpy as np
import tensorflow as tf
from tensorflow import keras


class Inverse(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.norm_factors = tf.constant(np.full((3,), 2.0), dtype=tf.complex128)

    def call(self, y):
        y = tf.cast(y, tf.complex128)
        self.norm_factors = tf.cast(self.norm_factors, tf.complex128)
        return tf.math.real(y / self.norm_factors)


layer = Inverse()
print("eager", layer(np.ones((2, 3), "float32")).numpy()[0])
print("attribute after eager call", type(layer.norm_factors).__name__)
f = tf.function(layer)
for shape in ((2, 3), (4, 3)):
    try:
        f(tf.ones(shape))
        print("tf.function", shape, "ok;", type(layer.norm_factors).__name__)
    except Exception as error:
        print("tf.function", shape, "raised", type(error).__name__, str(error).splitlines()[0][:200])
layer2 = Inverse()
inputs = keras.Input((3,))
try:
    model = keras.Model(inputs, layer2(inputs))
    print("functional ok;", type(layer2.norm_factors).__name__)
    model.compile(loss="mse")
    model.fit(np.ones((8, 3)), np.ones((8, 3)), verbose=0)
    print("fit ok")
    print(model.predict(np.ones((2, 3)), verbose=0)[0])
    print("predict ok")
except Exception as error:
    print("raised", type(error).__name__, str(error).splitlines()[0][:200])
