# Real-user hazard: a keypoint metric picks its branch with len(tf.shape(y_true)) (heatmaps or coordinates); in the graph that fit traces, tf.shape returns a symbolic tensor with no len().
# After: https://github.com/vietanhdev/tf-blazepose/issues/14 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): update_state works eagerly (hit rate 1.0); fit raises TypeError: len is not well defined for a symbolic Tensor (Shape_2:0)
import numpy as np
import tensorflow as tf


class KeypointHitRate(tf.keras.metrics.Metric):
    def __init__(self, threshold=0.1, **kwargs):
        super().__init__(name="hit_rate", **kwargs)
        self.threshold = threshold
        self.hits = self.add_weight(name="hits", initializer="zeros")
        self.count = self.add_weight(name="count", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        if len(tf.shape(y_true)) == 4:  # expect: NEW-len-of-symbolic-tensor
            y_true = tf.reduce_max(y_true, axis=[1, 2])
            y_pred = tf.reduce_max(y_pred, axis=[1, 2])
        close = tf.cast(tf.abs(y_true - y_pred) < self.threshold, tf.float32)
        self.hits.assign_add(tf.reduce_sum(close))
        self.count.assign_add(tf.cast(tf.size(close), tf.float32))

    def result(self):
        return self.hits / self.count


metric = KeypointHitRate()
metric.update_state(tf.zeros([2, 6]), tf.fill([2, 6], 0.05))
print("eager hit rate:", float(metric.result()))
model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(6)])
model.compile(optimizer="sgd", loss="mse", metrics=[KeypointHitRate()])
model.fit(np.random.rand(16, 4), np.random.rand(16, 6), batch_size=4, epochs=1, verbose=0)
