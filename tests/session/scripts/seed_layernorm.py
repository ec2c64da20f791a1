"""The seed case (tf-keras, run with TF_USE_LEGACY_KERAS=1): a bert4keras-style `@recompute_grad`
built on `tf.custom_gradient` on `LayerNormalization.call(self, inputs, **kwargs)`, used in a
functional model next to a plain layer."""

import tensorflow as tf

keras = tf.keras


def recompute_grad(call):
    @tf.custom_gradient
    def inner(self, inputs, **kwargs):
        outputs = call(self, inputs, **kwargs)

        def grad(dy, variables=None):
            return dy, [tf.zeros_like(v) for v in variables or []]

        return outputs, grad

    return inner


class PositionEmbedding(keras.layers.Layer):
    def call(self, inputs):
        return inputs + 1.0


class LayerNormalization(keras.layers.Layer):
    @recompute_grad
    def call(self, inputs, **kwargs):
        mean = tf.reduce_mean(inputs, axis=-1, keepdims=True)
        return inputs - mean


inputs = keras.Input((3,))
hidden = PositionEmbedding()(inputs)  # @plain-call
outputs = LayerNormalization()(hidden)  # @recompute-call
keras.Model(inputs, outputs)
