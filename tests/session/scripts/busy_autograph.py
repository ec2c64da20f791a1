"""AutoGraph converts the same helper call 300 times while tracing one function."""

import tensorflow as tf


def add_one(x):
    return x + 1


@tf.function
def many(x):
    for _ in range(300):  # a Python loop: unrolled at trace time
        x = add_one(x)  # @busy
    return x


print("total", int(many(tf.constant(0))))
