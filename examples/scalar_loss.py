"""Seed 003 §3.3: a custom loss that averages over the batch makes sample_weight wrong."""

import numpy as np
import tensorflow as tf

keras = tf.keras


def scalar_loss(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


def per_sample_loss(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)


x = np.linspace(0.0, 1.0, 32, dtype="float32").reshape(8, 4)
y = np.zeros((8, 1), "float32")
weights = np.array([1, 0, 0, 0, 0, 0, 0, 0], dtype="float32")
for loss in (scalar_loss, per_sample_loss):
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss=loss)
    history = model.fit(x, y, sample_weight=weights, batch_size=4, epochs=1, shuffle=False,
                        verbose=0)
    print(f"{loss.__name__}: weighted loss {history.history['loss'][0]:.4f}")
