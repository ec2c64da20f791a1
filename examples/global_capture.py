"""Seed 003 §2.1: a tf.function reads a Python global that changes later."""

import tensorflow as tf

scale = 1


@tf.function
def scaled(x):
    return scale * x


print(scaled(tf.constant(1)).numpy())  # 1
scale = 2
print(scaled(tf.constant(1)).numpy())  # still 1: the value was frozen at trace time
