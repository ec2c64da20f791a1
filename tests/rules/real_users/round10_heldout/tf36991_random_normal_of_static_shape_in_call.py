# Real-user hazard: a reparameterization layer draws its noise with tf.random.normal(mean.shape); called on a concrete batch it works, but model.fit traces the layer with the batch dimension unknown, and a shape containing None cannot be turned into a tensor.
# After: https://github.com/tensorflow/tensorflow/issues/36991 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call on 5 rows gives (5, 2); fit on 70 rows with batch_size=16 raises ValueError: Cannot convert a partially known TensorShape (None, 2) to a Tensor (the last, partial batch makes Keras retrace the step with the batch dimension unknown; with 64 rows, four full batches, the step is traced with batch 16 and fit runs)
import keras
import numpy as np
import tensorflow as tf


class Reparameterize(keras.layers.Layer):
    def call(self, inputs):
        mean, log_var = tf.split(inputs, 2, axis=-1)
        noise = tf.random.normal(mean.shape)  # expect: TFI026
        return mean + tf.exp(0.5 * log_var) * noise


class TinyEncoder(keras.Model):
    def __init__(self):
        super().__init__()
        self.stats = keras.layers.Dense(4)
        self.sample = Reparameterize()

    def call(self, inputs):
        return self.sample(self.stats(inputs))


x = np.random.RandomState(0).normal(size=(70, 6)).astype("float32")
model = TinyEncoder()
print("eager call:", model(x[:5]).shape)
model.compile(optimizer="adam", loss="mse")
model.fit(x, np.zeros((70, 2), "float32"), batch_size=16, epochs=1, verbose=0)
print("fit done")
