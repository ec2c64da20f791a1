"""Repeats itself, then meets what is new after the tracer was switched off: a tf.function
traced again for a new shape, and a layer called eagerly at a new line."""

import tensorflow as tf

dense = tf.keras.layers.Dense(2)


@tf.function
def step(x):
    return dense(x)


for _ in range(8):
    step(tf.ones((2, 3)))
for _ in range(8):
    dense(tf.ones((2, 3)))
step(tf.ones((4, 3)))  # @new-shape
dense(tf.ones((1, 3)))  # @new-site
