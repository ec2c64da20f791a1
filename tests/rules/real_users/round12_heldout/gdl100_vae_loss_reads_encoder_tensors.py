# Real-user hazard: a variational autoencoder's KL loss, defined as a closure when the model is compiled, reads the encoder's mean and log-variance, which are symbolic tensors of the functional model; TensorFlow ops on them fail once fit traces the loss.
# After: https://github.com/davidADSP/GDL_code/issues/100 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): building and compiling the model works; fit raises ValueError: Tried to convert 'x' to a tensor and failed. Error: A KerasTensor cannot be used as input to a TensorFlow function.
import keras
import numpy as np
import tensorflow as tf


class Sampling(keras.layers.Layer):
    def call(self, inputs):
        mean, log_var = inputs
        return mean + tf.exp(0.5 * log_var) * tf.random.normal(tf.shape(mean))


class TinyVAE:
    def __init__(self, width, latent):
        pixels = keras.Input(shape=(width,))
        hidden = keras.layers.Dense(8, activation="relu")(pixels)
        self.mean = keras.layers.Dense(latent)(hidden)
        self.log_var = keras.layers.Dense(latent)(hidden)
        code = Sampling()([self.mean, self.log_var])
        rebuilt = keras.layers.Dense(width, activation="sigmoid")(code)
        self.model = keras.Model(pixels, rebuilt)

    def compile(self, kl_weight):
        def kl_loss(y_true, y_pred):
            return -0.5 * tf.reduce_sum(1 + self.log_var - tf.square(self.mean) - tf.exp(self.log_var), axis=1)  # expect: TFI015

        def total_loss(y_true, y_pred):
            rebuild = tf.reduce_sum(tf.square(y_true - y_pred), axis=1)
            return rebuild + kl_weight * kl_loss(y_true, y_pred)

        self.model.compile(optimizer="adam", loss=total_loss)


vae = TinyVAE(width=16, latent=2)
vae.compile(kl_weight=0.1)
images = np.random.rand(32, 16).astype("float32")
vae.model.fit(images, images, batch_size=8, epochs=1, verbose=0)
print("fit ran")
