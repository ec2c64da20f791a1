"""A loop that would retrace for a very long time: a Python int passed to a tf.function."""

import tensorflow as tf


@tf.function
def scale(x, factor):
    return x * factor


for step in range(1_000_000):
    scale(tf.constant(1.0), step)  # @verdict
print("done")
