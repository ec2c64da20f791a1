"""Analogue of gaitmod 0.1.0, lstm_classification_model.py:204 (TFI010): a plain-function loss (given to compile) that masks padded labels (2)
and returns ONE number for the batch (reduce_sum over everything / mask count), trained with
fit(class_weight=...) on numpy y of shape (trials, windows), as a sequence classifier would be.
lr=0 so the loss fit reports is the loss at fixed weights."""
import os

import numpy as np
import tensorflow as tf

keras = tf.keras
print("tf.keras is", "tf-keras (Keras 2)" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3")


def masked_bce_scalar(y_true, y_pred):
    y_true = tf.cast(y_true, tf.float32)
    mask = tf.cast(tf.not_equal(y_true, 2), tf.float32)
    y_true = tf.clip_by_value(y_true, 0, 1)
    y_pred = tf.clip_by_value(y_pred, 1e-7, 1 - 1e-7)
    loss = -(y_true * tf.math.log(y_pred) + (1 - y_true) * tf.math.log(1 - y_pred)) * mask
    return tf.reduce_sum(loss) / (tf.reduce_sum(mask) + 1e-8)


rng = np.random.default_rng(0)
T = 6
x = rng.random((8, T, 3)).astype("float32")
y = (rng.random((8, T)) < 0.2).astype("int32")  # rare class 1
y[:4, 4:] = 2  # padding
model = keras.Sequential([keras.Input((None, 3)), keras.layers.LSTM(4), keras.layers.Dense(T, activation="sigmoid")])
model.compile(optimizer=keras.optimizers.SGD(0.0), loss=masked_bce_scalar)
pred = model.predict(x, verbose=0)
plain = float(masked_bce_scalar(y, pred))
valid = y[y != 2]
cw = {0: len(valid) / (2 * np.sum(valid == 0)), 1: len(valid) / (2 * np.sum(valid == 1))}  # 'balanced'
# what the user intends: each valid window weighted by its class weight
yt = np.clip(y, 0, 1).astype("float32")
p = np.clip(pred, 1e-7, 1 - 1e-7)
elem = -(yt * np.log(p) + (1 - yt) * np.log(1 - p))
m = (y != 2)
w = np.where(yt == 1, cw[1], cw[0])
intended = float((elem * w * m).sum() / (w * m).sum())
print(f"class_weight {{0: {cw[0]:.3f}, 1: {cw[1]:.3f}}}")
print(f"unweighted masked loss      {plain:.4f}")
print(f"per-window class-weighted   {intended:.4f}  (what balancing would give)")
try:
    h = model.fit(x, y, batch_size=8, epochs=1, verbose=0, class_weight=cw)
    got = h.history["loss"][0]
    print(f"fit(class_weight=...) loss  {got:.4f}  = unweighted x {got / plain:.3f}")
except Exception as e:
    lines = [line for line in str(e).strip().splitlines() if line.strip()]
    print("fit(class_weight=...) fails:", type(e).__name__, lines[-1][:120])
