"""Completes, but retraces on every step: a Python int passed to a tf.function."""

import tensorflow as tf


@tf.function
def scale(x, factor):
    return x * factor


for step in range(6):
    scale(tf.constant(1.0), step)  # @verdict
