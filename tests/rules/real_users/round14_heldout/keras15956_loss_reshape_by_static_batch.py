# Real-user hazard: a custom loss reshapes each row's mean with (y_pred.shape[0], 1); fit traces the train step with the first batch's size, then again with an unknown batch dimension for the smaller last batch, where y_pred.shape[0] is None and the reshape fails (batch sizes that divide the data set train).
# After: https://github.com/keras-team/keras/issues/15956 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): batch_size=25 trains; batch_size=32 (a last batch of 4) raises, at the marked line, TypeError: Failed to convert elements of (None, 1) to Tensor
import keras
import numpy as np
import tensorflow as tf


class ExplainedFraction(keras.losses.Loss):
    def call(self, y_true, y_pred):
        residual = tf.reduce_sum(tf.square(y_pred - y_true), axis=1)
        row_mean = tf.reshape(tf.reduce_mean(y_pred, axis=1), (y_pred.shape[0], 1))  # expect: TFI026
        spread = tf.reduce_sum(tf.square(y_pred - row_mean), axis=1)
        return residual / (spread + 1e-6)


def autoencoder():
    inputs = keras.Input((6,))
    hidden = keras.layers.Dense(12, activation="elu")(inputs)
    model = keras.Model(inputs, keras.layers.Dense(6)(hidden))
    model.compile(optimizer="adam", loss=ExplainedFraction())
    return model


rows = np.random.default_rng(0).normal(size=(100, 6)).astype("float32")
autoencoder().fit(rows, rows, batch_size=25, epochs=1, verbose=0)
print("batch_size=25 (100 rows, 4 full batches): trained")
autoencoder().fit(rows, rows, batch_size=32, epochs=1, verbose=0)
print("batch_size=32: trained")
