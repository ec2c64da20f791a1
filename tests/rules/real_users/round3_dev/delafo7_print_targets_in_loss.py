# Real-user hazard: a portfolio loss prints its targets to inspect them during fit; the loss is traced, so print shows a symbolic tensor at trace time and no values.
# After: https://github.com/caokyhieu/DELAFO-DeEp-Learning-Approach-for-portFolio-Optimization/issues/7 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 30 batches over 3 epochs; "returns:" printed twice, both times Tensor("data_1:0", shape=(8, 5), ...), never a value
import numpy as np
import tensorflow as tf


def negative_sharpe(y_true, y_pred):
    print("returns:", y_true)  # expect: TFI006
    portfolio = tf.reduce_sum(y_true * y_pred, axis=1)
    return -tf.reduce_mean(portfolio) / (tf.math.reduce_std(portfolio) + 1e-6)


model = tf.keras.Sequential([tf.keras.Input(shape=(10,)), tf.keras.layers.Dense(5, activation="softmax")])
model.compile(optimizer="adam", loss=negative_sharpe)
model.fit(np.random.rand(80, 10), np.random.randn(80, 5) * 0.01, batch_size=8, epochs=3, verbose=0)
