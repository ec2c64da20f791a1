"""Legacy Keras 2 (`tf_keras`): a custom layer that is the identity on the way forward and clips
the gradient norm on the way back, written by decorating the layer's `call` with
`@tf.custom_gradient`, placed between two Dense blocks and trained with `fit`.

Written after the TensorFlow guide "Advanced automatic differentiation", section "Custom
gradients" (https://www.tensorflow.org/guide/advanced_autodiff#custom_gradients), whose
`clip_gradients` example is an identity with a clipped gradient, and the `tf.custom_gradient`
API page (https://www.tensorflow.org/api_docs/python/tf/custom_gradient). Our own code and
data. Keras passes `training=` to `call` as a keyword, and `tf.custom_gradient` refuses keyword
arguments outside eager execution: `fit` fails while tracing the train function.
"""

import numpy as np
import tensorflow as tf
import tf_keras as keras


class ClipGradientNorm(keras.layers.Layer):
    """Identity forward; backward, the incoming gradient is clipped to `clip_norm`."""

    def __init__(self, clip_norm=1.0, **kwargs):
        super().__init__(**kwargs)
        self.clip_norm = clip_norm

    @tf.custom_gradient
    def call(self, inputs, training=None):  # <- hazard
        def grad(upstream):
            return tf.clip_by_norm(upstream, self.clip_norm)

        return tf.identity(inputs), grad

    def get_config(self):
        return {**super().get_config(), "clip_norm": self.clip_norm}


rng = np.random.default_rng(9)
x = rng.normal(size=(512, 16)).astype("float32")
y = (np.tanh(x[:, :4].sum(axis=1, keepdims=True)) + 0.1 * rng.normal(size=(512, 1))).astype("float32")

model = keras.Sequential(
    [
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(64, activation="relu"),
        ClipGradientNorm(clip_norm=0.5),
        keras.layers.Dense(1),
    ]
)
model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="mse", metrics=["mae"])
model.fit(x, y, batch_size=32, epochs=3, validation_split=0.2, verbose=2)
print("test mae:", model.evaluate(x[-64:], y[-64:], verbose=0)[1])
