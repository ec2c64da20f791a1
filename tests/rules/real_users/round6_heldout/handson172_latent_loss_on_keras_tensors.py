# Real-user hazard: a variational autoencoder written for tf-keras computes its KL (latent) loss with tf.exp / tf.square / tf.reduce_sum on the encoder's mean and log-variance outputs while building the functional model, to pass to add_loss; with Keras 3 those outputs are KerasTensors.
# After: https://github.com/ageron/handson-ml3/issues/172 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the encoder, decoder and autoencoder build; the latent-loss line raises ValueError: A KerasTensor cannot be used as input to a TensorFlow function (add_loss is never reached)
import keras
import tensorflow as tf


class DrawCode(keras.layers.Layer):
    def call(self, moments):
        mean, log_var = moments
        return tf.random.normal(tf.shape(log_var)) * tf.exp(log_var / 2) + mean


code_size = 4
pixels = keras.Input(shape=(16, 16))
flat = keras.layers.Flatten()(pixels)
flat = keras.layers.Dense(32, activation="relu")(flat)
code_mean = keras.layers.Dense(code_size)(flat)
code_log_var = keras.layers.Dense(code_size)(flat)
code = DrawCode()([code_mean, code_log_var])
encoder = keras.Model(pixels, [code_mean, code_log_var, code])

code_in = keras.Input(shape=(code_size,))
rebuilt = keras.layers.Reshape((16, 16))(keras.layers.Dense(256)(keras.layers.Dense(32, activation="relu")(code_in)))
decoder = keras.Model(code_in, rebuilt)

_, _, sampled = encoder(pixels)
autoencoder = keras.Model(pixels, decoder(sampled))
latent_loss = -0.5 * tf.reduce_sum(1 + code_log_var - tf.exp(code_log_var) - tf.square(code_mean), axis=-1)  # expect: TFI015
autoencoder.add_loss(tf.reduce_mean(latent_loss) / 256.0)
autoencoder.compile(loss="mse", optimizer="nadam")
