# Real-user hazard: a projector layer broadcasts its NumPy geometry to the static input shape before calling the op; in a functional model the batch dimension is None and np.broadcast_to fails.
# After: https://github.com/csyben/PYRO-NN/issues/23 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call works ((2, 8)); building the functional model raises TypeError (could not infer the output shape; error encountered: '<' not supported between instances of 'NoneType' and 'int')
import numpy as np
import tensorflow as tf


class BackProjection(tf.keras.layers.Layer):
    def __init__(self, angles):
        super().__init__()
        self.angles = np.asarray(angles, dtype="float32")

    def call(self, sinogram):
        geometry = np.broadcast_to(self.angles, (sinogram.shape[0], self.angles.shape[0]))  # expect: NEW-static-shape-none
        weights = tf.cos(tf.constant(geometry))[:, :, None]
        return tf.reduce_sum(sinogram * weights, axis=1)


layer = BackProjection(np.linspace(0.0, 3.1, 5))
print("eager:", layer(tf.random.normal([2, 5, 8])).shape)
sinograms = tf.keras.Input((5, 8))
model = tf.keras.Model(sinograms, BackProjection(np.linspace(0.0, 3.1, 5))(sinograms))
