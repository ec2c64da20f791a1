"""Completes, but retraces for every new input length."""

import tensorflow as tf


@tf.function
def total(x):
    return tf.reduce_sum(x)


for n in range(1, 6):
    total(tf.ones([n]))  # @verdict
