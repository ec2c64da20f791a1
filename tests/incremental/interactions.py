"""Code whose findings cross top-level statements, for the incremental-analysis tests: each
function here is reported on because of another statement (a helper it calls, a function that
calls it, a `global` write, a mutation, a decorator, a cycle). Random edits of this file must
give the findings of a fresh analysis."""
import random

import numpy as np
import tensorflow as tf
from tensorflow import keras

scale = 1.0
history = []
table = {}
rng = np.random.default_rng(0)
clip = tf.custom_gradient(lambda x: (x, lambda dy: dy))


def in_graph():
    return not tf.executing_eagerly()


def eager_only():
    return tf.executing_eagerly()


def to_numpy(value):
    return value.numpy()


def as_array(value):
    return np.asarray(value)


def log_value(value):
    print("value", value)
    history.append(value)


def make_variable(shape):
    return tf.Variable(tf.zeros(shape))


def set_scale(value):
    global scale
    scale = value


def remember(key, value):
    table[key] = value


def recompute(function):
    return tf.recompute_grad(function)


def traced(function):
    return tf.function(function)


@tf.function
def first(x):
    return second(x) + scale


@tf.function
def second(x):
    if eager_only():
        return to_numpy(x)
    return third(x)


@tf.function
def third(x):
    return first(x) * table.get("k", 1.0)


@tf.function
def step(x, n):
    log_value(x)
    y = as_array(x)
    for i in range(n):
        x = x + make_variable((2,)) + rng.normal()
    if in_graph():
        return to_numpy(x)
    return clip(x, training=True) + y + random.random()


def helper(x):
    return to_numpy(x) + history[-1]


class Base(keras.layers.Layer):
    def build(self, shape):
        self.kernel = tf.Variable(tf.ones(shape[-1:]))

    def prepare(self, x):
        return helper(x)


class Child(Base):
    @recompute
    def call(self, inputs, training=None):
        log_value(inputs)
        return self.prepare(inputs) * scale


def my_loss(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


def parse(record):
    remember("last", record)
    return as_array(record)


dataset = tf.data.Dataset.range(8).map(parse)
model = keras.Sequential([Child()])
model.compile(optimizer="sgd", loss=my_loss)
fast = traced(helper)

for epoch in range(3):
    set_scale(epoch)
    step(tf.constant(1.0), epoch)
    first(tf.constant(2.0))
    fast(tf.constant(3.0))
    history.clear()
