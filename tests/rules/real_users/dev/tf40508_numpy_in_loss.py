# Real-user hazard: a custom loss prints residual.numpy() to debug; under fit the loss runs in a graph.
# After: https://github.com/tensorflow/tensorflow/issues/40508 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): AttributeError: 'SymbolicTensor' object has no attribute 'numpy' (raised in fit)
import numpy as np
import tensorflow as tf


def debug_mse(y_true, y_pred):
    residual = y_true - y_pred
    print("residual:", residual.numpy())  # expect: TFI012, TFI006
    return tf.reduce_mean(tf.square(residual), axis=-1)


model = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(10, activation="softmax")])
model.compile(optimizer="adam", loss=debug_mse)
model.fit(np.random.rand(32, 8), np.eye(10)[np.random.randint(0, 10, 32)], epochs=1, verbose=0)
