"""A real TF run that fails: tf-keras passes `training=` to a `call` wrapped by a
custom_gradient-based recompute decorator (the bert4keras LayerNormalization seed)."""
import numpy as np
import tensorflow as tf
import tf_keras as keras


def recompute_grad(call):
    @tf.custom_gradient
    def inner(self, inputs, **kwargs):
        outputs = call(self, inputs, **kwargs)
        return outputs, lambda dy, variables=None: (dy, [tf.zeros_like(v) for v in variables or []])

    return inner


class LayerNormalization(keras.layers.Layer):
    @recompute_grad
    def call(self, inputs, **kwargs):
        return inputs * 2.0


model = keras.Sequential([keras.layers.Dense(4), LayerNormalization()])
model.compile(optimizer="sgd", loss="mse")
model.fit(np.ones((8, 3), "float32"), np.ones((8, 4), "float32"), epochs=1, verbose=0)
