"""A tf.function called with Python ints in a loop: one trace per value."""

import tensorflow as tf


@tf.function
def scale(step):  # @function
    return tf.constant(2) * step


for step in range(5):
    scale(step)  # @call-site
print("done", int(scale(tf.constant(1))))
