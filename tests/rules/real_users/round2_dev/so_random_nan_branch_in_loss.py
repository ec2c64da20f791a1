# Real-user hazard: to test a NaN-handling callback, a dice loss returns NaN "at random" by drawing K.random_normal and reading it with K.eval in a Python if.
# After: https://whosebug.com/question/3947248/Keras-loss-function-understanding (pattern only; this code is ours)
# Confirmed on TF 2.21 (tf-keras): fit raises AttributeError: 'SymbolicTensor' object has no attribute 'numpy' (K.eval of the random draw inside the traced loss)
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K


def flaky_dice_loss(y_true, y_pred):
    if K.eval(K.random_normal((1, 1), mean=2, stddev=2))[0][0] // 1 == 2.0:  # expect: TFI012
        return K.exp(1.0) / K.exp(-1e10)
    numerator = 2.0 * K.sum(y_true * y_pred, axis=-1)
    denominator = K.sum(K.square(y_true) + K.square(y_pred), axis=-1)
    return 1.0 - numerator / (denominator + 1e-6)


model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(4, activation="sigmoid")])
model.compile(optimizer="adam", loss=flaky_dice_loss)
history = model.fit(np.random.rand(64, 4), np.random.rand(64, 4), batch_size=8, epochs=3, verbose=0)
print("loss per epoch:", history.history["loss"])
