# Real-user hazard: a custom layer prints tf.executing_eagerly() to check it runs eagerly; inside fit it is False.
# After: https://github.com/tensorflow/tensorflow/issues/38775 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): prints 'eager inside call: False' twice (model build and fit trace) and nothing during the 3 epochs
import numpy as np
import tensorflow as tf


class Probe(tf.keras.layers.Layer):
    def call(self, inputs):
        print("eager inside call:", tf.executing_eagerly())  # expect: TFI007, TFI006
        return inputs * 2.0


inputs = tf.keras.Input(shape=(2,))
model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(Probe()(inputs)))
model.compile(optimizer="sgd", loss="mse")
model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=3, verbose=0)
