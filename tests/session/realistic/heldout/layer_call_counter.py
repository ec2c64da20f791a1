"""A custom Keras layer that anneals its input noise: it counts its training calls in a Python
attribute (`self.calls += 1`) and shrinks the noise as the count grows. Trained with `fit`,
then evaluated; the author prints the count at the end to check the schedule.

Written after the keras.io guide "Making new layers and models via subclassing"
(https://keras.io/guides/making_new_layers_and_models_via_subclassing/), which builds layers
with state and a `training` argument. Our own code and data. The counter is Python state: it
moves only when Keras traces `call`, not once per batch, so the noise never anneals.
"""

import keras
import numpy as np
import tensorflow as tf
from keras import layers


class AnnealedGaussianNoise(layers.Layer):
    """Adds N(0, stddev) noise in training, with stddev = initial / (1 + decay * calls)."""

    def __init__(self, initial_stddev=0.5, decay=0.05, **kwargs):
        super().__init__(**kwargs)
        self.initial_stddev = initial_stddev
        self.decay = decay
        self.calls = 0

    def call(self, inputs, training=None):
        if not training:
            return inputs
        self.calls += 1  # <- hazard
        stddev = self.initial_stddev / (1.0 + self.decay * self.calls)
        return inputs + tf.random.normal(tf.shape(inputs), stddev=stddev)

    def get_config(self):
        config = super().get_config()
        config.update({"initial_stddev": self.initial_stddev, "decay": self.decay})
        return config


rng = np.random.default_rng(12)
x = rng.normal(size=(640, 10)).astype("float32")
w = rng.normal(size=(10, 3))
y = np.argmax(x @ w + 0.3 * rng.normal(size=(640, 3)), axis=1).astype("int32")

model = keras.Sequential(
    [
        keras.Input(shape=(10,)),
        AnnealedGaussianNoise(initial_stddev=0.5, decay=0.05, name="annealed_noise"),
        layers.Dense(32, activation="relu"),
        layers.Dense(3, activation="softmax"),
    ]
)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
history = model.fit(x[:512], y[:512], batch_size=32, epochs=4, validation_data=(x[512:], y[512:]), verbose=2)
print("evaluate:", model.evaluate(x[512:], y[512:], verbose=0))

noise = model.get_layer("annealed_noise")
print(f"noise layer counted {noise.calls} training calls; final stddev "
      f"{noise.initial_stddev / (1.0 + noise.decay * noise.calls):.3f}")
