# Real-user hazard: a scoring method wraps its inner step in @tf.function inside the method body, and is called once per region.
# After: https://github.com/YosefLab/epitome/issues/43 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): every call traces a new predict_step; 'triggered tf.function retracing' warnings from the 5th call on
import numpy as np
import tensorflow as tf


class RegionScorer:
    def __init__(self):
        self.model = tf.keras.Sequential([tf.keras.Input(shape=(10,)), tf.keras.layers.Dense(1, activation="sigmoid")])

    def score_region(self, features):
        @tf.function
        def infer(inputs):
            return self.model(inputs, training=False)

        return infer(features)  # expect: TFI014


scorer = RegionScorer()
for _ in range(8):
    scorer.score_region(tf.constant(np.random.rand(32, 10), tf.float32))
