"""Completes, but its `print` ran once (at trace time) for ten calls of the graph."""

import tensorflow as tf


@tf.function
def step(x):
    print("step", x)  # @verdict
    return x + 1


for _ in range(10):
    step(tf.constant(1.0))
