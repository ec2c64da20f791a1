# Real-user hazard: a YOLO loss layer creates its "batches seen" counter as a tf.Variable inside call().
# After: https://github.com/experiencor/keras-yolo3/issues/332 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the functional model builds, fit raises ValueError: Exception encountered when calling YoloLossLayer.call(): tf.function only supports singleton tf.Variables created on the first call
import numpy as np
import tensorflow as tf


class YoloLossLayer(tf.keras.layers.Layer):
    def __init__(self, warmup_batches, **kwargs):
        super().__init__(**kwargs)
        self.warmup_batches = warmup_batches

    def call(self, inputs):
        pred, true = inputs
        batch_seen = tf.Variable(0.0)  # expect: TFI008
        batch_seen.assign_add(1.0)
        warm = tf.cast(batch_seen < self.warmup_batches, tf.float32)
        loss = tf.reduce_mean(tf.square(pred - true)) * (1.0 + warm)
        self.add_loss(loss)
        return pred


image = tf.keras.Input(shape=(8,))
target = tf.keras.Input(shape=(4,))
pred = tf.keras.layers.Dense(4)(image)
out = YoloLossLayer(warmup_batches=3)([pred, target])
model = tf.keras.Model([image, target], out)
model.compile(optimizer="adam")
model.fit([np.random.rand(16, 8), np.random.rand(16, 4)], epochs=1, verbose=0)
print("trained")
