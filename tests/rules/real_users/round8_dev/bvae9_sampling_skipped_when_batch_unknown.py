# Real-user hazard: a VAE sampling layer returns the mean unchanged when the static batch size is None (a "trick" to let Keras build the model), and only samples and adds its KL loss otherwise; fit traces the layer with a None batch, so training never samples and never sees the KL term.
# After: https://github.com/alecGraves/BVAE-tf/issues/9 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): an eager call on 64 samples draws noise (two calls differ) and adds a KL loss (1.753); fit on a batched tf.data.Dataset (batch dimension None) with learning rate 0 reports loss 1.5763, exactly the reconstruction MSE of the mean path (1.5763): no noise and no KL term reach training
import keras
import numpy as np
import tensorflow as tf
from keras import ops

keras.utils.set_random_seed(0)


class Sampling(keras.layers.Layer):
    def call(self, inputs):
        mean, logvar = inputs
        if mean.shape[0] is None:  # expect: NEW-static-shape-none-branch
            return mean + 0.0 * logvar
        kl = -0.5 * ops.mean(ops.sum(1.0 + logvar - ops.square(mean) - ops.exp(logvar), axis=-1))
        self.add_loss(kl)
        noise = keras.random.normal(ops.shape(mean))
        return mean + ops.exp(0.5 * logvar) * noise


inputs = keras.Input((6,))
mean = keras.layers.Dense(2)(inputs)
logvar = keras.layers.Dense(2)(inputs)
decoded = keras.layers.Dense(6)(Sampling()([mean, logvar]))
vae = keras.Model(inputs, decoded)
mean_path = keras.Model(inputs, keras.layers.Dense(6)(mean))
mean_path.layers[-1].set_weights(vae.layers[-1].get_weights())

data = np.random.RandomState(0).normal(size=(64, 6)).astype("float32")
first, second = vae(data), vae(data)
print("eager: two calls differ:", not np.allclose(first, second), "KL loss:", round(float(vae.losses[0]), 3))
vae.compile(optimizer=keras.optimizers.SGD(learning_rate=0.0), loss="mse")
batches = tf.data.Dataset.from_tensor_slices((data, data)).batch(64)
history = vae.fit(batches, epochs=1, verbose=0, shuffle=False)
print("fit loss:", round(history.history["loss"][0], 4),
      "MSE of the mean path:", round(float(np.mean((mean_path(data) - data) ** 2)), 4))
