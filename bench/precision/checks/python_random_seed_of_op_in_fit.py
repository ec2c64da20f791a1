"""On TF 2.21, a Keras layer whose `call` passes `random.randint(...)` as the seed of an op that
draws from that seed alone: fit traces `call` once, so every step gets the same seed and the
same dropout mask (eagerly, each call would draw a new one)."""
import random

import numpy as np
import tensorflow as tf

masks = []


class SeededDropout(tf.keras.layers.Layer):
    def call(self, inputs):
        seed = random.randint(0, 100000)  # drawn once per trace under fit
        keep = tf.random.stateless_uniform(tf.shape(inputs), seed=[seed, 0]) > 0.5
        tf.py_function(lambda m: masks.append(m.numpy().copy()), [keep], [])
        return tf.where(keep, inputs * 2.0, 0.0)


model = tf.keras.Sequential([tf.keras.Input((16,)), SeededDropout(), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(np.ones((4, 16)), np.ones((4, 1)), batch_size=4, epochs=5, verbose=0)
print("steps:", len(masks), "distinct masks:", len({m.tobytes() for m in masks}))
