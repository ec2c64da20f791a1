"""Seed: the bert4keras-style LayerNormalization with `@recompute_grad` on a kwargs `call`."""
import tensorflow as tf
import tf_keras as keras


def recompute_grad(call):
    """A recompute decorator built on tf.custom_gradient."""

    @tf.custom_gradient
    def inner(self, inputs, **kwargs):
        outputs = call(self, inputs, **kwargs)
        return outputs, lambda dy, variables=None: (dy, [tf.zeros_like(v) for v in variables])

    return inner


class LayerNormalization(keras.layers.Layer):
    @recompute_grad  # @decorator
    def call(self, inputs, **kwargs):  # @call
        mean, variance = tf.nn.moments(inputs, axes=[-1], keepdims=True)
        return (inputs - mean) * tf.math.rsqrt(variance + 1e-6)


class Fractal2D(keras.layers.Layer):
    def call(self, inputs):  # @fractal-call
        print("Fractal2D input", inputs)  # @print
        return tf.identity(inputs)


@tf.function
def step(x):  # @step
    return LayerNormalization()(x)
