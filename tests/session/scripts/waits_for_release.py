"""A Keras layer's print, then a pause until the test releases it (a file appears), so that
the test can try the session's sockets while the script runs; then the layer runs again."""

import os
import sys
import time

import numpy as np
import tensorflow as tf

keras = tf.keras


class Probe(keras.layers.Layer):
    def call(self, x):
        print("Probe.call ran")  # @print
        return x


model = keras.Sequential([keras.Input((4,)), Probe(), keras.layers.Dense(1)])
print("ready", flush=True)
release = sys.argv[1]
deadline = time.monotonic() + 120
while not os.path.exists(release) and time.monotonic() < deadline:
    time.sleep(0.05)
model.compile(optimizer="sgd", loss="mse")
model.fit(np.ones((8, 4), "float32"), np.ones((8, 1), "float32"), epochs=2, batch_size=2, verbose=0)
print("done", flush=True)
