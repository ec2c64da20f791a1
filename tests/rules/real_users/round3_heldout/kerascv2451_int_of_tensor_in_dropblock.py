# Real-user hazard: a DropBlock-style layer converts a size computed from tf.shape with Python int() inside call; it works eagerly but not in the graph that fit traces.
# After: https://github.com/keras-team/keras-cv/issues/2451 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call works; fit raises TypeError: int() argument must be a string, a bytes-like object or a real number, not 'SymbolicTensor'
import numpy as np
import tensorflow as tf


class DropBlock(tf.keras.layers.Layer):
    def __init__(self, rate=0.1, block_fraction=0.25):
        super().__init__()
        self.rate = rate
        self.block_fraction = block_fraction

    def call(self, x, training=None):
        if not training:
            return x
        height = tf.shape(x)[1]
        block = int(tf.cast(height, tf.float32) * self.block_fraction)  # expect: TFI012
        keep = tf.cast(tf.random.uniform(tf.shape(x)[:3]) > self.rate / (block * block), x.dtype)
        return x * keep[..., None]


print("eager:", DropBlock()(tf.ones([2, 8, 8, 3]), training=True).shape)
model = tf.keras.Sequential([tf.keras.Input(shape=(8, 8, 3)), DropBlock(), tf.keras.layers.Flatten(), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(np.random.rand(8, 8, 8, 3), np.random.rand(8, 1), batch_size=4, verbose=0)
