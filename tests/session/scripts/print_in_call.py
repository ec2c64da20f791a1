"""`print` in `Layer.call`: it runs when Keras traces the train function, not at each step.
Uses `tf.keras`, so TF_USE_LEGACY_KERAS=1 selects tf-keras."""

import numpy as np
import tensorflow as tf

keras = tf.keras


class Probe(keras.layers.Layer):
    def call(self, x):
        print("Probe.call ran")  # @print
        return x


model = keras.Sequential([keras.Input((4,)), Probe(), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(np.ones((8, 4), "float32"), np.ones((8, 1), "float32"), epochs=2, batch_size=2, verbose=0)
