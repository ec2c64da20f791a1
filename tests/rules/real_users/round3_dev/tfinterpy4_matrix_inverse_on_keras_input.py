# Real-user hazard: a functional model for kriging weights inverts its covariance-matrix Input with a raw TensorFlow op; under Keras 3 the Input is a KerasTensor.
# After: https://github.com/czwchenzhun/tfinterpy/pull/4 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): building the model raises ValueError: A KerasTensor cannot be used as input to a TensorFlow function (at tf.linalg.inv)
import tensorflow as tf


def kriging_weights_model(n_neighbours=6):
    cov = tf.keras.Input(shape=(n_neighbours, n_neighbours), name="covariances")
    target_cov = tf.keras.Input(shape=(n_neighbours, 1), name="target_covariances")
    cov_inv = tf.linalg.inv(cov)  # expect: TFI015
    weights = tf.keras.layers.Dot(axes=(2, 1))([cov_inv, target_cov])
    return tf.keras.Model([cov, target_cov], weights)


model = kriging_weights_model()
model.summary()
