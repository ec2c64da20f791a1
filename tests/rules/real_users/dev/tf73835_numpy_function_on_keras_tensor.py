# Real-user hazard: tf.numpy_function applied to functional-model KerasTensors to build a NumPy hit-rate metric.
# After: https://github.com/tensorflow/tensorflow/issues/73835 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): ValueError: A KerasTensor is symbolic ... You cannot convert it to a NumPy array.
import numpy as np
import tensorflow as tf


def hit_rate(labels, probs):
    return np.float32(((probs[:, 0] > 0.5) == (labels > 0.5)).mean())


features = tf.keras.Input(shape=(12,), name="features")
label = tf.keras.Input(shape=(), name="label")
probs = tf.keras.layers.Dense(1, activation="sigmoid")(tf.keras.layers.Dense(8, activation="relu")(features))
hits = tf.numpy_function(hit_rate, [label, probs], tf.float32)  # expect: TFI015
model = tf.keras.Model(inputs=[features, label], outputs=probs)
