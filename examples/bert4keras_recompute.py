"""Seed 000: a bert4keras-style `@recompute_grad` built on tf.custom_gradient, on a
LayerNormalization whose `call` takes `**kwargs`. tf-keras passes `training=None` while building
the functional model, and custom_gradient rejects it in graph mode."""

import os

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

import tensorflow as tf
import tf_keras as keras


def recompute_grad(call):
    @tf.custom_gradient
    def inner(self, inputs, **kwargs):
        outputs = call(self, inputs, **kwargs)

        def grad(dy, variables=None):
            return dy, [tf.zeros_like(v) for v in variables or []]

        return outputs, grad

    return inner


class LayerNormalization(keras.layers.Layer):
    def build(self, input_shape):
        self.gamma = self.add_weight(name="gamma", shape=input_shape[-1:], initializer="ones")

    @recompute_grad
    def call(self, inputs, **kwargs):
        mean = tf.reduce_mean(inputs, axis=-1, keepdims=True)
        variance = tf.reduce_mean(tf.square(inputs - mean), axis=-1, keepdims=True)
        return (inputs - mean) / tf.sqrt(variance + 1e-12) * self.gamma


inputs = keras.Input((8,))
outputs = LayerNormalization()(keras.layers.Dense(8)(inputs))
model = keras.Model(inputs, outputs)
