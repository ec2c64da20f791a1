# Real-user hazard: a custom metric meant to log every batch prints the error and counts batches in a module-level variable.
# After: https://github.com/keras-team/keras/issues/8269 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 16 batches trained; the metric printed twice, a symbolic Tensor("Mean:0", shape=(8,)) and never a value, and batches_logged is 2
import numpy as np
import tensorflow as tf

batches_logged = 0


def logged_mae(y_true, y_pred):
    global batches_logged
    error = tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1)
    print("batch error:", error)  # expect: TFI006
    batches_logged += 1  # expect: TFI006
    return error


model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse", metrics=[logged_mae])
model.fit(np.random.rand(64, 3), np.random.rand(64, 1), batch_size=8, epochs=2, verbose=0)
print("batches trained: 16, batches logged:", batches_logged)
