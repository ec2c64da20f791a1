# Real-user hazard: an IoU metric function guards a division with a Python conditional on a tensor (`... if union != 0 else ...`).
# After: https://github.com/tensorflow/tensorflow/issues/40143 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the metric works eagerly (0.338), fit raises OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is not allowed
import numpy as np
import tensorflow as tf


def iou(y_true, y_pred):
    pred_mask = tf.cast(y_pred > 0.5, tf.float32)
    intersection = tf.reduce_sum(y_true * pred_mask)
    union = tf.reduce_sum(tf.maximum(y_true, pred_mask))
    return intersection / union if union != 0 else union  # expect: TFI013


model = tf.keras.Sequential([tf.keras.Input(shape=(16,)), tf.keras.layers.Dense(16, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=[iou])
x = np.random.rand(32, 16).astype("float32")
y = (np.random.rand(32, 16) > 0.5).astype("float32")
print("eager:", float(iou(tf.constant(y), model(x))))
model.fit(x, y, epochs=1, verbose=0)
