# Real-user hazard: a tf.recompute_grad-wrapped block is called with training= as a keyword while fit builds the graph.
# After: https://github.com/tensorflow/tensorflow/issues/56692 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): ValueError while building the functional model: The custom_gradient decorator currently supports keywords arguments only when eager execution is enabled
import numpy as np
import tensorflow as tf


class CheckpointedBlock(tf.keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.dense = tf.keras.layers.Dense(units)
        self.norm = tf.keras.layers.BatchNormalization()
        self.forward = tf.recompute_grad(self._forward)

    def _forward(self, x, training=None):
        return tf.nn.relu(self.norm(self.dense(x), training=training))

    def call(self, x, training=None):
        return self.forward(x, training=training)  # expect: TFI001


inputs = tf.keras.Input(shape=(6,))
outputs = tf.keras.layers.Dense(1)(CheckpointedBlock(8)(inputs))
model = tf.keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(16, 6), np.random.rand(16, 1), epochs=1, verbose=0)
print("trained")
