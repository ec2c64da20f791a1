# Real-user hazard: a VAE loss passed to compile computes the KL term from the encoder's mean and log-variance tensors of the functional model (read from the enclosing scope) instead of from its arguments; fit traces the loss with real batches, but those two are symbolic model tensors.
# After: https://github.com/GANs-in-Action/gans-in-action/issues/15 (pattern only; this code is ours)
# Confirmed on TF 2.21 (tf-keras): compile succeeds; fit raises TypeError: You are passing KerasTensor(..., description="created by layer 'tf.cast_2'"), an intermediate TF-Keras symbolic input/output, to a TF API that does not allow registering custom dispatchers
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf

backend = tf.keras.backend
reading_size = 12
latent_size = 2

readings = tf.keras.Input(shape=(reading_size,))
hidden = tf.keras.layers.Dense(8, activation="relu")(readings)
code_mean = tf.keras.layers.Dense(latent_size)(hidden)
code_log_var = tf.keras.layers.Dense(latent_size)(hidden)


def draw_code(moments):
    mean, log_var = moments
    return mean + backend.exp(log_var / 2) * backend.random_normal(backend.shape(mean))


code = tf.keras.layers.Lambda(draw_code)([code_mean, code_log_var])
rebuilt = tf.keras.layers.Dense(reading_size, activation="sigmoid")(
    tf.keras.layers.Dense(8, activation="relu")(code))
sensor_vae = tf.keras.Model(readings, rebuilt)


def sensor_vae_loss(batch, batch_rebuilt):
    rebuild = reading_size * tf.keras.losses.binary_crossentropy(batch, batch_rebuilt)
    kl = -0.5 * backend.sum(1 + code_log_var - backend.square(code_mean) - backend.exp(code_log_var), axis=-1)  # expect: NEW-keras-tensor-in-loss
    return backend.mean(rebuild + kl)


sensor_vae.compile(optimizer="rmsprop", loss=sensor_vae_loss)
samples = np.random.rand(64, reading_size).astype("float32")
sensor_vae.fit(samples, samples, batch_size=16, epochs=1, verbose=0)
