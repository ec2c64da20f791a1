# Real-user hazard: a custom Loss.call returns one mean over the whole batch, so Keras cannot weight samples.
# After: https://github.com/tensorflow/tensorflow/issues/42446 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): with sample_weight [1,1,0,0] evaluate gives 6.5 (zero-weighted samples still counted); built-in mse gives 0.5
import numpy as np
import tensorflow as tf


class SmoothedSquaredError(tf.keras.losses.Loss):
    def __init__(self, smoothing=0.0, name="smoothed_squared_error"):
        super().__init__(name=name)
        self.smoothing = smoothing

    def call(self, y_true, y_pred):
        target = (1.0 - self.smoothing) * y_true + self.smoothing * tf.reduce_mean(y_true)
        return tf.reduce_mean(tf.square(target - y_pred))  # expect: TFI010


inputs = tf.keras.Input(shape=(1,))
model = tf.keras.Model(inputs, tf.keras.layers.Dense(1, kernel_initializer="zeros", use_bias=False)(inputs))
x = np.zeros((4, 1))
y = np.array([[1.0], [1.0], [5.0], [5.0]])
weights = np.array([1.0, 1.0, 0.0, 0.0])
model.compile(optimizer="sgd", loss=SmoothedSquaredError())
print("custom loss, weighted:", model.evaluate(x, y, sample_weight=weights, verbose=0))
model.compile(optimizer="sgd", loss="mse")
print("built-in mse, weighted:", model.evaluate(x, y, sample_weight=weights, verbose=0))
