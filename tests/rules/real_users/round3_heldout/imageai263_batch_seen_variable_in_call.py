# Real-user hazard: a YOLO loss layer keeps its warm-up batch counter in a tf.Variable created inside call, so every call starts a fresh counter at 0 (and fit's traced call cannot create it at all).
# After: https://github.com/OlafenwaMoses/ImageAI/issues/263 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): three eager calls all report batch_seen 1.0 (warm-up never ends); fit raises ValueError: ... tf.function only supports singleton tf.Variables created on the first call
import numpy as np
import tensorflow as tf


class WarmupLoss(tf.keras.layers.Layer):
    def __init__(self, warmup_batches=2):
        super().__init__()
        self.warmup_batches = warmup_batches

    def call(self, inputs):
        y_pred, y_true = inputs
        batch_seen = tf.Variable(0.0, trainable=False)  # expect: TFI008
        batch_seen.assign_add(1.0)
        weight = tf.where(batch_seen <= self.warmup_batches, 0.1, 1.0)
        self.last_seen = batch_seen
        return weight * tf.reduce_mean(tf.square(y_pred - y_true), axis=-1, keepdims=True)


layer = WarmupLoss()
for _ in range(3):
    layer([tf.ones([2, 4]), tf.zeros([2, 4])])
    print("eager batch_seen:", float(layer.last_seen.numpy()))

features = tf.keras.Input(shape=(3,))
truth = tf.keras.Input(shape=(4,))
loss = WarmupLoss()([tf.keras.layers.Dense(4)(features), truth])
model = tf.keras.Model([features, truth], loss)
model.compile(optimizer="sgd", loss=lambda y_true, y_pred: y_pred)
model.fit([np.random.rand(8, 3), np.random.rand(8, 4)], np.zeros((8, 1)), batch_size=4, verbose=0)
